// The permissions module: tool calls held for a person's answer, their decisions and remembered rules.
export { PermissionsService, type AskContext, type AskedCall, type Answer } from './permissions.service.ts';
export { PermissionsRepo } from './permissions.repo.ts';
export { permissionRoutes, type PermissionRouteDeps } from './permissions.routes.ts';
export { summarize } from './summary.ts';
