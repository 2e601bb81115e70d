// The fleet: several machines under one dashboard over NATS (docs/fleet.md). The hub side runs in the
// manager (`svc dashboard serve --fleet`); the member side in `svc serve` on a machine that joined.
export { FleetRepo } from './fleet.repo.ts';
export { FleetInstanceSync, fleetReach } from './fleet-instances.ts';
export { FleetHub, HEARTBEAT_MS, INVITE_TTL_MS } from './hub.ts';
export { fleetRoutes, type FleetHandle } from './fleet.routes.ts';
export { findNatsServer, NATS_INSTALL_HINT } from './nats-server.ts';
export { joinFleet, JoinError } from './join.ts';
export { FleetMember, handToServer, instanceKey, type MemberState } from './member.ts';
export { readMembership, type Membership } from './membership.ts';
export { exposedWithoutTls } from './nats-config.ts';
