// The Pi module: model endpoints (profiles) for the `pi` provider, in svc's own Pi configuration directory,
// and the age bound of the sessions Pi keeps there.
export { PiProfiles, PI_MODES, type PiProfile } from './profiles.ts';
export { prunePiSessions } from './sessions.ts';
