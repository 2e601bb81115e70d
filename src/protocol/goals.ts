// Goals, their pause gate, goal-runs, tasks and wakeups on the wire: shared by the server, the
// `svc goal|task|wakeup` CLI and the web UI. Zod only.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const GOAL_STATUSES = ['active', 'paused', 'complete', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];

/**
 * The pause gate (docs/goals.md): `open` nobody asked to pause; `audit_scheduled` the agent asked once
 * and one audit turn is due; `audit_running` that turn runs; `audit_done` it ended without a second
 * request or a withdrawal, and the goal waits for a person.
 */
export const GATE_STATES = ['open', 'audit_scheduled', 'audit_running', 'audit_done'] as const;
export type GateState = (typeof GATE_STATES)[number];

export const GOAL_RUN_MODES = ['dry-run', 'assist', 'bounded', 'supervised'] as const;
export type GoalRunMode = (typeof GOAL_RUN_MODES)[number];
/** `running` continues after each turn; `awaiting_approval` (supervised) waits for a person; `stopped` continues no more. */
export const GOAL_RUN_STATUSES = ['running', 'awaiting_approval', 'stopped'] as const;
export type GoalRunStatus = (typeof GOAL_RUN_STATUSES)[number];

export const MAX_OBJECTIVE = 10_000;

export const BudgetSchema = lazySchema(() => z.strictObject({
  maxTurns: z.number().int().min(1).max(10_000).optional(),
  maxMinutes: z.number().int().min(1).max(100_000).optional(),
  maxDispatches: z.number().int().min(0).max(10_000).optional(),
}));
export type Budget = z.infer<typeof BudgetSchema>;

/** What the goal has used: turns the agent ran for it, minutes of those turns, worker dispatches. */
export const UsageSchema = lazySchema(() => z.object({ turns: z.number().int(), minutes: z.number(), dispatches: z.number().int() }));
export type Usage = z.infer<typeof UsageSchema>;

export const CheckResultSchema = lazySchema(() => z.object({
  command: z.string(),
  exitCode: z.number().int().nullable(),
  /** The last 4 KB of its output (stdout and stderr). */
  output: z.string(),
  durationMs: z.number(),
}));
export type CheckResult = z.infer<typeof CheckResultSchema>;

export const EvidenceFileSchema = lazySchema(() => z.object({ path: z.string(), exists: z.boolean() }));

export const CheckpointSchema = lazySchema(() => z.object({
  id: z.number().int(),
  summary: z.string(),
  nextAction: z.string(),
  /** Files named as evidence, each checked under the project root when the checkpoint was made. */
  evidence: z.array(EvidenceFileSchema),
  check: CheckResultSchema.nullable(),
  actor: z.enum(['agent', 'human']),
  createdAt: z.number(),
}));
export type Checkpoint = z.infer<typeof CheckpointSchema>;

export const GateSchema = lazySchema(() => z.object({
  state: z.enum(GATE_STATES),
  /** Why the agent asked to pause (its first request). */
  reason: z.string().nullable(),
  requestedAt: z.number().nullable(),
  /** What the next step is, for people and for the audit turn's prompt. */
  nextAction: z.string().nullable(),
}));
export type Gate = z.infer<typeof GateSchema>;

export const GoalSchema = lazySchema(() => z.object({
  id: z.string(),
  sessionId: z.string(),
  objective: z.string(),
  status: z.enum(GOAL_STATUSES),
  projectRoot: z.string().nullable(),
  budget: BudgetSchema,
  usage: UsageSchema,
  gate: GateSchema,
  mode: z.enum(GOAL_RUN_MODES),
  runStatus: z.enum(GOAL_RUN_STATUSES),
  /** Why the last continuation did not happen, or why the goal ended (a pause, a limit, a cancel). */
  note: z.string().nullable(),
  lastDoneRejection: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  endedAt: z.number().nullable(),
}));
export type Goal = z.infer<typeof GoalSchema>;

export const GoalViewSchema = lazySchema(() => z.object({
  goal: GoalSchema.nullable(),
  /** Newest first, at most 20. */
  checkpoints: z.array(CheckpointSchema),
  pauseGate: GateSchema,
}));
export type GoalView = z.infer<typeof GoalViewSchema>;

export const GoalActionResultSchema = lazySchema(() => GoalViewSchema.extend({
  /** What happened, in a sentence (e.g. that a first pause was only recorded). */
  outcome: z.string(),
}));

export const GoalHistorySchema = lazySchema(() => z.object({ goals: z.array(GoalSchema) }));

export const PreflightGateSchema = lazySchema(() => z.object({ gate: z.string(), passed: z.boolean(), reason: z.string() }));
export const GoalRunViewSchema = lazySchema(() => z.object({
  goalId: z.string().nullable(),
  mode: z.enum(GOAL_RUN_MODES),
  status: z.enum(GOAL_RUN_STATUSES).nullable(),
  budget: BudgetSchema,
  usage: UsageSchema,
  gates: z.array(PreflightGateSchema),
  /** dry-run: the prompt the next turn would get. */
  nextPrompt: z.string().nullable(),
  outcome: z.string().optional(),
}));
export type GoalRunView = z.infer<typeof GoalRunViewSchema>;

export const TASK_STATUSES = ['pending', 'in_progress', 'done', 'cancelled'] as const;
export const TaskSchema = lazySchema(() => z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(TASK_STATUSES),
  /** `main` (the main agent) or a worker's name. */
  owner: z.string(),
  /** Ids of the tasks this one waits for. */
  after: z.array(z.string()),
  goalId: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
}));
export type Task = z.infer<typeof TaskSchema>;

export const WAKEUP_STATES = ['pending', 'fired', 'failed', 'cancelled'] as const;
export const WakeupSchema = lazySchema(() => z.object({
  id: z.number().int(),
  sessionId: z.string(),
  dueAt: z.number(),
  prompt: z.string(),
  reason: z.string(),
  state: z.enum(WAKEUP_STATES),
  error: z.string().nullable(),
}));
export type Wakeup = z.infer<typeof WakeupSchema>;
