// The single definition of every event the service publishes: its topic, its payload schema and
// whether it may leave the process. SSE, the WebSocket fallback, NDJSON streams (stream-lines.ts)
// and traces all derive from this table; nothing else declares an event. The web UI imports the
// types from here.
import { z } from 'zod';
import { ChatSessionSchema, MESSAGE_ROLES } from './chat.ts';
import { MemoryStatusEventSchema } from './memory.ts';
import { GATES, ORC_STATUSES, PHASES, WORKER_RUN_STATUSES } from './orchestration.ts';
import { GoalSchema, TaskSchema } from './goals.ts';
import { McpServerSchema } from './mcp.ts';
import { DECIDERS, PERMISSION_DECISIONS, PermissionRequestSchema } from './permissions.ts';
import { lazySchema } from './lazy-schema.ts';
import { FLEET_MACHINE_CHANGES, NATS_STATES, WORK_STATES } from './fleet.ts';

export type Visibility = 'public' | 'internal';
export type Topic = 'chat' | 'session' | 'agent' | 'queue' | 'orchestrate' | 'goal' | 'task' | 'memory' | 'schedule' | 'system' | 'dashboard' | 'permission';

interface EventDef<S extends z.ZodType, V extends Visibility = Visibility> {
  topic: Topic;
  visibility: V;
  payload: S;
}
/**
 * An event's payload schema is built when it is first used (an event published, the OpenAPI document made):
 * building the catalogue's fifty schemas at start was the largest part of the server's module evaluation.
 */
const define = <S extends z.ZodType, V extends Visibility>(topic: Topic, visibility: V, payload: () => S): EventDef<S, V> => {
  let schema: S | undefined;
  return {
    topic,
    visibility,
    get payload() {
      return (schema ??= payload());
    },
  };
};

// The fields many payloads share, made by each payload as it is built (on first use): a payload parsed at
// every publish holds the schemas themselves, not lazySchema() proxies it would reach through on each parse.
const traceId = () => z.string().min(1);
const reason = () => z.string();
/** Payloads the spec leaves open: any JSON object (but never a reserved key, see RESERVED_KEYS). */
const open = () => z.record(z.string(), z.unknown());

export const AGENT_STATUSES = ['running', 'done', 'error', 'evaluating'] as const;
export const RUN_STATUSES = ['ok', 'error', 'stopped'] as const;
export const STEP_KINDS = ['tool', 'thinking', 'search', 'command', 'subagent', 'file'] as const;
/** What kind of step an `agent_tool` event describes (spec §6: tool, thinking, search, command, subagent). */
export type StepKind = (typeof STEP_KINDS)[number];

const usage = () =>
  z.object({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    cachedTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
    costUsd: z.number().optional(),
  });

/** One step of a run as the bounded tool log of `agent_done` and GET /api/runtime keep it. */
export const ToolLogEntrySchema = lazySchema(() => z.object({
  stepId: z.string(),
  name: z.string(),
  step: z.enum(STEP_KINDS),
  status: z.enum(['running', 'ok', 'error']),
  input: open().optional(),
  output: z.string().optional(),
}));
export type ToolLogEntry = z.infer<typeof ToolLogEntrySchema>;

export const catalogue = {
  // ── chat and sessions ────────────────────────────────────────────────────────────────
  message: define('chat', 'public', () => z.object({
    id: z.number().int(),
    role: z.enum(MESSAGE_ROLES),
    content: z.string(),
    sessionId: z.string(),
    createdAt: z.number(),
    /** Set when a queued message moved behind the answers saved while it waited: its old id. */
    replaces: z.number().int().optional(),
  })),
  new_message: define('chat', 'public', () => z.object({
    role: z.literal('user'),
    content: z.string(),
    sessionId: z.string(),
    queued: z.boolean(),
    requestId: z.string().optional(),
  })),
  session_switched: define('session', 'public', () => z.object({ sessionId: z.string() })),
  session_created: define('session', 'public', () => z.object({ sessionId: z.string(), title: z.string() })),
  /** A chat session's messages were deleted (`/clear`): clients drop what they show of it. */
  chat_cleared: define('chat', 'public', () => z.object({ sessionId: z.string() })),
  /** The provider sessions of a chat session were forgotten: the next message starts fresh. */
  session_reset: define('session', 'public', () => z.object({ sessionId: z.string() })),
  /** A chat session and its messages were deleted: clients drop it (and leave it if they show it). */
  session_deleted: define('session', 'public', () => z.object({ sessionId: z.string() })),
  session_list: define('session', 'public', () => z.object({ sessions: z.array(ChatSessionSchema) })),
  // ── agent runs ───────────────────────────────────────────────────────────────────────
  agent_status: define('agent', 'public', () => z.object({
    status: z.enum(AGENT_STATUSES),
    traceId: traceId().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
  })),
  agent_tool: define('agent', 'public', () => z.object({
    traceId: traceId(),
    stepId: z.string(),
    name: z.string(),
    step: z.enum(STEP_KINDS),
    status: z.enum(['running', 'ok', 'error']),
    input: open(),
    output: z.string().optional(),
    /** Set when the step is a worker run's (traceId is then that run's id), not the main agent's. */
    workerRunId: z.string().optional(),
  })),
  // offset: where `content` starts in the run's whole output (UTF-16 units), so a client that loaded
  // the output so far (GET /api/runtime) can drop what it already has.
  agent_output: define('agent', 'public', () => z.object({ traceId: traceId(), content: z.string(), offset: z.number().int().nonnegative() })),
  agent_done: define('agent', 'public', () => z.object({
    traceId: traceId(),
    /** The request (POST /api/message answers it in X-Request-Id) this run answered. */
    requestId: z.string().optional(),
    status: z.enum(RUN_STATUSES),
    text: z.string(),
    /** When the run failed: what happened and what to do, for people. */
    error: z.string().optional(),
    /** Why the run did not end `ok`: the error, or what stopped it. */
    reason: z.string().optional(),
    /** The failure class when it failed (`auth`, `cli_missing`, `rate_limit`, …), for programs. */
    failure: z.string().optional(),
    /** The one command that fixes the failure, run in a terminal. */
    fix: z.string().optional(),
    provider: z.string().optional(),
    messageId: z.number().int().optional(),
    toolLog: z.array(ToolLogEntrySchema),
    usage: usage().optional(),
    durationMs: z.number().optional(),
  })),
  agent_retry: define('agent', 'public', () => z.object({
    traceId: traceId(), provider: z.string(), attempt: z.number().int(), delayMs: z.number(), reason: reason(),
    /** The failure class that is being retried; absent when the CLI retries on its own. */
    failure: z.string().optional(),
  })),
  agent_fallback: define('agent', 'public', () => z.object({ traceId: traceId(), from: z.string(), to: z.string(), reason: reason() })),
  steer_started: define('agent', 'public', () => z.object({ prompt: z.string(), traceId: traceId().optional() })),
  // pending: waiting in the chat session the chat shows (the active one): another session's wakeup or
  // worker result waiting behind the same run is not queued there; total: in all sessions; sessions: per
  // session (svc always sends both; an older server sent neither, and its pending was the total).
  queue_update: define('queue', 'public', () => z.object({ pending: z.number().int(), total: z.number().int().optional(), sessions: z.record(z.string(), z.number().int()).optional(), active: z.boolean() })),
  // ── orchestration, goals, memory, schedules, workers (payloads the spec leaves open are `open`) ──
  orc_state: define('orchestrate', 'public', () => z.object({
    sessionId: z.string(),
    phase: z.enum(PHASES),
    status: z.enum(ORC_STATUSES),
    waitingOn: z.enum(GATES).optional(),
    round: z.number().int(),
    planVersion: z.number().int().nullable(),
  })),
  // Open payloads (the spec leaves them open). svc publishes orchestrate_done with kind 'cycle' (a
  // session reached D) or 'worker_result' (a worker run's result was delivered to its session; `noted`:
  // as a note that starts no run, its own CLI could not run), and orchestrate_warning with {message, sessionId?, runId?}.
  orchestrate_done: define('orchestrate', 'public', open),
  orchestrate_warning: define('orchestrate', 'public', open),
  worker_stalled: define('orchestrate', 'public', () => z.looseObject({ runId: z.string(), sessionId: z.string(), reason: reason() })),
  worker_disconnected: define('orchestrate', 'public', () => z.looseObject({ runId: z.string(), sessionId: z.string(), reason: reason() })),
  worker_timeout: define('orchestrate', 'public', () => z.looseObject({ runId: z.string(), sessionId: z.string(), reason: reason() })),
  // a worker run's changes (queued, started, ended): what the workers panel and worker-progress follow
  worker_run: define('orchestrate', 'public', () => z.looseObject({ runId: z.string(), sessionId: z.string(), status: z.enum(WORKER_RUN_STATUSES) })),
  // Goal events go to every client, whatever session it shows (spec §6: goal lifecycle is instance-wide).
  goal_done: define('goal', 'public', () => z.object({ goalId: z.string(), sessionId: z.string() })),
  goal_done_rejected: define('goal', 'public', () => z.object({ reason: reason(), goalId: z.string(), sessionId: z.string() })),
  goal_cancel: define('goal', 'public', () => z.object({ goalId: z.string(), sessionId: z.string(), reason: reason() })),
  /** A run ended with the agent's request to pause on record (the gate is armed, not the goal paused). */
  goal_pause_detected: define('goal', 'public', () => z.object({ reason: reason(), goalId: z.string(), sessionId: z.string(), traceId: z.string() })),
  goal_pause_gate_pending: define('goal', 'public', () => z.object({ reason: reason(), goalId: z.string(), sessionId: z.string() })),
  /** The goal's next turn is scheduled (`kind` continue or audit). */
  goal_continuation: define('goal', 'public', () => z.object({ goalId: z.string(), sessionId: z.string(), kind: z.enum(['continue', 'audit']), dueAt: z.number(), reason: reason() })),
  /** The budget stopped the goal's continuation. */
  goal_continuation_limit: define('goal', 'public', () => z.object({ goalId: z.string(), sessionId: z.string(), reason: reason() })),
  /** Any change of a session's goal (status, gate, checkpoint, usage): the whole goal, for the UI. */
  goal_update: define('goal', 'public', () => z.object({ sessionId: z.string(), goal: GoalSchema.nullable() })),
  /** The task list changed: the task added or changed, or how many `clear` removed. */
  task_update: define('task', 'public', () => z.object({ action: z.enum(['add', 'update', 'done', 'clear']), task: TaskSchema.optional(), removed: z.number().int().optional() })),
  /** The memory store changed (a save, an outside edit, reindex progress…): the reason and the whole status. */
  memory_status: define('memory', 'public', () => MemoryStatusEventSchema),
  schedule_wakeup: define('schedule', 'public', () => z.object({ id: z.number().int(), sessionId: z.string(), dueAt: z.number(), reason: reason() })),
  schedule_wakeup_failed: define('schedule', 'public', () => z.object({ reason: reason(), id: z.number().int().optional(), sessionId: z.string() })),
  // ── tool permissions answered by a person ────────────────────────────────────────────
  /** A CLI asks to run a tool and the call is held until a person (or a rule, or the timeout) answers. */
  permission_request: define('permission', 'public', () => PermissionRequestSchema),
  /** A permission request was answered: the decision and who made it. */
  permission_resolved: define('permission', 'public', () => z.object({
    id: z.string(),
    sessionId: z.string(),
    runId: z.string(),
    decision: z.enum(PERMISSION_DECISIONS),
    by: z.enum(DECIDERS),
    reason: z.string().optional(),
  })),
  // ── settings ─────────────────────────────────────────────────────────────────────────
  /** Settings changed (by the API, a slash command or the CLI): the changed sections, secrets masked as in GET /api/settings. */
  settings_changed: define('system', 'public', () => z.object({
    sections: z.array(z.string()),
    values: z.record(z.string(), z.unknown()),
  })),
  // ── chat channels ────────────────────────────────────────────────────────────────────
  /** A chat channel's bot connected (or reconnected after a restart). */
  channel_connected: define('system', 'public', () => z.object({ channel: z.string(), botName: z.string() })),
  /** A chat channel's bot disconnected: stopped, disabled, or its connection failed. */
  channel_disconnected: define('system', 'public', () => z.object({ channel: z.string(), reason: z.string() })),
  /** The MCP list changed (PUT /api/mcp or an install): the whole list, secrets masked as in GET /api/mcp. */
  mcp_changed: define('system', 'public', () => z.object({ servers: z.array(McpServerSchema) })),
  /** Progress of POST /api/mcp/install: npm's output lines, then the end (`ok` registers the server). */
  mcp_install: define('system', 'public', () => z.object({
    installId: z.string(),
    package: z.string(),
    status: z.enum(['running', 'ok', 'error']),
    line: z.string().optional(),
    message: z.string().optional(),
  })),
  // ── the manager dashboard's own stream (svc dashboard serve) ─────────────────────────
  /** An instance's row changed (appeared, went online/offline, busy/idle, was started or stopped). */
  instance_status: define('dashboard', 'public', () => z.object({ instanceId: z.string(), status: z.string(), reason: z.string().optional(), busy: z.boolean(), change: z.string() })),
  /**
   * One event of an instance's own stream, relayed: its name, topic and id there, and its fields
   * (`data`). The manager relays every public event, so worker progress it does not know reaches the page too.
   */
  instance_event: define('dashboard', 'public', () => z.object({
    instanceId: z.string(),
    name: z.string(),
    instanceTopic: z.string(),
    instanceEventId: z.string(),
    data: open(),
  })),
  /** The manager's own actions: a scan, a lifecycle result. */
  // ── the fleet (svc dashboard serve --fleet): machines joining, coming and going, and the hub's nats-server ──
  fleet_machine: define('dashboard', 'public', () => z.object({ machineId: z.string(), name: z.string(), online: z.boolean(), change: z.enum(FLEET_MACHINE_CHANGES) })),
  fleet_status: define('dashboard', 'public', () => z.object({ nats: z.enum(NATS_STATES), reason: z.string().optional() })),
  fleet_work: define('dashboard', 'public', () =>
    z.object({ id: z.string(), status: z.enum(WORK_STATES), machineId: z.string().nullable(), instanceId: z.string().nullable(), runId: z.string().nullable(), reason: z.string().nullable() }),
  ),
  dashboard_activity: define('dashboard', 'public', () => z.object({ kind: z.string(), instanceId: z.string().optional(), ok: z.boolean(), message: z.string() })),
  // ── the executive agent (/api/svc-ceo): what changed, for its console (it reads the rest by id) ──
  ceo_transcript: define('dashboard', 'public', () => z.object({ id: z.number().int(), role: z.string(), instanceId: z.string().nullable() })),
  ceo_watch: define('dashboard', 'public', () => z.object({ id: z.string(), instanceId: z.string(), status: z.string() })),
  ceo_completion: define('dashboard', 'public', () => z.object({ key: z.string(), instanceId: z.string(), watchId: z.string(), status: z.string() })),
  ceo_audit: define('dashboard', 'public', () => z.object({ id: z.number().int(), kind: z.string(), action: z.string(), ok: z.boolean() })),
  // ── internal only: never delivered to SSE/WebSocket clients ──────────────────────────
  /** One raw line a provider CLI printed (for trace files); may contain anything the CLI printed. */
  provider_line: define('agent', 'internal', () => z.object({
    traceId: traceId(), stream: z.enum(['stdout', 'stderr']), line: z.string(),
  })),
  /** How a provider CLI's process ended (for trace files): its exit code, or the signal that ended it. */
  provider_exit: define('agent', 'internal', () => z.object({
    traceId: traceId(), code: z.number().int().nullable(), signal: z.string().nullable(),
  })),
} as const;

/** `agent:provider-e:<name>`: runtime events of one employee-agent provider (spec §6). */
export const NAMESPACES = [
  { prefix: 'agent:provider-e:', def: define('agent', 'public', open) },
] as const;

/**
 * The names svc publishes in that namespace: a worker run's provider CLI (an employee at work), one event per
 * normalized event of the CLI and its status when it starts and ends (modules/orchestration/provider-events.ts).
 * The spec leaves the payloads open; svc's each carry the worker run (`runId`, also its trace id), its
 * `sessionId`, the `employeeId` and the `provider`, then:
 *   status   `status` (a worker run status: running, then succeeded, failed, cancelled or timeout), `reason` at the end
 *   text     `content`, `offset` (where it starts in the run's output)
 *   thinking `content`
 *   tool     `stepId`, `name`, `step`, `status` (running, ok, error), `input` (bounded) at the start, `output` (clipped) at the end
 *   usage    the token counts and cost the CLI reported
 *   retry    `reason`, `attempt`, `delayMs` (the CLI retrying on its own)
 *   error    `failure`, `message` (an error the CLI reported; the run may still go on)
 */
export const PROVIDER_E_KINDS = ['status', 'text', 'thinking', 'tool', 'usage', 'retry', 'error'] as const;
export type ProviderEKind = (typeof PROVIDER_E_KINDS)[number];

export type EventName = keyof typeof catalogue;
export type NamespacedEventName = `agent:provider-e:${string}`;
export type EventPayload<N extends EventName> = z.infer<(typeof catalogue)[N]['payload']>;

/** Reserved keys of the wire format, which an event's own fields may not use. */
export const RESERVED_KEYS = ['topic', 'event', 'eventId', 'ts'] as const;

export function lookup(name: string): EventDef<z.ZodType> | undefined {
  if (Object.hasOwn(catalogue, name)) return catalogue[name as EventName];
  return NAMESPACES.find((ns) => name.startsWith(ns.prefix) && name.length > ns.prefix.length)?.def;
}

/** The names of the events clients may receive. */
export type PublicEventName = { [N in EventName]: (typeof catalogue)[N]['visibility'] extends 'public' ? N : never }[EventName];

/** One public event as SSE and WebSocket clients receive it: the wire fields, then the event's own. */
export type WireEvent = {
  [N in PublicEventName]: { eventId: string; topic: Topic; event: N; ts: number } & EventPayload<N>;
}[PublicEventName];

/** The event a client gets instead of what it missed when its cursor cannot be replayed (spec §6). */
export interface ReplayGapEvent {
  eventId: string;
  topic: 'system';
  event: 'replay_gap';
  ts: number;
  lastEventId: string;
  reason: 'invalid_cursor' | 'unknown_stream' | 'expired';
  oldestAvailableId: string | null;
}

export const publicEventNames = (): string[] =>
  Object.entries(catalogue).filter(([, d]) => d.visibility === 'public').map(([n]) => n);

/**
 * A public event as SSE and WebSocket clients receive it: `eventId`, `topic`, `event`, `ts`, and the
 * event's own fields. The schema of one SSE `data:` payload, for the OpenAPI document.
 */
export const WireEventSchema = lazySchema(() => z.looseObject({
  eventId: z.string().describe('`<stream>-<seq>`: the replay cursor (also the SSE `id:`).'),
  topic: z.string(),
  event: z.string().describe('An event name of the catalogue, or `replay_gap` (topic `system`).'),
  ts: z.number(),
}));
