// The newline-delimited JSON lines of POST /api/message and POST /api/command (spec §6 "Streamed
// response lines"). A run's lines are not written by hand: `streamLineOf` derives each one from the
// catalogue event the runtime publishes, so the NDJSON answer and the SSE stream cannot disagree.
import { z } from 'zod';
import { RUN_STATUSES, type EventName, type EventPayload } from './events.ts';
import { lazySchema } from './lazy-schema.ts';

export type RunStatus = (typeof RUN_STATUSES)[number];

/** Made by the schema as it is built: a stream line is parsed at every line, so no proxy between. */
const traceId = () => z.string();

export const StreamLineSchema = lazySchema(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('thinking'), content: z.string(), traceId: traceId().optional() }),
  z.object({ type: z.literal('text'), content: z.string(), traceId: traceId().optional() }),
  z.object({
    type: z.literal('tool'),
    stepId: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    status: z.enum(['running', 'ok', 'error']),
    output: z.string().optional(),
    traceId: traceId(),
  }),
  z.object({
    type: z.literal('done'),
    status: z.enum(RUN_STATUSES),
    text: z.string(),
    reason: z.string().optional(),
    /** The failure class and the command that fixes it, when the run failed. */
    failure: z.string().optional(),
    fix: z.string().optional(),
    traceId: traceId().optional(),
    messageId: z.number().int().optional(),
  }),
]));
export type StreamLine = z.infer<typeof StreamLineSchema>;

/** Where a run's lines go: one HTTP response (src/http/ndjson.ts), or nowhere once it closed. */
export interface RunSink {
  write(line: StreamLine): void;
  end(): void;
}

/** The line an event of a run stands for in that run's NDJSON answer; undefined when it has none. */
export function streamLineOf<N extends EventName>(name: N, payload: EventPayload<N>): StreamLine | undefined;
export function streamLineOf(name: string, p: Record<string, any>): StreamLine | undefined {
  switch (name) {
    case 'agent_output':
      return { type: 'text', content: p.content, traceId: p.traceId };
    case 'agent_tool':
      if (p.step === 'thinking') return { type: 'thinking', content: p.output ?? '', traceId: p.traceId };
      return {
        type: 'tool',
        stepId: p.stepId,
        name: p.name,
        input: p.input,
        status: p.status,
        ...(p.output !== undefined ? { output: p.output } : {}),
        traceId: p.traceId,
      };
    case 'agent_done':
      return {
        type: 'done',
        status: p.status,
        text: p.text,
        ...(p.reason ? { reason: p.reason } : {}),
        ...(p.failure ? { failure: p.failure } : {}),
        ...(p.fix ? { fix: p.fix } : {}),
        traceId: p.traceId,
        ...(p.messageId !== undefined ? { messageId: p.messageId } : {}),
      };
    default:
      return undefined;
  }
}
