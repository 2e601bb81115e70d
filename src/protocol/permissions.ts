// Tool permissions answered by a person: a request a CLI made (held until answered), the decision,
// and the rules a decision can leave behind ("remember"). Shared by the server, the event catalogue
// and the web UI (types only there).
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const PERMISSION_DECISIONS = ['allow', 'deny'] as const;
export type PermissionDecision = (typeof PERMISSION_DECISIONS)[number];
export const REMEMBER_SCOPES = ['session', 'always'] as const;
export type RememberScope = (typeof REMEMBER_SCOPES)[number];
/** Who decided: a person (where: the UI or API, a chat app, a notification), a rule, or svc itself. */
export const DECIDERS = ['person', 'telegram', 'discord', 'push', 'rule', 'timeout', 'run-ended', 'restart'] as const;
export type Decider = (typeof DECIDERS)[number];

/** What a person reads before deciding: a command, a file and its change, or the tool's input. */
export const PermissionSummarySchema = lazySchema(() => z.object({
  /** One line: "Run `npm test`", "Write notes.md", "Use mcp__files__read". */
  title: z.string(),
  /** The shell command, when the tool runs one. */
  command: z.string().optional(),
  /** The file the tool writes or edits (as the CLI gave it). */
  path: z.string().optional(),
  /** The change, as a unified diff (an edit) or the new content (a write), bounded. */
  diff: z.string().optional(),
  /** The input as JSON, bounded, when nothing above says it. */
  detail: z.string().optional(),
}));
export type PermissionSummary = z.infer<typeof PermissionSummarySchema>;

export const PermissionRequestSchema = lazySchema(() => z.object({
  id: z.string(),
  sessionId: z.string(),
  /** The run (its trace id) the request came from. */
  runId: z.string(),
  provider: z.string(),
  tool: z.string(),
  /** The tool's input as the CLI gave it (bounded: long strings are cut). */
  input: z.record(z.string(), z.unknown()),
  summary: PermissionSummarySchema,
  createdAt: z.number(),
  /** When it is denied by itself (agent.approvalTimeoutSec after it was made). */
  expiresAt: z.number(),
  status: z.enum(['pending', 'allowed', 'denied']),
  decidedAt: z.number().optional(),
  decidedBy: z.enum(DECIDERS).optional(),
  /** A deny's reason (what the agent reads), or why svc decided. */
  reason: z.string().optional(),
}));
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>;

export const PermissionRuleSchema = lazySchema(() => z.object({
  id: z.string(),
  /** The tool's name as the CLI calls it (Bash, Write, mcp__files__read). */
  tool: z.string(),
  /** What of its input the rule covers: the exact command or path, or '*' for any input. */
  pattern: z.string(),
  /** How the calls it covers are answered. */
  decision: z.enum(PERMISSION_DECISIONS),
  /** `session`: this chat session only; `always`: every session. */
  scope: z.enum(REMEMBER_SCOPES),
  sessionId: z.string().optional(),
  createdAt: z.number(),
  /** How it reads, e.g. `Bash(npm test)`. */
  label: z.string(),
}));
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;

export const DecisionBodySchema = lazySchema(() => z.strictObject({
  decision: z.enum(PERMISSION_DECISIONS),
  /** Answer the same call the same way from now on, in this session or always. */
  remember: z.enum(REMEMBER_SCOPES).optional(),
  /** For a deny: why (the agent reads it). */
  reason: z.string().trim().max(2000).optional(),
}));
export type DecisionBody = z.infer<typeof DecisionBodySchema>;
