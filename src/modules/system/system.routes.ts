// Core and system: health, the active session, runtime facts, the access token.
import type { RouteModule } from './index.ts';
import { forbidden } from '../errors.ts';
import { peerKind } from '../guard.ts';

export const coreRoutes: RouteModule = (app, ctx) => {
  app.get('/api/health', async () => ({
    ok: true,
    version: ctx.version,
    uptimeMs: Date.now() - ctx.startedAt,
  }));

  app.get('/api/session', async () => {
    const session = ctx.chat.activeSession();
    const agent = ctx.settings.get().agent;
    return {
      sessionId: session.id,
      title: session.title,
      provider: agent.provider,
      model: agent.model,
      effort: agent.effort,
      workingDir: agent.workingDir || ctx.cwd,
    };
  });

  app.get('/api/runtime', async () => {
    const memory = process.memoryUsage();
    return {
      version: ctx.version,
      pid: process.pid,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      startedAt: ctx.startedAt,
      uptimeMs: Date.now() - ctx.startedAt,
      home: ctx.home.root,
      rssBytes: memory.rss,
      agent: ctx.agent.status(),
      events: {
        streamId: ctx.stream.streamId,
        lastEventId: `${ctx.stream.streamId}-${ctx.stream.lastSeq}`,
        sseListeners: ctx.listeners.sse.inUse,
        sseCapacity: ctx.listeners.sse.capacity,
        wsListeners: ctx.listeners.ws.inUse,
      },
    };
  });

  // Only to a caller on this machine, and from a browser only when the page is our own
  // (same-origin, already enforced by the guard) or a command-line client (no Sec-Fetch-Site).
  app.get('/api/auth/token', async (request, reply) => {
    if (peerKind(request, ctx.classifyPeer) !== 'loopback') {
      throw forbidden('TOKEN_LOOPBACK_ONLY', 'The token is only handed out on this machine: run `svc token` there.');
    }
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw forbidden('ORIGIN_NOT_ALLOWED', 'The token is only handed to same-origin pages.');
    }
    void reply.header('Cache-Control', 'no-store');
    return { token: ctx.token };
  });
};
