// The runs module: the spec's "Commands and agent control" group. Sending a message (an agent run
// streamed as NDJSON), slash commands, stop, clear and reset, over the agent runtime (src/agent).
export type { RunRouteDeps } from './runs.routes.ts';
export { runCommands, type RunCommandDeps } from './runs.commands.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadRunRoutes = () => import('./runs.routes.ts').then((m) => m.runRoutes);
