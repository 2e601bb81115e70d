// The traces module: each agent run's summary and its NDJSON trace, a page at a time (the trace
// files are written by src/agent/traces.ts), and their retention (the oldest go beyond the bounds
// of the `traces` settings; pinned ones stay).
export type { TraceRouteDeps } from './traces.routes.ts';
export { TraceRetention, type RetentionStats, type PruneRecord } from './retention.ts';
export { TracePinRepo } from './pins.repo.ts';
export { traceSettings, type TraceSettings } from './settings.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadTraceRoutes = () => import('./traces.routes.ts').then((m) => m.traceRoutes);
