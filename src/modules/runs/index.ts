// The runs module: the spec's "Commands and agent control" group. Sending a message (an agent run
// streamed as NDJSON), slash commands, stop, clear and reset, over the agent runtime (src/agent).
export type { RunRouteDeps } from './runs.routes.ts';
export { runCommands, type RunCommandDeps } from './runs.commands.ts';
