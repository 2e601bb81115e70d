// The orchestration's wire shapes: phases, the state of one session's orchestration with the records
// its gates read, employees (worker definitions), worker runs and dispatch requests. Shared by the
// server, the `svc` CLI and the web UI.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

/** IDLE, then I (interview), P (plan), A (plan audit), B (build), C (check), D (done). */
export const PHASES = ['IDLE', 'I', 'P', 'A', 'B', 'C', 'D'] as const;
export type Phase = (typeof PHASES)[number];
export const PhaseSchema = lazySchema(() => z.enum(PHASES));

/** What a forward move needs: the record that satisfies it (or a human's approval). */
export const GATES = ['plan', 'audit', 'verification', 'check'] as const;
export type Gate = (typeof GATES)[number];

/** `active` while a phase runs, `waiting` when the next forward move needs a record or an approval, `complete` in D. */
export const ORC_STATUSES = ['idle', 'active', 'waiting', 'complete'] as const;
export type OrcStatus = (typeof ORC_STATUSES)[number];

export const ACTORS = ['human', 'agent', 'server'] as const;
export type Actor = (typeof ACTORS)[number];

export const PlanRecordSchema = lazySchema(() => z.object({
  version: z.number().int().positive(),
  /** sha256 of the content, hex. */
  hash: z.string(),
  content: z.string(),
  submittedAt: z.number(),
  by: z.enum(ACTORS),
}));
export type PlanRecord = z.infer<typeof PlanRecordSchema>;

export const FindingSchema = lazySchema(() => z.union([
  z.string().min(1).max(4000),
  z.object({ severity: z.string().max(40).optional(), message: z.string().min(1).max(4000), file: z.string().max(1000).optional() }),
]));

/** The structured output an audit worker must end with. Anything else is a failed audit. */
export const AuditOutputSchema = lazySchema(() => z.strictObject({ verdict: z.enum(['pass', 'fail']), findings: z.array(FindingSchema).max(200) }));
/** The structured output a verification worker must end with. */
export const VerificationOutputSchema = lazySchema(() => z.strictObject({ verdict: z.enum(['done', 'not_done']), findings: z.array(FindingSchema).max(200) }));

export const AuditRecordSchema = lazySchema(() => z.object({
  verdict: z.enum(['pass', 'fail']),
  findings: z.array(FindingSchema),
  /** The worker run it came from. */
  runId: z.string(),
  /** The plan version it audited: a newer plan needs a new audit. */
  planVersion: z.number().int(),
  /** Why a run's output did not count as a pass (schema error, run failure). */
  error: z.string().optional(),
  recordedAt: z.number(),
}));
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

export const VerificationRecordSchema = lazySchema(() => z.object({
  verdict: z.enum(['done', 'not_done']),
  findings: z.array(FindingSchema),
  runId: z.string(),
  /** The build round it verified (each entry into B starts a round). */
  round: z.number().int(),
  error: z.string().optional(),
  recordedAt: z.number(),
}));
export type VerificationRecord = z.infer<typeof VerificationRecordSchema>;

export const CheckRecordSchema = lazySchema(() => z.object({
  command: z.string(),
  /** null: it could not be started or was killed at its time limit. */
  exitCode: z.number().int().nullable(),
  /** The last lines of its stdout and stderr together. */
  outputTail: z.string(),
  durationMs: z.number(),
  round: z.number().int(),
  ranAt: z.number(),
}));
export type CheckRecord = z.infer<typeof CheckRecordSchema>;

export const HistoryEntrySchema = lazySchema(() => z.object({
  at: z.number(),
  from: PhaseSchema,
  to: PhaseSchema,
  actor: z.enum(ACTORS),
  /** The gates a human approved on this move instead of their records. */
  approved: z.array(z.enum(GATES)).optional(),
  reason: z.string().optional(),
  /** The main-agent run that made the move, when the agent made it. */
  runId: z.string().optional(),
}));
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

export const OrcStateSchema = lazySchema(() => z.object({
  sessionId: z.string(),
  phase: PhaseSchema,
  status: z.enum(ORC_STATUSES),
  /** The gate the next forward move waits on, when there is one and it is not satisfied. */
  waitingOn: z.enum(GATES).optional(),
  /** Build rounds so far (each entry into B is one). */
  round: z.number().int(),
  plan: PlanRecordSchema.nullable(),
  audit: AuditRecordSchema.nullable(),
  verification: VerificationRecordSchema.nullable(),
  check: CheckRecordSchema.nullable(),
  /** Newest last, the last 100 moves. */
  history: z.array(HistoryEntrySchema),
  updatedAt: z.number(),
}));
export type OrcState = z.infer<typeof OrcStateSchema>;

export const PutStateBodySchema = lazySchema(() => z.strictObject({
  phase: PhaseSchema,
  /** A human approves the move's gate instead of its record (refused to the agent). */
  approve: z.boolean().optional(),
  reason: z.string().max(2000).optional(),
  sessionId: z.string().min(1).max(100).optional(),
}));

export const PlanBodySchema = lazySchema(() => z.strictObject({
  content: z.string().trim().min(1, 'the plan is empty').max(200_000),
  sessionId: z.string().min(1).max(100).optional(),
}));

// ── employees ──────────────────────────────────────────────────────────────────────────────

export const CAPABILITIES = ['read-only', 'mutable'] as const;
/** none: the worker writes in the working directory; worktree: in a git worktree of its own under svc's home, on branch svc/<runId>. */
export const ISOLATIONS = ['none', 'worktree'] as const;
export type Isolation = (typeof ISOLATIONS)[number];
export const EMPLOYEE_ID = /^[a-z0-9][a-z0-9-]{0,47}$/;

export const EmployeeFieldsSchema = lazySchema(() => z.strictObject({
  name: z.string().trim().min(1).max(100),
  role: z.string().trim().min(1).max(200),
  /** A provider id (claude, codex, gemini, opencode, copilot, custom); '' = the agent's provider. */
  provider: z.string().max(40),
  model: z.string().max(200),
  instructions: z.string().max(50_000),
  capability: z.enum(CAPABILITIES),
  /** For a mutable worker: the paths (relative to the working directory) it may change. */
  scope: z.array(z.string().min(1).max(1000)).max(50).optional(),
  /** The structured verdict its runs end with, which the server records for the gate (audit: A → B, verification: B → C). */
  verdict: z.enum(['audit', 'verification']).optional(),
  /** Where a mutable worker writes: its own git worktree, or the working directory itself (see ISOLATIONS). */
  isolation: z.enum(ISOLATIONS).optional(),
}));
export const EmployeeSchema = lazySchema(() => EmployeeFieldsSchema.extend({
  id: z.string().regex(EMPLOYEE_ID),
  /** A built-in preset (it can be changed, and deleting it restores the preset). */
  preset: z.boolean(),
}));
export type Employee = z.infer<typeof EmployeeSchema>;
export const NewEmployeeSchema = lazySchema(() => EmployeeFieldsSchema.extend({ id: z.string().regex(EMPLOYEE_ID, 'lowercase letters, digits and dashes, up to 48') }));
export const EmployeePatchSchema = lazySchema(() => EmployeeFieldsSchema.partial());

// ── worker runs ────────────────────────────────────────────────────────────────────────────

export const WORKER_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timeout', 'orphaned'] as const;
export type WorkerRunStatus = (typeof WORKER_RUN_STATUSES)[number];
export const TERMINAL_STATUSES: readonly WorkerRunStatus[] = ['succeeded', 'failed', 'cancelled', 'timeout', 'orphaned'];

export const WorkerStepSchema = lazySchema(() => z.object({ stepId: z.string(), name: z.string(), status: z.enum(['running', 'ok', 'error']) }));

export const MERGE_STATES = ['open', 'merged', 'discarded'] as const;
export type MergeState = (typeof MERGE_STATES)[number];
/** The worktree a run wrote in (a follow-up run shares its first run's). */
export const RunWorktreeSchema = lazySchema(() => z.object({
  branch: z.string(),
  /** The commit it started from (the user's HEAD then). */
  base: z.string(),
  state: z.enum(MERGE_STATES),
  /** The commit on the user's branch that landed it. */
  mergedCommit: z.string().optional(),
  /** The user had uncommitted changes when it was made: they are not in the worktree. */
  uncommittedLeftOut: z.boolean(),
}));

export const WorkerRunSchema = lazySchema(() => z.object({
  runId: z.string(),
  sessionId: z.string(),
  employeeId: z.string(),
  employee: EmployeeSchema,
  task: z.string(),
  phase: PhaseSchema.optional(),
  batchId: z.string().optional(),
  affectedFiles: z.array(z.string()).optional(),
  status: z.enum(WORKER_RUN_STATUSES),
  /** Why it ended as it did (every terminal status has one). */
  reason: z.string().optional(),
  /** Its structured verdict, when its output had one. */
  verdict: z.string().optional(),
  /** Files a scoped mutable worker changed outside its scope. */
  scopeViolations: z.array(z.string()).optional(),
  isolation: z.enum(ISOLATIONS),
  worktree: RunWorktreeSchema.optional(),
  /** The run whose review asked for this one (changes requested). */
  reviewOf: z.string().optional(),
  steps: z.array(WorkerStepSchema),
  outputChars: z.number().int(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
  lastActivityAt: z.number().optional(),
  deliveredAt: z.number().optional(),
}));
export type WorkerRun = z.infer<typeof WorkerRunSchema>;

const taskField = lazySchema(() => z.string().trim().min(1, 'the task is empty').max(100_000));
const virtualWorker = lazySchema(() => EmployeeFieldsSchema.extend({ name: z.string().trim().min(1).max(100).default('virtual worker') }));

const DispatchFieldsSchema = lazySchema(() => z.strictObject({
    employee: z.string().regex(EMPLOYEE_ID, 'an employee id (GET /api/employees)').optional(),
    virtual: virtualWorker.optional(),
    task: taskField,
    phase: PhaseSchema.optional(),
    wait: z.boolean().optional(),
    affectedFiles: z.array(z.string().min(1).max(1000)).max(200).optional(),
    /** The verdict to read from its answer, when not the employee's own. */
    verdict: z.enum(['audit', 'verification']).optional(),
    /** Overrides the employee's; by default a mutable worker of phase B in a git repository gets a worktree. */
    isolation: z.enum(ISOLATIONS).optional(),
    sessionId: z.string().min(1).max(100).optional(),
}));
const oneWorker = { message: 'give exactly one of employee or virtual', path: ['employee'] };
export const DispatchBodySchema = lazySchema(() => DispatchFieldsSchema.refine((b) => Boolean(b.employee) !== Boolean(b.virtual), oneWorker));
export type DispatchBody = z.infer<typeof DispatchBodySchema>;

const batchEntry = lazySchema(() => DispatchFieldsSchema.omit({ wait: true, sessionId: true }).refine((b) => Boolean(b.employee) !== Boolean(b.virtual), oneWorker));
export const BatchBodySchema = lazySchema(() => z.strictObject({
  runs: z.array(batchEntry).min(1, 'a batch has 1 to 10 runs').max(10, 'a batch has 1 to 10 runs'),
  sessionId: z.string().min(1).max(100).optional(),
}));
export type BatchEntry = z.infer<typeof batchEntry>;

export const BATCH_VERDICTS = ['pass', 'fail', 'void', 'none'] as const;
export const BatchSchema = lazySchema(() => z.object({
  batchId: z.string(),
  sessionId: z.string(),
  status: z.enum(['running', 'done']),
  /** Any fail → fail; else any run that did not succeed → void (no pass); else all pass/done → pass; else none. */
  verdict: z.enum(BATCH_VERDICTS),
  runs: z.array(WorkerRunSchema),
}));
export type Batch = z.infer<typeof BatchSchema>;

export const WorkerProgressItemSchema = lazySchema(() => z.object({
  runId: z.string(),
  status: z.enum(WORKER_RUN_STATUSES),
  taskPreview: z.string(),
  steps: z.array(WorkerStepSchema),
  lastActivityAt: z.number().optional(),
  reason: z.string().optional(),
}));
export const WorkerProgressSchema = lazySchema(() => z.object({
  employeeId: z.string(),
  name: z.string(),
  current: WorkerProgressItemSchema.nullable(),
  previous: WorkerProgressItemSchema.nullable(),
}));

// ── worktrees: a worker's changes reviewed before they land ───────────────────────────────

export const WorktreeDiffFileSchema = lazySchema(() => z.object({
  path: z.string(),
  /** A rename's old path. */
  oldPath: z.string().optional(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  additions: z.number().int(),
  deletions: z.number().int(),
  /** Named, not inlined, in the patch. */
  binary: z.boolean(),
}));
export type WorktreeDiffFile = z.infer<typeof WorktreeDiffFileSchema>;

export const WorktreeDiffSchema = lazySchema(() => z.object({
  runId: z.string(),
  branch: z.string(),
  base: z.string(),
  state: z.enum(MERGE_STATES),
  files: z.array(WorktreeDiffFileSchema),
  patch: z.string(),
  truncated: z.boolean(),
  note: z.string().optional(),
}));

export const MergeResultSchema = lazySchema(() => z.object({ runId: z.string(), merged: z.literal(true), commit: z.string(), branch: z.string(), files: z.array(WorktreeDiffFileSchema) }));

export const ReviewCommentSchema = lazySchema(() => z.strictObject({
  path: z.string().min(1).max(1000),
  line: z.number().int().min(1).optional(),
  body: z.string().trim().min(1, 'a comment says something').max(4000),
}));
export type ReviewComment = z.infer<typeof ReviewCommentSchema>;
export const ReviewBodySchema = lazySchema(() => z.strictObject({
  decision: z.enum(['approve', 'changes_requested']),
  comments: z.array(ReviewCommentSchema).max(100).default([]),
}));

export const WorktreeListItemSchema = lazySchema(() => z.object({
  runId: z.string(),
  sessionId: z.string(),
  branch: z.string(),
  path: z.string(),
  state: z.enum(MERGE_STATES),
  /** Its last run did not end on its own (the server stopped mid-run), or its directory is gone: discard it, or review what is there. */
  orphaned: z.boolean(),
  createdAt: z.number(),
}));
export type WorktreeListItem = z.infer<typeof WorktreeListItemSchema>;
