// Core and system: health, the active session, runtime facts, the access token.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { peerKind } from '../../http/guard.ts';
import type { PeerClassifier } from '../../http/peers.ts';
import { RuntimeStatusSchema, type RuntimeStatus } from '../../protocol/runs.ts';
import type { ChatSession } from '../../protocol/chat.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';
import { MemberStatusSchema, type MemberStatus } from '../../protocol/fleet.ts';

export interface SystemRouteDeps {
  version: string;
  startedAt: number;
  home: string;
  /** The service manager this process runs under (svc service install), or null. */
  service: string | null;
  token: string;
  classifyPeer: PeerClassifier;
  activeSession(): ChatSession;
  /** The provider, model and effort runs use now, and their working directory. */
  agent(): { provider: string; model: string; effort: string; workingDir: string };
  runtime(): RuntimeStatus;
  /** This machine's connection to its fleet's hub, when it joined one. */
  fleet(): MemberStatus | null;
  events(): { streamId: string; lastSeq: number; sseListeners: number; sseCapacity: number; wsListeners: number };
}

export const HealthSchema = lazySchema(() => z.object({ ok: z.literal(true), version: z.string(), uptimeMs: z.number() }));

export const systemRoutes: FastifyPluginAsync<SystemRouteDeps> = async (app, deps) => {
  defineRoutes(app, 'system', [
    route({
      method: 'GET',
      url: '/api/health',
      summary: 'Liveness: the version and uptime (open to anyone who passes the Host and Origin checks).',
      access: 'public',
      response: HealthSchema,
      handler: () => ({ ok: true as const, version: deps.version, uptimeMs: Date.now() - deps.startedAt }),
    }),
    route({
      method: 'GET',
      url: '/api/session',
      summary: 'The active chat session and the provider, model and working directory runs use.',
      response: lazySchema(() => z.object({
        sessionId: z.string(),
        title: z.string(),
        provider: z.string(),
        model: z.string(),
        effort: z.string(),
        workingDir: z.string(),
      })),
      handler: () => {
        const session = deps.activeSession();
        const { provider, model, effort, workingDir } = deps.agent();
        return { sessionId: session.id, title: session.title, provider, model, effort, workingDir };
      },
    }),
    route({
      method: 'GET',
      url: '/api/runtime',
      summary: 'Process facts, the agent\'s state (the active run with its output so far, the queue) and the event stream\'s.',
      response: lazySchema(() => z.object({
        version: z.string(),
        pid: z.number().int(),
        node: z.string(),
        platform: z.string(),
        startedAt: z.number(),
        uptimeMs: z.number(),
        home: z.string(),
        service: z.string().nullable(),
        fleet: MemberStatusSchema.nullable(),
        rssBytes: z.number(),
        agent: RuntimeStatusSchema,
        events: z.object({
          streamId: z.string(),
          lastEventId: z.string(),
          sseListeners: z.number().int(),
          sseCapacity: z.number().int(),
          wsListeners: z.number().int(),
        }),
      })),
      handler: () => {
        const events = deps.events();
        return {
          version: deps.version,
          pid: process.pid,
          node: process.version,
          platform: `${process.platform}-${process.arch}`,
          startedAt: deps.startedAt,
          uptimeMs: Date.now() - deps.startedAt,
          home: deps.home,
          service: deps.service,
          fleet: deps.fleet(),
          rssBytes: process.memoryUsage.rss(),
          agent: deps.runtime(),
          events: {
            streamId: events.streamId,
            lastEventId: `${events.streamId}-${events.lastSeq}`,
            sseListeners: events.sseListeners,
            sseCapacity: events.sseCapacity,
            wsListeners: events.wsListeners,
          },
        };
      },
    }),
    // Only to a caller on this machine, and from a browser only when the page is our own
    // (same-origin, already enforced by the guard) or a command-line client (no Sec-Fetch-Site).
    route({
      method: 'GET',
      url: '/api/auth/token',
      summary: 'The bearer token, to a caller on this machine only (a same-origin page or a command-line client).',
      response: lazySchema(() => z.object({ token: z.string() })),
      handler: ({ request, reply }) => {
        if (peerKind(request, deps.classifyPeer) !== 'loopback') {
          throw forbidden('TOKEN_LOOPBACK_ONLY', 'The token is only handed out on this machine: run `svc token` there.');
        }
        const site = request.headers['sec-fetch-site'];
        if (site !== undefined && site !== 'same-origin' && site !== 'none') {
          throw forbidden('ORIGIN_NOT_ALLOWED', 'The token is only handed to same-origin pages.');
        }
        void reply.header('Cache-Control', 'no-store');
        return { token: deps.token };
      },
    }),
  ]);
};
