// The Pi module: model endpoints (profiles) for the `pi` provider, in svc's own Pi configuration directory.
export { PiProfiles, PI_MODES, type PiProfile } from './profiles.ts';
export { piRoutes } from './pi.routes.ts';
