// The manager dashboard's resources (svc dashboard serve), shared by the manager and its web page.
import { z } from 'zod';

export const INSTANCE_STATUSES = ['online', 'offline', 'error'] as const;
/** Who runs an instance: the manager started it (and may stop it), or someone else did. */
export const INSTANCE_OWNERS = ['manager', 'external'] as const;
/** How the manager learned of it: it started it, a port scan found it, or a user added it by URL. */
export const INSTANCE_ORIGINS = ['started', 'scanned', 'added'] as const;

export const InstanceSchema = z.object({
  id: z.string().describe('Stable id: kept across restarts and port changes.'),
  url: z.string(),
  label: z.string(),
  status: z.enum(INSTANCE_STATUSES),
  /** Why it is offline or in error, when it is. */
  reason: z.string().optional(),
  version: z.string().nullable(),
  uptimeMs: z.number().nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  workingDir: z.string().nullable(),
  busy: z.boolean(),
  pending: z.number().int(),
  lastActivityAt: z.number().nullable(),
  owner: z.enum(INSTANCE_OWNERS),
  origin: z.enum(INSTANCE_ORIGINS),
  /** The instance's data directory, when known. */
  home: z.string().nullable(),
  /** The process id of an instance the manager started. */
  pid: z.number().int().nullable(),
  /** The manager's subscription to the instance's event stream. */
  stream: z.enum(['connected', 'connecting', 'idle']),
  checkedAt: z.number().nullable(),
});
export type Instance = z.infer<typeof InstanceSchema>;

const cachedMessage = z.object({ id: z.number().int(), role: z.string(), content: z.string(), createdAt: z.number(), sessionId: z.string() });

/** What the manager knows of an instance's current work, from its event stream. */
export const LatestSchema = z.object({
  instanceId: z.string(),
  lastUser: cachedMessage.nullable(),
  lastAssistant: cachedMessage.nullable(),
  run: z.object({ traceId: z.string().nullable(), status: z.string(), provider: z.string().nullable(), output: z.string() }).nullable(),
  queue: z.object({ pending: z.number().int(), active: z.boolean() }),
  orchestration: z.record(z.string(), z.unknown()).nullable(),
  /** The last event of each worker_* / orchestrate_* name, as it came. */
  workers: z.record(z.string(), z.record(z.string(), z.unknown())),
  /** The last event id read from the instance's stream (its replay cursor). */
  cursor: z.string().nullable(),
  lastEventAt: z.number().nullable(),
});
export type Latest = z.infer<typeof LatestSchema>;

export const LifecycleResultSchema = z.object({
  ok: z.boolean(),
  action: z.enum(['start', 'stop', 'restart']),
  instance: InstanceSchema,
  message: z.string(),
});

export const BOARD_LANES = ['backlog', 'ready', 'active', 'review', 'done'] as const;

export const BoardItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  detail: z.string(),
  lane: z.enum(BOARD_LANES),
  position: z.number(),
  instanceId: z.string().nullable(),
  sessionId: z.string().nullable(),
  messageId: z.number().int().nullable(),
  /** Who made it: a user, from a message, or an agent through a connector. */
  source: z.enum(['user', 'message', 'connector']),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type BoardItem = z.infer<typeof BoardItemSchema>;

export const RUN_OUTCOMES = ['sending', 'sent', 'answered', 'failed', 'skipped'] as const;

export const ScheduleRunSchema = z.object({
  id: z.number().int(),
  jobId: z.string(),
  /** The time the run was due (its slot): at most one run per slot. */
  slot: z.number(),
  status: z.enum(RUN_OUTCOMES),
  reason: z.string().nullable(),
  messageId: z.number().int().nullable(),
  traceId: z.string().nullable(),
  startedAt: z.number(),
  finishedAt: z.number().nullable(),
});
export type ScheduleRun = z.infer<typeof ScheduleRunSchema>;

export const ScheduleJobSchema = z.object({
  id: z.string(),
  title: z.string(),
  instanceId: z.string(),
  prompt: z.string(),
  cron: z.string().nullable(),
  runAt: z.number().nullable(),
  /** When the target is busy: skip the slot (recorded), or send anyway (the instance queues it). */
  whenBusy: z.enum(['skip', 'queue']),
  enabled: z.boolean(),
  nextRunAt: z.number().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ScheduleJob = z.infer<typeof ScheduleJobSchema>;
