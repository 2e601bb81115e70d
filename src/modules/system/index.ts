// The system module: health, the active session, runtime facts and the access token (the spec's
// "Core and system" group).
export { systemRoutes, type SystemRouteDeps, HealthSchema } from './system.routes.ts';
