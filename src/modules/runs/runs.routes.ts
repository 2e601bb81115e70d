// Commands and agent control: POST /api/message and /api/command stream NDJSON; stop, clear and
// reset act on the runtime.
import { z } from 'zod';
import { newId } from '../../core/ids.ts';
import { routeGroup, noBody, route } from '../../http/routes.ts';
import { callerOf } from '../../http/caller.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import { lazySink, openNdjson } from '../../http/ndjson.ts';
import type { RunSink } from '../../protocol/stream-lines.ts';
import { StreamLineSchema } from '../../protocol/stream-lines.ts';
import { MAX_ATTACHMENTS } from '../../protocol/media.ts';
import { PROVIDER_IDS } from '../../agent/providers/registry.ts';
import type { AgentRuntime } from '../../agent/runtime.ts';
import type { CommandRegistry } from '../../agent/commands.ts';
import type { ChatService } from '../chat/index.ts';
import { withAttachments, type MediaStore } from '../media/index.ts';

export const MAX_PROMPT_CHARS = 100_000;

const messageBody = z.strictObject({
  prompt: z.string().trim().max(MAX_PROMPT_CHARS).default(''),
  /** Media file names (from POST /api/upload); their paths are appended to the prompt. */
  attachments: z.array(z.string().min(1).max(200)).max(MAX_ATTACHMENTS).default([]),
  sessionId: z.string().min(1).max(100).optional(),
  provider: z.enum(PROVIDER_IDS).optional(),
}).refine((b) => b.prompt !== '' || b.attachments.length > 0, { message: 'the prompt is empty', path: ['prompt'] });
const commandBody = z.strictObject({ text: z.string().trim().min(1).max(MAX_PROMPT_CHARS) });

export interface RunRouteDeps {
  runtime: AgentRuntime;
  chat: ChatService;
  commands: CommandRegistry;
  media: MediaStore;
  /** The live run a credential belongs to (commands tell the agent from a human by it). */
  resolveRun?(token: string): RunIdentity | undefined;
}

export const runRoutes = routeGroup('runs', ({ runtime, chat, commands, media, resolveRun }: RunRouteDeps) => {
  return [
    route({
      method: 'POST',
      url: '/api/message',
      errors: [404, 429],
      summary: 'Sends a message to the agent and streams its run as NDJSON lines (text, thinking, tool, then done).',
      body: messageBody,
      produces: 'ndjson',
      item: StreamLineSchema,
      handler: ({ body, reply }) => {
        const sessionId = body.sessionId === undefined ? chat.activeSession().id : chat.requireSession(body.sessionId).id;
        // resolved before anything is saved: an unknown file is a 400/404 and no message
        const files = media.attachments(body.attachments);
        // decided before the stream opens, so a full queue is a plain 429 answer, not a silent stream
        runtime.admit();
        // named before the stream opens: a caller that only dispatches reads it and may hang up
        const requestId = newId('req');
        const sink = openNdjson(reply, { 'X-Request-Id': requestId });
        // the agent and the saved history get the same text, block included
        runtime.submit({ prompt: withAttachments(body.prompt, files), sessionId, provider: body.provider, sink, requestId });
      },
    }),
    route({
      method: 'GET',
      url: '/api/commands',
      summary: 'The slash commands, with their usage.',
      response: z.object({ commands: z.array(z.object({ name: z.string(), usage: z.string(), description: z.string() })) }),
      handler: () => ({ commands: commands.list() }),
    }),
    route({
      method: 'POST',
      url: '/api/command',
      errors: [404, 429],
      summary: 'Runs a slash command; its answer streams as NDJSON lines like a message\'s.',
      body: commandBody,
      produces: 'ndjson',
      item: StreamLineSchema,
      handler: async ({ body, reply, request }) => {
        const { command, args } = commands.resolve(body.text);
        const caller = callerOf(request, (token) => resolveRun?.(token));
        // The response is opened when the first line is written, so a command can still fail with a
        // plain JSON error before that; a command that streams a run has it opened at once.
        let stream: RunSink | undefined;
        const open = () => (stream ??= openNdjson(reply));
        const result = await command.run(args, { openStream: () => lazySink(open), caller });
        if (typeof result !== 'string') {
          open();
          return;
        }
        const out = openNdjson(reply);
        out.write({ type: 'text', content: result });
        out.write({ type: 'done', status: 'ok', text: result });
        out.end();
      },
    }),
    route({
      method: 'POST',
      url: '/api/stop',
      summary: 'Stops the running agent (its whole process tree) and drops the queued messages.',
      body: noBody,
      response: z.object({ stopped: z.boolean(), cleared: z.number().int() }),
      handler: () => runtime.stop(),
    }),
    route({
      method: 'POST',
      url: '/api/clear',
      summary: 'Deletes the messages of the active chat session and starts a fresh provider session.',
      body: noBody,
      response: z.object({ sessionId: z.string(), deleted: z.number().int() }),
      handler: () => {
        const sessionId = chat.activeSession().id;
        return { sessionId, ...chat.clearSession(sessionId) };
      },
    }),
    route({
      method: 'POST',
      url: '/api/session/reset',
      summary: 'Keeps the history but starts a fresh provider session with the next message.',
      body: noBody,
      response: z.object({ sessionId: z.string(), reset: z.literal(true) }),
      handler: () => {
        const sessionId = chat.activeSession().id;
        runtime.resetProviderSession(sessionId);
        return { sessionId, reset: true as const };
      },
    }),
  ];
});
