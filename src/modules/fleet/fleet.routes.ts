// /api/dashboard/fleet and /api/dashboard/machines: the fleet's state, invites to join, and the machines.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { conflict } from '../../core/errors.ts';
import { defineRoutes, route } from '../../http/routes.ts';
import { FleetStatusSchema, InviteSchema, MachineSchema } from '../../protocol/fleet.ts';
import type { FleetHub } from './hub.ts';

/** The fleet of this dashboard: its hub, or why there is none. */
export interface FleetHandle {
  hub?: FleetHub;
  /** Why the fleet is off (not started with --fleet, no nats-server, …) and what to do. */
  off?: string;
}

const NOT_STARTED = 'the fleet is off: start the dashboard with `svc dashboard serve --fleet`';

const machineParams = z.strictObject({ id: z.string().min(1).max(64) });

export const fleetRoutes: FastifyPluginAsync<{ fleet: FleetHandle }> = async (app, { fleet }) => {
  const hub = () => {
    if (!fleet.hub) throw conflict('FLEET_DISABLED', fleet.off ?? NOT_STARTED);
    return fleet.hub;
  };
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
  ]);
};
