// The disk module: what the data directory holds by part (GET /api/disk), for the API, `svc status`
// and the settings page's "Disk use" block.
export { DiskUsage } from './disk.service.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadDiskRoutes = () => import('./disk.routes.ts').then((m) => m.diskRoutes);
