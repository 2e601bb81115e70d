// Commands and agent control: POST /api/message and /api/command stream NDJSON; stop, clear and
// reset act on the runtime.
import { statSync } from 'node:fs';
import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import type { RouteModule } from './index.ts';
import { parseInput } from '../validate.ts';
import { PROVIDER_IDS } from '../../config/settings.ts';
import { lazySink, NDJSON_HEADERS, responseSink, type RunSink } from '../../agent/stream-lines.ts';
import { mediaType, resolveMediaFile } from './media.ts';
import { MAX_ATTACHMENTS, withAttachments } from '../../services/attachments.ts';

export const MAX_PROMPT_CHARS = 100_000;

const messageBody = z.strictObject({
  prompt: z.string().trim().max(MAX_PROMPT_CHARS).default(''),
  /** Media file names (from POST /api/upload); their paths are appended to the prompt. */
  attachments: z.array(z.string().min(1).max(200)).max(MAX_ATTACHMENTS).default([]),
  sessionId: z.string().min(1).max(100).optional(),
  provider: z.enum(PROVIDER_IDS).optional(),
}).refine((b) => b.prompt !== '' || b.attachments.length > 0, { message: 'the prompt is empty', path: ['prompt'] });
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
    // resolved before anything is saved: an unknown file is a 400/404 and no message
    const files = body.attachments.map((name) => {
      const path = resolveMediaFile(ctx.home.media, name);
      return { path, type: mediaType(path), size: statSync(path).size };
    });
    const sink = openNdjson(reply);
    // the agent and the saved history get the same text, block included
    ctx.agent.submit({ prompt: withAttachments(body.prompt, files), sessionId, provider: body.provider, sink });
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
