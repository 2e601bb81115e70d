// /api/dashboard/fleet and /api/dashboard/machines: the fleet's state, invites to join, and the machines.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { conflict } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { FleetStatusSchema, InviteSchema, MachineSchema, WorkItemSchema } from '../../protocol/fleet.ts';
import type { FleetHub } from './hub.ts';
import { WorkInputSchema } from './work-input.ts';

/** The fleet of this dashboard: its hub, or why there is none. */
export interface FleetHandle {
  hub?: FleetHub;
  /** Why the fleet is off (not started with --fleet, no nats-server, …) and what to do. */
  off?: string;
}

const NOT_STARTED = 'the fleet is off: start the dashboard with `svc dashboard serve --fleet`';

const machineParams = z.strictObject({ id: z.string().min(1).max(64) });
const workParams = z.strictObject({ id: z.string().min(1).max(64) });

/** The fleet's hub, or a 409 that says why there is none and what to do. */
export function requireHub(fleet: FleetHandle): FleetHub {
  if (!fleet.hub) throw conflict('FLEET_DISABLED', fleet.off ?? NOT_STARTED);
  return fleet.hub;
}

export const fleetRoutes: FastifyPluginAsync<{ fleet: FleetHandle }> = async (app, { fleet }) => {
  const hub = () => requireHub(fleet);
  defineRoutes(app, 'dashboard-fleet', [
    route({
      method: 'GET',
      url: '/api/dashboard/fleet',
      summary: "The fleet's state: on or off (and why), its nats-server, the URL machines join.",
      response: FleetStatusSchema,
      handler: () => fleet.hub?.status() ?? { enabled: false, reason: fleet.off ?? NOT_STARTED, nats: null, url: null, fingerprint: null },
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/fleet/invites',
      errors: [409],
      summary: 'A single-use code (10 minutes) for one machine to join, and the command to run there.',
      body: z.strictObject({}).optional(),
      status: 201,
      response: InviteSchema,
      handler: () => hub().createInvite(),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/machines',
      summary: 'The machines that joined: online or not, last seen, their instances.',
      response: z.object({ machines: z.array(MachineSchema) }),
      handler: () => ({ machines: fleet.hub?.machines() ?? [] }),
    }),
    route({
      method: 'DELETE',
      url: '/api/dashboard/machines/:id',
      errors: [404, 409],
      summary: "Revokes a machine: its key may no longer connect, and its connection is closed.",
      params: machineParams,
      response: MachineSchema,
      handler: ({ params }) => hub().revoke(params.id),
    }),
    route({
      method: 'POST',
      url: '/api/dashboard/work',
      errors: [409, 503],
      summary: 'Queues work for the fleet: a machine that can run it (provider ready, directory there) runs it as a chat run; 202 with the item.',
      body: WorkInputSchema,
      status: 202,
      response: WorkItemSchema,
      handler: ({ body }) => hub().work.submit(body),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/work',
      summary: 'The work items, newest first (the last 200): queued, running (machine, instance, run id), succeeded or failed, with their attempts.',
      response: z.object({ items: z.array(WorkItemSchema) }),
      handler: () => ({ items: fleet.hub?.work.list() ?? [] }),
    }),
    route({
      method: 'GET',
      url: '/api/dashboard/work/:id',
      errors: [404, 409],
      summary: 'One work item, with every machine\'s attempt at it.',
      params: workParams,
      response: WorkItemSchema,
      handler: ({ params }) => hub().work.get(params.id),
    }),
  ]);
};
