// What the dashboard loads for its fleet, and `svc fleet join` to join one (index.ts: loadFleetHub).
export { FleetRepo } from './fleet.repo.ts';
export { WorkRepo } from './work.repo.ts';
export { FleetInstanceSync, fleetReach } from './fleet-instances.ts';
export { FleetHub, HEARTBEAT_MS, INVITE_TTL_MS } from './hub.ts';
export { fleetRoutes, requireHub } from './fleet.routes.ts';
export { findNatsServer, NATS_INSTALL_HINT } from './nats-server.ts';
export { joinFleet, JoinError } from './join.ts';
export { machineIdOf, parseCreds } from './creds.ts';
export { operatorUserPermissions } from './nats-config.ts';
