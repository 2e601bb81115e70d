// The push API: the VAPID public key a browser subscribes with, the devices subscribed (a person's
// business: an agent run's credential is refused), a test notification, and the decision a
// notification's action posts with its token instead of the bearer token (access `capability`).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { forbidden } from '../../core/errors.ts';
import { defineRoutes, noBody, route } from '../../http/routes.ts';
import { PermissionRequestSchema } from '../../protocol/permissions.ts';
import { DecideByTokenBodySchema, PushSubscriptionBodySchema, PushSubscriptionInfoSchema } from '../../protocol/push.ts';
import type { PushService } from './push.service.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export interface PushRouteDeps {
  push: PushService;
  /** Whether the request carries an agent's credential (an instance: a run token; the hub: a connector's too). */
  isAgent(request: FastifyRequest): boolean;
  actorOf(address: string | undefined): string;
}

const id = lazySchema(() => z.string().min(1).max(64));

export const pushRoutes: FastifyPluginAsync<PushRouteDeps> = async (app, { push, isAgent, actorOf }) => {
  /** Devices are a person's to add and remove: an agent could otherwise have its own requests pushed to itself. */
  const person = (request: FastifyRequest, what: string) => {
    if (isAgent(request)) throw forbidden('PERSON_REQUIRED', `Only a person ${what}: an agent run's credential cannot.`);
  };
  defineRoutes(app, 'push', [
    route({
      method: 'GET',
      url: '/api/push/vapid-public-key',
      summary: 'The server\'s VAPID public key (URL-safe base64, 65 bytes): what a browser subscribes with (applicationServerKey).',
      response: lazySchema(() => z.object({ publicKey: z.string() })),
      handler: () => ({ publicKey: push.vapidPublicKey() }),
    }),
    route({
      method: 'POST',
      url: '/api/push/subscriptions',
      status: 201,
      summary: 'Adds a device: a browser\'s PushSubscription JSON (endpoint https, or loopback http for a local relay; keys.p256dh, keys.auth). The same endpoint again renews its keys and keeps its id. Refused to an agent run\'s credential.',
      body: PushSubscriptionBodySchema,
      bodyLimit: 8 * 1024,
      response: lazySchema(() => z.object({ id: z.string() })),
      handler: ({ body, request }) => {
        person(request, 'adds a device for notifications');
        return { id: push.subscribe(body, request.headers['user-agent'], actorOf(request.socket.remoteAddress)).id };
      },
    }),
    route({
      method: 'GET',
      url: '/api/push/subscriptions',
      summary: 'The devices that get notifications: endpoint, push service, browser, when it last got one and why the last one failed.',
      response: lazySchema(() => z.object({ subscriptions: z.array(PushSubscriptionInfoSchema) })),
      handler: () => ({ subscriptions: push.list() }),
    }),
    route({
      method: 'DELETE',
      url: '/api/push/subscriptions/:id',
      summary: 'Removes a device: it gets no more notifications, and the decision tokens it was sent stop working.',
      params: lazySchema(() => z.object({ id })),
      response: lazySchema(() => z.object({ removed: z.string() })),
      handler: ({ params, request }) => {
        person(request, 'removes a device');
        push.remove(params.id, actorOf(request.socket.remoteAddress));
        return { removed: params.id };
      },
    }),
    route({
      method: 'POST',
      url: '/api/push/subscriptions/:id/test',
      errors: [502],
      summary: 'Sends a test notification to one device; answers the push service\'s status (201 accepted; 404/410: the subscription was gone and is removed).',
      params: lazySchema(() => z.object({ id })),
      body: noBody,
      response: lazySchema(() => z.object({ status: z.number().int(), removed: z.boolean() })),
      handler: ({ params, request }) => {
        person(request, 'sends a test notification');
        return push.test(params.id);
      },
    }),
    route({
      method: 'POST',
      url: '/api/permissions/:id/decide-by-token',
      access: 'capability',
      errors: [409],
      summary:
        'A notification\'s Allow or Deny: decides the request as `push` with the single-use token that action carried (bound to the request, the decision and the device; it expires with the request). No bearer token: the token is the capability. 403 DECISION_TOKEN_INVALID when it is unknown, used or expired; 409 once anyone decided.',
      params: lazySchema(() => z.object({ id })),
      body: DecideByTokenBodySchema,
      bodyLimit: 1024,
      response: lazySchema(() => z.object({ request: PermissionRequestSchema })),
      handler: async ({ params, body, request }) => {
        person(request, 'answers a permission request');
        return { request: await push.decideByToken(params.id, body.token, actorOf(request.socket.remoteAddress)) };
      },
    }),
  ]);
};
