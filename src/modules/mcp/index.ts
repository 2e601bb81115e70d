// The MCP module: the canonical list of MCP servers, what each run gets, the opt-in export into the
// user's CLI configs and installs into <home>/mcp.
export { McpRepo } from './mcp.repo.ts';
export { McpService, type McpServiceDeps } from './mcp.service.ts';
export type { McpRouteDeps } from './mcp.routes.ts';
export { syncMcp, SYNC_TARGETS, SYNC_TARGET_IDS, type SyncTarget, type SyncReport } from './sync.ts';
export { McpInstaller, type InstallDeps } from './install.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadMcpRoutes = () => import('./mcp.routes.ts').then((m) => m.mcpRoutes);
