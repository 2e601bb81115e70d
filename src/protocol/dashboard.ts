// The manager dashboard's resources (svc dashboard serve), shared by the manager and its web page.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const INSTANCE_STATUSES = ['online', 'offline', 'error'] as const;
/** Who runs an instance: the manager started it (and may stop it), or someone else did. */
export const INSTANCE_OWNERS = ['manager', 'external'] as const;
/** How the manager learned of it: it started it, a port scan found it, a user added it by URL, or a fleet machine runs it. */
export const INSTANCE_ORIGINS = ['started', 'scanned', 'added', 'fleet'] as const;

export const InstanceSchema = lazySchema(() => z.object({
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
  /** The fleet machine it runs on (origin 'fleet'): the manager reaches it through that machine's tunnel. */
  machine: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** The manager's subscription to the instance's event stream. */
  stream: z.enum(['connected', 'connecting', 'idle']),
  checkedAt: z.number().nullable(),
}));
export type Instance = z.infer<typeof InstanceSchema>;

const cachedMessage = lazySchema(() => z.object({ id: z.number().int(), role: z.string(), content: z.string(), createdAt: z.number(), sessionId: z.string() }));

/** What the manager knows of an instance's current work, from its event stream. */
export const LatestSchema = lazySchema(() => z.object({
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
}));
export type Latest = z.infer<typeof LatestSchema>;

export const LifecycleResultSchema = lazySchema(() => z.object({
  ok: z.boolean(),
  action: z.enum(['start', 'stop', 'restart']),
  instance: InstanceSchema,
  message: z.string(),
}));

export const BOARD_LANES = ['backlog', 'ready', 'active', 'review', 'done'] as const;

export const BoardItemSchema = lazySchema(() => z.object({
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
}));
export type BoardItem = z.infer<typeof BoardItemSchema>;

export const RUN_OUTCOMES = ['sending', 'sent', 'answered', 'failed', 'skipped'] as const;

export const ScheduleRunSchema = lazySchema(() => z.object({
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
}));
export type ScheduleRun = z.infer<typeof ScheduleRunSchema>;

export const ScheduleJobSchema = lazySchema(() => z.object({
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
}));
export type ScheduleJob = z.infer<typeof ScheduleJobSchema>;

/** The fields the settings and their patch share (made by each schema that uses them, on its first use). */
const scanFields = () => ({
  from: z.number().int().min(1).max(65_535).describe('First port of the scan for local instances.'),
  count: z.number().int().min(0).max(1000).describe('How many ports the scan covers (0: no scan).'),
  intervalSec: z.number().min(5).max(86_400).describe('How often the background scan runs (a scan is reused that long).'),
});
const tuningFields = () => ({
  healthIntervalSec: z.number().min(1).max(3600).describe('How often each instance\'s runtime and session are read.'),
  bridgeMaxBackoffSec: z.number().min(1).max(3600).describe('The longest wait between reconnects of an instance\'s event stream.'),
});

/**
 * The manager's settings (GET/PUT /api/dashboard/settings), kept in its database and applied live.
 * Intervals are in seconds (fractions allowed). The bounds are what a user may set; the values a run
 * uses may come from its start-up options instead.
 */
export const DashboardSettingsSchema = lazySchema(() => z
  .strictObject({ scan: z.strictObject(scanFields()), ...tuningFields() })
  .refine((s) => s.scan.from + s.scan.count - 1 <= 65_535, { message: 'the scan range ends past port 65535: lower from or count', path: ['scan', 'count'] }));
export type DashboardSettings = z.infer<typeof DashboardSettingsSchema>;

/** A change: only the fields given are set. */
export const DashboardSettingsPatchSchema = lazySchema(() => z.strictObject({
  scan: z.strictObject(scanFields()).partial().optional(),
  healthIntervalSec: tuningFields().healthIntervalSec.optional(),
  bridgeMaxBackoffSec: tuningFields().bridgeMaxBackoffSec.optional(),
}));
export type DashboardSettingsPatch = z.infer<typeof DashboardSettingsPatchSchema>;

/** What the manager runs with, and which fields its start-up options (`--from`, `--count`) set for this run. */
export const DashboardSettingsViewSchema = lazySchema(() => z.object({
  settings: z.object({
    scan: z.object({ from: z.number().int(), count: z.number().int(), intervalSec: z.number() }),
    healthIntervalSec: z.number(),
    bridgeMaxBackoffSec: z.number(),
  }),
  overridden: z.array(z.string()).describe('Dotted fields set by this run\'s start-up options; a change to one replaces it for the rest of the run.'),
}));
export type DashboardSettingsView = z.infer<typeof DashboardSettingsViewSchema>;

export const DASHBOARD_SETTINGS_DEFAULTS: DashboardSettings = {
  scan: { from: 3457, count: 50, intervalSec: 60 },
  healthIntervalSec: 10,
  bridgeMaxBackoffSec: 30,
};

/** A note an instance's agent left through its connector (the only way notes are made). */
export const NoteSchema = lazySchema(() => z.object({
  id: z.number().int(),
  instanceId: z.string(),
  /** Always the agent of that instance: notes come only through a connector credential. */
  author: z.literal('agent'),
  title: z.string(),
  body: z.string(),
  /** The board item the note is about, if any. */
  boardItemId: z.string().nullable(),
  createdAt: z.number(),
}));
export type Note = z.infer<typeof NoteSchema>;
