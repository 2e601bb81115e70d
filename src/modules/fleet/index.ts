// The fleet: several machines under one dashboard over NATS (docs/fleet.md). The hub side runs in the manager
// (`svc dashboard serve --fleet`); the machine side in `svc serve` on a home that joined one. This index holds what any
// svc process may need at start (the settings section, pure rules): svc serve loads it whether or not it joined one.
// The two sides, and the membership file's reader, load on first use.
export { fleetSettings, type FleetSettings } from './fleet.settings.ts';
export type { Membership } from './membership.ts';
export { exposedWithoutTls, isNatsUrl } from './nats-config.ts';
export { WorkInputSchema, type WorkInput } from './work-input.ts';
export type { FleetMember, MemberState } from './member.ts';
export type { LocalInstances } from './local-instances.ts';
export type { FleetHandle } from './fleet.routes.ts';

/** The machine's side: its connection to the hub, tunnels to its instance, work from the queue. */
export const loadFleetMachine = () => import('./machine-side.ts');
/** The hub's side (the dashboard's fleet), and joining one. */
export const loadFleetHub = () => import('./hub-side.ts');
export type FleetHubSide = Awaited<ReturnType<typeof loadFleetHub>>;
