// /api/svc-ceo/*: the executive's state, its operations (each a route, so the console and scripts
// can do what the agent does), pending completions, watches, confirmations and the audit.
import { z } from 'zod';
import { AppError, unavailable } from '../../core/errors.ts';
import { noBody, route, routeGroup } from '../../http/routes.ts';
import { bearerToken } from '../../http/peers.ts';
import { RUN_TOKEN_HEADER } from '../../protocol/caller.ts';
import { ModelOptionSchema } from '../../protocol/providers.ts';
import {
  CeoAuditSchema,
  COMPLETION_STATUSES,
  CompletionSchema,
  ConfirmationSchema,
  LIFECYCLE_ACTIONS,
  TranscriptEntrySchema,
  WatchSchema,
} from '../../protocol/executive.ts';
import type { ServerResponse } from 'node:http';
import { openNdjson } from '../../http/ndjson.ts';
import { cursorOf, openSse, sseSink } from '../../http/sse.ts';
import type { EventStream, Sink } from '../../events/stream.ts';
import type { Slots } from '../../events/slots.ts';
import { WireEventSchema } from '../../protocol/events.ts';
import { StreamLineSchema } from '../../protocol/stream-lines.ts';
import type { ExecutiveService } from './executive.service.ts';
import type { ExecutiveAgent } from './agent.ts';
import type { RealtimeVoice } from './realtime-voice.ts';
import { CeoSettingsPatchSchema, CeoSettingsSchema, executiveProviders, maskSettings } from './settings.ts';
import { notAPerson } from './person.ts';
import { EditDocsInput, FollowUpInput, id, SendInput, WatchInput } from './tools.ts';
import { WorkInputSchema } from '../fleet/index.ts';

const FleetInstanceSchema = z.object({ id: z.string(), label: z.string(), status: z.string(), busy: z.boolean(), owned: z.boolean(), workingDir: z.string().nullable() });
const VoiceSessionSchema = z.object({ id: z.string(), model: z.string(), voice: z.string(), startedAt: z.number() });
const DispatchSchema = z.object({ requestId: z.string(), watch: WatchSchema });

/** Approvals are a person's: a request made with a run's credential (an agent) never approves. */
const refuseAgent = (headers: Record<string, unknown>) => {
  if (headers[RUN_TOKEN_HEADER]) throw new AppError(403, 'CONFIRMATION_REQUIRED', 'Only a person approves or asks for a lifecycle action; an agent run cannot.');
};

export interface ExecutiveRouteDeps {
  executive: ExecutiveService;
  /** The server's token: a script approves confirmations with it, even on loopback. */
  token: string;
  agent: ExecutiveAgent;
  voice: RealtimeVoice;
  events: { stream: EventStream; sse: Slots };
}

/** The executive's own events (and the stream's gap notice) out of the server's one stream. */
const isExecutiveFrame = (json: string) => {
  const name = String((JSON.parse(json) as { event?: unknown }).event ?? '');
  return name.startsWith('ceo_') || name === 'replay_gap';
};

export const executiveRoutes = routeGroup('executive', ({ executive, agent, voice, events, token }: ExecutiveRouteDeps, scope) => {
  const openResponses = new Set<ServerResponse>();
  scope.onClose(async () => {
    for (const res of openResponses) res.end();
    await voice.closeAll();
  });
  return [
    route({
      method: 'GET',
      url: '/api/svc-ceo/events',
      access: 'token-or-query',
      summary: 'The executive\'s events (ceo_transcript, ceo_watch, ceo_completion, ceo_audit), live over SSE in the format and numbering of /api/events (replay from Last-Event-ID).',
      query: z.looseObject({ lastEventId: z.string().optional(), token: z.string().optional() }),
      produces: 'sse',
      item: WireEventSchema,
      handler: ({ request, reply }) => {
        const release = events.sse.acquire();
        if (!release) {
          void reply.header('Retry-After', '5');
          throw unavailable('SSE_CAPACITY', `At most ${events.sse.capacity} event listeners may be connected; close another one and retry.`);
        }
        const res = openSse(reply);
        const inner = sseSink(res);
        const sink: Sink = {
          send: (frame) => {
            if (isExecutiveFrame(frame.json)) inner.send(frame);
          },
          ping: () => inner.ping(),
          ...(inner.position ? { position: (id: string) => inner.position!(id) } : {}),
        };
        openResponses.add(res);
        res.on('close', () => {
          events.stream.detach(sink);
          openResponses.delete(res);
          release();
        });
        events.stream.attach(sink, cursorOf(request.headers, request.query));
      },
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/message',
      errors: [409],
      summary: 'A turn of the executive agent (a provider CLI whose tools are the executive\'s operations), streamed as NDJSON lines like /api/message.',
      body: z.strictObject({ text: z.string().trim().min(1).max(20_000), instanceId: id.optional(), responseMode: z.enum(['text', 'voice', 'both', 'silent']).default('text') }),
      produces: 'ndjson',
      item: StreamLineSchema,
      handler: ({ body, reply }) => {
        agent.admit();
        const sink = openNdjson(reply);
        void agent
          .turn(body, (line) => sink.write(line))
          .catch((err: unknown) => sink.write({ type: 'done', status: 'error', text: '', reason: (err as Error).message }))
          .finally(() => sink.end());
      },
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/settings',
      summary: 'The executive\'s provider, model, executable and environment (values masked).',
      response: CeoSettingsSchema,
      handler: () => maskSettings(executive.settings()),
    }),
    route({
      method: 'PUT',
      url: '/api/svc-ceo/settings',
      summary: 'Changes the executive\'s settings (fields given replace; an env value of null removes it; values are write-only).',
      body: CeoSettingsPatchSchema,
      response: CeoSettingsSchema,
      handler: ({ body, request }) => {
        refuseAgent(request.headers);
        return maskSettings(executive.updateSettings(body));
      },
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/state',
      summary: 'The executive\'s state: scope, its session, voice, transcript tail, active watches, pending completions, audit tail, live confirmations.',
      response: z.object({
        scope: z.enum(['manager', 'instance']),
        /** The executive's own provider session, and whether a turn is running. */
        session: z.object({ provider: z.string(), model: z.string(), providerSessionId: z.string().nullable(), busy: z.boolean() }),
        /** Push-to-talk needs a transcription endpoint; realtime voice an endpoint and key (configured), and shows its live session. */
        voice: z.object({ pushToTalk: z.boolean(), realtime: z.object({ configured: z.boolean(), session: VoiceSessionSchema.nullable() }) }),
        transcript: z.array(TranscriptEntrySchema),
        watches: z.array(WatchSchema),
        pending: z.array(CompletionSchema),
        auditTail: z.array(CeoAuditSchema),
        /** Confirmations waiting for a person (pending) or for their action (approved), unexpired. */
        confirmations: z.array(ConfirmationSchema),
        /** The providers its settings may name, with their models (the console's settings form offers them). */
        providers: z.array(z.object({ id: z.string(), displayName: z.string(), models: z.array(ModelOptionSchema) })),
      }),
      handler: () => {
        const { pushToTalk, ...state } = executive.state();
        return {
          ...state,
          session: { ...state.session, busy: agent.running },
          voice: { pushToTalk, realtime: voice.status() },
          providers: executiveProviders().map((p) => ({ id: p.id, displayName: p.displayName, models: p.models })),
        };
      },
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/instances',
      summary: 'The instances the executive sees (every instance on the manager, itself on an instance).',
      response: z.object({ instances: z.array(FleetInstanceSchema) }),
      handler: async () => ({ instances: await executive.instances() }),
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/instances/:id',
      summary: 'One instance and its latest messages, run and queue.',
      params: z.strictObject({ id }),
      response: z.object({ instance: FleetInstanceSchema, latest: z.unknown() }),
      handler: ({ params }) => executive.inspect(params.id),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/send',
      errors: [404, 409],
      summary: 'Sends a message to an instance and watches that request until its run ends (a completion).',
      body: SendInput,
      status: 202,
      response: DispatchSchema,
      handler: ({ body }) => executive.send(body.instanceId, body.text),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/work',
      errors: [409, 503],
      summary: 'Queues work for the fleet\'s machines (the queue_work tool): a machine that can run it takes it.',
      body: WorkInputSchema,
      status: 202,
      response: z.object({ id: z.string(), status: z.string() }).loose(),
      handler: ({ body }) => executive.queueWork(body),
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/watches',
      summary: 'The active watches (all=1: the latest 200 of any status).',
      query: z.strictObject({ all: z.enum(['0', '1']).optional() }),
      response: z.object({ watches: z.array(WatchSchema) }),
      handler: ({ query }) => ({ watches: executive.watches(query.all === '1') }),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/watch',
      errors: [404, 409],
      summary: 'Watches a request of an instance, or (without requestId) its next run no other watch claims.',
      body: WatchInput,
      status: 201,
      response: WatchSchema,
      handler: ({ body }) => executive.watch(body.instanceId, body.requestId ?? null),
    }),
    route({
      method: 'DELETE',
      url: '/api/svc-ceo/watch/:id',
      summary: 'Ends a watch.',
      params: z.strictObject({ id }),
      response: WatchSchema,
      handler: ({ params }) => executive.removeWatch(params.id),
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/pending',
      summary: 'Completions, newest first (default: the pending ones; status= a comma-separated list).',
      query: z.strictObject({ status: z.string().max(100).optional() }),
      response: z.object({ pending: z.array(CompletionSchema) }),
      handler: ({ query }) => {
        const statuses = query.status ? query.status.split(',') : ['pending'];
        const valid = z.array(z.enum(COMPLETION_STATUSES)).safeParse(statuses);
        if (!valid.success) throw new AppError(400, 'INVALID_REQUEST', `status takes ${COMPLETION_STATUSES.join(', ')}.`);
        return { pending: executive.pending(valid.data) };
      },
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/pending/:key/continue',
      summary: 'Reads a completion\'s result into the transcript (as instance data); with text, sends a follow-up to the same instance, watched.',
      params: z.strictObject({ key: id }),
      body: FollowUpInput,
      response: z.object({ completion: CompletionSchema, followUp: DispatchSchema.optional() }),
      handler: ({ params, body }) => executive.continue(params.key, body.text),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/pending/:key/summarize',
      summary: 'A completion\'s result: short (its first 320 characters) or detailed (all of it), as untrusted text.',
      params: z.strictObject({ key: id }),
      body: z.strictObject({ format: z.enum(['short', 'detailed']).default('short') }),
      response: z.object({ completion: CompletionSchema, untrustedText: z.string() }),
      handler: ({ params, body }) => executive.summarize(params.key, body.format),
    }),
    ...(['ack', 'dismiss'] as const).map((verb) =>
      route({
        method: 'POST',
        url: `/api/svc-ceo/pending/:key/${verb}`,
        summary: verb === 'ack' ? 'Acknowledges a pending completion.' : 'Dismisses a pending completion.',
        params: z.strictObject({ key: id }),
        body: noBody,
        response: CompletionSchema,
        handler: ({ params }) => executive.mark(params.key, verb === 'ack' ? 'acknowledged' : 'dismissed'),
      }),
    ),
    route({
      method: 'POST',
      url: '/api/svc-ceo/confirmations',
      errors: [404, 409],
      summary: 'A person asks for a lifecycle action: a confirmation bound to the action and an argument hash the server computes (expires, default 2 min).',
      body: z.strictObject({ action: z.enum(LIFECYCLE_ACTIONS), instanceId: id, expiresInMs: z.number().int().optional() }),
      status: 201,
      response: ConfirmationSchema,
      handler: ({ body, request }) => {
        refuseAgent(request.headers);
        return executive.createConfirmation(body.action, body.instanceId, body.expiresInMs);
      },
    }),
    ...(['confirm', 'cancel'] as const).map((verb) =>
      route({
        method: 'POST',
        url: `/api/svc-ceo/confirmations/:id/${verb}`,
        summary: verb === 'confirm' ? 'Approves a pending confirmation (the action that uses it consumes it); a person only: the console page, or the server\'s token.' : 'Cancels a confirmation; a person only: the console page, or the server\'s token.',
        params: z.strictObject({ id }),
        body: noBody,
        response: ConfirmationSchema,
        handler: ({ params, request }) => {
          const decision = verb === 'confirm' ? 'approved' : 'cancelled';
          const why = notAPerson(request.headers, bearerToken(request.headers.authorization), token);
          if (why) executive.refuseDecision(params.id, decision, why);
          return executive.decide(params.id, decision);
        },
      }),
    ),
    route({
      method: 'POST',
      url: '/api/svc-ceo/instances/:id/:action',
      summary: 'Starts, stops or restarts an instance the manager owns: only with an approved confirmation of exactly this action, which it uses up.',
      params: z.strictObject({ id, action: z.enum(LIFECYCLE_ACTIONS) }),
      body: z.strictObject({ confirmationId: id.optional() }),
      response: z.object({ ok: z.literal(true), instance: z.unknown() }),
      handler: async ({ params, body }) => ({ ok: true as const, instance: await executive.lifecycle(params.action, params.id, body.confirmationId) }),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/query',
      errors: [404, 409],
      summary: 'A read-only look: the dashboard\'s instances, or a command in an instance\'s project (git status|log|show|diff, rg, ls, cat) run without a shell, output capped at 24 KB.',
      body: z.discriminatedUnion('source', [
        z.strictObject({ source: z.literal('dashboard') }),
        z.strictObject({ source: z.literal('repo'), instanceId: id, command: z.string().min(1).max(2000) }),
      ]),
      response: z.union([
        z.object({ source: z.literal('dashboard'), instances: z.array(FleetInstanceSchema) }),
        z.object({ source: z.literal('repo'), command: z.string(), output: z.string(), truncated: z.boolean(), exitCode: z.number().int().nullable(), untrusted: z.literal(true) }),
      ]),
      handler: async ({ body }) =>
        body.source === 'dashboard'
          ? { source: 'dashboard' as const, instances: await executive.instances() }
          : { source: 'repo' as const, ...(await executive.query(body.instanceId, body.command)), untrusted: true as const },
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/docs/edit',
      errors: [404, 409],
      summary: 'Edits Markdown: an instance\'s README.md or docs/ (instanceId), or svc\'s notes (none): append a section, replace a section, or apply a unified diff (nothing changes when it does not apply).',
      body: EditDocsInput,
      response: z.object({ path: z.string(), target: z.enum(['project', 'notes']), bytes: z.number().int(), created: z.boolean() }),
      handler: ({ body }) => executive.editDocs(body),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/voice/connect',
      errors: [409, 502],
      summary: 'Realtime voice: the browser\'s WebRTC offer goes to the configured realtime endpoint (svc holds the key); answers its SDP and a session whose tools run server-side.',
      body: z.strictObject({ sdp: z.string().min(1).max(100_000) }),
      status: 201,
      response: VoiceSessionSchema.extend({ sdp: z.string() }),
      handler: ({ body }) => voice.connect(body.sdp),
    }),
    route({
      method: 'POST',
      url: '/api/svc-ceo/voice/:sessionId/close',
      summary: 'Hangs up a realtime voice session and leaves its call.',
      params: z.strictObject({ sessionId: id }),
      body: noBody,
      response: z.object({ closed: z.literal(true) }),
      handler: async ({ params }) => {
        await voice.close(params.sessionId);
        return { closed: true as const };
      },
    }),
    route({
      method: 'GET',
      url: '/api/svc-ceo/audit',
      summary: 'The executive\'s audit: every tool call and policy decision, newest first.',
      query: z.strictObject({ kind: z.string().max(32).optional(), instanceId: id.optional(), limit: z.coerce.number().int().min(1).max(300).default(50) }),
      response: z.object({ audit: z.array(CeoAuditSchema) }),
      handler: ({ query }) => ({ audit: executive.audits(query) }),
    }),
  ];
});
