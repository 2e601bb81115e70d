// What svc serve loads when its home joined a fleet (index.ts: loadFleetMachine).
export { FleetMember, handToServer, instanceKey } from './member.ts';
export { LocalInstances } from './local-instances.ts';
export { localWork } from './local-work.ts';
export { readMembership } from './membership.ts';
