// The traces module: each agent run's summary and its NDJSON trace, a page at a time (the trace
// files are written by src/agent/traces.ts).
export { traceRoutes, type TraceRouteDeps } from './traces.routes.ts';
