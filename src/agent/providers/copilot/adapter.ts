// GitHub Copilot CLI over the Agent Client Protocol (`copilot --acp`), checked against @github/copilot
// 1.0.102 (test/fixtures/protocols/copilot-acp-*). The conversation, its permission requests and its
// updates are the shared ACP client's (../acp/); this file says how copilot is started and set up.
//
// Copilot asks `session/request_permission` {toolCall {toolCallId, title, kind, rawInput, locations},
// options} before each tool it is not told to allow. A rejected call ends copilot's turn ("Info:
// Operation cancelled by user", the model is not called again: copilot-acp-write-deny.jsonl).
//
// Invocation choices (verified with 1.0.102 against a fake model API):
// - `--allow-all-tools` is accepted with `--acp` and stops tool permission requests; requests that
//   remain (paths outside the work dir) are answered with "allow once" when auto-approving.
// - `--model <m>` and `--reasoning-effort <e>` are accepted with `--acp` (both reached the model API).
// - MCP servers: `--additional-mcp-config @file`, so session/new gets none.
// - System prompt: a `*.instructions.md` file under `<scratchDir>/copilot-instructions/instructions/`,
//   with COPILOT_CUSTOM_INSTRUCTIONS_DIRS naming that directory. Copilot adds it to its system prompt
//   next to the user's own instructions; no user or project file is touched. Caveat: a user who sets
//   COPILOT_CUSTOM_INSTRUCTIONS_DIRS for the service has it replaced on runs with a system prompt.
// - Copilot reports model-API trouble as "Info: "/"Warning: "/"Error: " message chunks (`notices`).
//
// Steer is live (copilot-acp-cancel.jsonl): `session/cancel`, then a new prompt in the same process.

import { join } from 'node:path';
import { copilotMcpServers } from '../mcp-config.ts';
import type { Invocation, InvocationRequest, ProviderAdapter } from '../types.ts';
import {
  acpAnswerPermission,
  acpFinish,
  acpParseLine,
  acpStart,
  acpSteer,
  autoApproves,
  initialAcpState,
  type AcpState,
} from '../acp/conversation.ts';

export type CopilotState = AcpState;

const MCP_CONFIG_FILE = 'mcp-config.json';

/** The directory named by COPILOT_CUSTOM_INSTRUCTIONS_DIRS, inside the runner-owned scratch dir. */
export const INSTRUCTIONS_DIR = 'copilot-instructions';
export const SYSTEM_PROMPT_FILE = join('instructions', 'svc-system-prompt.instructions.md');

/** Copilot CLI's tools that run commands, write files or start sub-agents. */
export const COPILOT_BUILTIN_WRITERS = ['bash', 'read_bash', 'write_bash', 'stop_bash', 'list_bash', 'create', 'edit', 'write_agent', 'task'];

function buildInvocation(req: InvocationRequest): Invocation {
  const args = ['--acp'];
  // Read-only: no tool is pre-allowed and every permission request copilot sends is declined.
  if (autoApproves(req)) args.push('--allow-all-tools');
  if (req.model) args.push('--model', req.model);
  if (req.effort) args.push('--reasoning-effort', req.effort);
  const files: NonNullable<Invocation['files']> = [];
  // `--additional-mcp-config @file` augments ~/.copilot/mcp-config.json for this session only.
  if (req.mcpServers?.length) {
    const path = join(req.scratchDir, MCP_CONFIG_FILE);
    files.push({ path, content: JSON.stringify({ mcpServers: copilotMcpServers(req.mcpServers) }), mode: 0o600 });
    args.push('--additional-mcp-config', `@${path}`);
  }
  // MCP only: its shell, file-writing and sub-agent tools are not offered at all (checked with copilot's --help and a fake model)
  if (req.mcpOnly) args.push(`--excluded-tools=${COPILOT_BUILTIN_WRITERS.join(',')}`);
  args.push(...(req.extraArgs ?? []));
  // COPILOT_ALLOW_ALL in the service's environment would allow every tool as --allow-all-tools does
  const env: Invocation['env'] = autoApproves(req) ? {} : { COPILOT_ALLOW_ALL: undefined };
  const invocation: Invocation = { command: req.executable, args, env, stdin: 'interactive', ...(files.length ? { files } : {}) };
  if (req.systemPrompt) {
    const dir = join(req.scratchDir, INSTRUCTIONS_DIR);
    invocation.files = [...files, { path: join(dir, SYSTEM_PROMPT_FILE), content: req.systemPrompt, mode: 0o600 }];
    invocation.env.COPILOT_CUSTOM_INSTRUCTIONS_DIRS = dir;
  }
  return invocation;
}

export const copilotAdapter: ProviderAdapter<CopilotState> = {
  id: 'copilot',
  displayName: 'GitHub Copilot',
  steerMode: 'live',
  buildInvocation,
  initialState: (req) => initialAcpState(req, { cli: 'copilot', prompt: req.prompt, notices: true }),
  start: acpStart,
  parseLine: acpParseLine,
  steer: acpSteer,
  answerPermission: acpAnswerPermission,
  finish: acpFinish,
};
