// The single definition of every event the service publishes: its topic, its payload schema and
// whether it may leave the process. SSE, the WebSocket fallback, NDJSON streams and traces all
// derive from this table; nothing else declares an event.
import { z } from 'zod';
import { MESSAGE_ROLES } from '../store/messages.ts';

export type Visibility = 'public' | 'internal';
export type Topic = 'chat' | 'session' | 'agent' | 'queue' | 'orchestrate' | 'goal' | 'memory' | 'schedule' | 'system';

interface EventDef<S extends z.ZodType> {
  topic: Topic;
  visibility: Visibility;
  payload: S;
}
const define = <S extends z.ZodType>(topic: Topic, visibility: Visibility, payload: S): EventDef<S> => ({
  topic,
  visibility,
  payload,
});

const traceId = z.string().min(1);
const reason = z.string();
/** Payloads the spec leaves open: any JSON object (but never a reserved key, see RESERVED_KEYS). */
const open = z.record(z.string(), z.unknown());

export const AGENT_STATUSES = ['running', 'done', 'error', 'evaluating'] as const;
export const RUN_STATUSES = ['ok', 'error', 'stopped'] as const;
export const STEP_KINDS = ['tool', 'thinking', 'search', 'command', 'subagent', 'file'] as const;

const usage = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  costUsd: z.number().optional(),
});

const toolLogEntry = z.object({
  stepId: z.string(),
  name: z.string(),
  step: z.enum(STEP_KINDS),
  status: z.enum(['running', 'ok', 'error']),
  input: open.optional(),
  output: z.string().optional(),
});

export const catalogue = {
  // ── chat and sessions ────────────────────────────────────────────────────────────────
  message: define('chat', 'public', z.object({
    id: z.number().int(),
    role: z.enum(MESSAGE_ROLES),
    content: z.string(),
    sessionId: z.string(),
    createdAt: z.number(),
    /** Set when a queued message moved behind the answers saved while it waited: its old id. */
    replaces: z.number().int().optional(),
  })),
  new_message: define('chat', 'public', z.object({
    role: z.literal('user'),
    content: z.string(),
    sessionId: z.string(),
    queued: z.boolean(),
    requestId: z.string().optional(),
  })),
  session_switched: define('session', 'public', z.object({ sessionId: z.string() })),
  session_created: define('session', 'public', z.object({ sessionId: z.string(), title: z.string() })),
  /** A chat session's messages were deleted (`/clear`): clients drop what they show of it. */
  chat_cleared: define('chat', 'public', z.object({ sessionId: z.string() })),
  /** The provider sessions of a chat session were forgotten: the next message starts fresh. */
  session_reset: define('session', 'public', z.object({ sessionId: z.string() })),
  /** A chat session and its messages were deleted: clients drop it (and leave it if they show it). */
  session_deleted: define('session', 'public', z.object({ sessionId: z.string() })),
  session_list: define('session', 'public', z.object({
    sessions: z.array(z.object({ id: z.string(), title: z.string(), active: z.boolean(), updatedAt: z.number() })),
  })),
  // ── agent runs ───────────────────────────────────────────────────────────────────────
  agent_status: define('agent', 'public', z.object({
    status: z.enum(AGENT_STATUSES),
    traceId: traceId.optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
  })),
  agent_tool: define('agent', 'public', z.object({
    traceId,
    stepId: z.string(),
    name: z.string(),
    step: z.enum(STEP_KINDS),
    status: z.enum(['running', 'ok', 'error']),
    input: open,
    output: z.string().optional(),
  })),
  // offset: where `content` starts in the run's whole output (UTF-16 units), so a client that loaded
  // the output so far (GET /api/runtime) can drop what it already has.
  agent_output: define('agent', 'public', z.object({ traceId, content: z.string(), offset: z.number().int().nonnegative() })),
  agent_done: define('agent', 'public', z.object({
    traceId,
    status: z.enum(RUN_STATUSES),
    text: z.string(),
    error: z.string().optional(),
    provider: z.string().optional(),
    messageId: z.number().int().optional(),
    toolLog: z.array(toolLogEntry),
    usage: usage.optional(),
    durationMs: z.number().optional(),
  })),
  agent_retry: define('agent', 'public', z.object({
    traceId, provider: z.string(), attempt: z.number().int(), delayMs: z.number(), reason,
  })),
  agent_fallback: define('agent', 'public', z.object({ traceId, from: z.string(), to: z.string(), reason })),
  steer_started: define('agent', 'public', z.object({ prompt: z.string(), traceId: traceId.optional() })),
  queue_update: define('queue', 'public', z.object({ pending: z.number().int(), active: z.boolean() })),
  // ── orchestration, goals, memory, schedules, workers (payloads the spec leaves open are `open`) ──
  orc_state: define('orchestrate', 'public', z.object({ phase: z.string(), status: z.string() })),
  orchestrate_done: define('orchestrate', 'public', open),
  orchestrate_warning: define('orchestrate', 'public', open),
  worker_stalled: define('orchestrate', 'public', open),
  worker_disconnected: define('orchestrate', 'public', open),
  worker_timeout: define('orchestrate', 'public', open),
  goal_done: define('goal', 'public', z.object({ goalId: z.string() })),
  goal_done_rejected: define('goal', 'public', z.object({ reason })),
  goal_cancel: define('goal', 'public', open),
  goal_pause_detected: define('goal', 'public', z.object({ reason })),
  goal_pause_gate_pending: define('goal', 'public', z.object({ reason })),
  memory_status: define('memory', 'public', open),
  schedule_wakeup: define('schedule', 'public', open),
  schedule_wakeup_failed: define('schedule', 'public', open),
  // ── internal only: never delivered to SSE/WebSocket clients ──────────────────────────
  /** One raw line a provider CLI printed (for trace files); may contain anything the CLI printed. */
  provider_line: define('agent', 'internal', z.object({
    traceId, stream: z.enum(['stdout', 'stderr']), line: z.string(),
  })),
  settings_changed: define('system', 'internal', z.object({ sections: z.array(z.string()) })),
} as const;

/** `agent:provider-e:<name>`: runtime events of one employee-agent provider (spec §6). */
export const NAMESPACES = [
  { prefix: 'agent:provider-e:', topic: 'agent' as Topic, visibility: 'public' as Visibility, payload: open },
] as const;

export type EventName = keyof typeof catalogue;
export type NamespacedEventName = `agent:provider-e:${string}`;
export type EventPayload<N extends EventName> = z.infer<(typeof catalogue)[N]['payload']>;

/** Reserved keys of the wire format, which an event's own fields may not use. */
export const RESERVED_KEYS = ['topic', 'event', 'eventId', 'ts'] as const;

export function lookup(name: string): EventDef<z.ZodType> | undefined {
  if (Object.hasOwn(catalogue, name)) return catalogue[name as EventName];
  return NAMESPACES.find((ns) => name.startsWith(ns.prefix) && name.length > ns.prefix.length);
}

export const publicEventNames = (): string[] =>
  Object.entries(catalogue).filter(([, d]) => d.visibility === 'public').map(([n]) => n);
