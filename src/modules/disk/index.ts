// The disk module: what the data directory holds by part (GET /api/disk), for the API, `svc status`
// and the settings page's "Disk use" block.
export { DiskUsage } from './disk.service.ts';
