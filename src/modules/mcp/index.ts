// The MCP module: the canonical list of MCP servers, what each run gets, the opt-in export into the
// user's CLI configs and installs into <home>/mcp.
export { McpRepo } from './mcp.repo.ts';
export { McpService, type McpServiceDeps } from './mcp.service.ts';
export { mcpRoutes, type McpRouteDeps } from './mcp.routes.ts';
