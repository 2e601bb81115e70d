// The Pi module: model endpoints (profiles) for the `pi` provider, in svc's own Pi configuration directory,
// and the age bound of the sessions Pi keeps there.
export { PiProfiles, PI_MODES, type PiProfile, type PiEndpoint } from './profiles.ts';
export { prunePiSessions } from './sessions.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadPiRoutes = () => import('./pi.routes.ts').then((m) => m.piRoutes);
