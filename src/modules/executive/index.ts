// The executive agent (/api/svc-ceo/*): one agent over the instances, served by the manager (every
// instance) and by each core server (itself). State in SQLite; lifecycle only with a person's confirmation.
export { ExecutiveRepo } from './executive.repo.ts';
export { ExecutiveService } from './executive.service.ts';
export { managerFleet } from './fleet-manager.ts';
export { selfFleet, SELF_ID } from './fleet-self.ts';
export type { Fleet, FleetInstance } from './fleet.ts';
export { ExecutiveAgent } from './agent.ts';
export { ceoMcpScript } from './mcp-script.ts';
export { RealtimeVoice } from './realtime-voice.ts';
export { voiceInstructions } from './prompt.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadExecutiveRoutes = () => import('./executive.routes.ts').then((m) => m.executiveRoutes);
