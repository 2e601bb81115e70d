// Commands and agent control: POST /api/message and /api/command stream NDJSON; stop, clear and
// reset act on the runtime.
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { RouteModule } from './index.ts';
import { parseInput } from '../validate.ts';
import { PROVIDER_IDS } from '../../config/settings.ts';
import { lazySink, NDJSON_HEADERS, responseSink, type RunSink } from '../../agent/stream-lines.ts';

export const MAX_PROMPT_CHARS = 100_000;

const messageBody = z.strictObject({
  prompt: z.string().trim().min(1, 'the prompt is empty').max(MAX_PROMPT_CHARS),
  sessionId: z.string().min(1).max(100).optional(),
  provider: z.enum(PROVIDER_IDS).optional(),
});
const commandBody = z.strictObject({ text: z.string().trim().min(1).max(MAX_PROMPT_CHARS) });
const emptyBody = z.strictObject({}).optional();

function openNdjson(reply: FastifyReply): RunSink {
  reply.hijack();
  reply.raw.writeHead(200, NDJSON_HEADERS);
  reply.raw.socket?.setNoDelay(true);
  return responseSink(reply.raw);
}

export const agentRoutes: RouteModule = (app, ctx) => {
  app.post('/api/message', async (request, reply) => {
    const body = parseInput(messageBody, request.body, 'body');
    const sessionId = body.sessionId === undefined ? ctx.chat.activeSession().id : ctx.chat.requireSession(body.sessionId).id;
    const sink = openNdjson(reply);
    ctx.agent.submit({ prompt: body.prompt, sessionId, provider: body.provider, sink });
  });

  app.get('/api/commands', async () => ({ commands: ctx.commands.list() }));

  app.post('/api/command', async (request, reply) => {
    const { text } = parseInput(commandBody, request.body, 'body');
    const { command, args } = ctx.commands.resolve(text);
    // The response is opened when the first line is written, so a command can still fail with a
    // plain JSON error before that; a command that streams a run has it opened at once.
    let stream: RunSink | undefined;
    const open = () => (stream ??= openNdjson(reply));
    const result = await command.run(args, {
      agent: ctx.agent,
      chat: ctx.chat,
      settings: ctx.settings,
      openStream: () => lazySink(open),
    });
    if (typeof result !== 'string') {
      open();
      return;
    }
    const out = openNdjson(reply);
    out.write({ type: 'text', content: result });
    out.write({ type: 'done', status: 'ok', text: result });
    out.end();
  });

  app.post('/api/stop', async (request) => {
    parseInput(emptyBody, request.body, 'body');
    return ctx.agent.stop();
  });

  app.post('/api/clear', async (request) => {
    parseInput(emptyBody, request.body, 'body');
    const sessionId = ctx.chat.activeSession().id;
    return { sessionId, ...ctx.agent.clearSession(sessionId) };
  });

  app.post('/api/session/reset', async (request) => {
    parseInput(emptyBody, request.body, 'body');
    const sessionId = ctx.chat.activeSession().id;
    ctx.agent.resetProviderSession(sessionId);
    return { sessionId, reset: true };
  });
};
