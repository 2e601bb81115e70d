// The manager dashboard (`svc dashboard serve`): the instances it knows (started, scanned, added),
// their lifecycle, the event bridge and latest-message cache, and the manager's routes.
export { InstancesRepo, type InstanceRecord } from './instances.repo.ts';
export { InstancesService, type FleetReach, type InstanceEvents, type InstancesTuning, type ScanRange } from './instances.service.ts';
export { instanceRoutes } from './instances.routes.ts';
export { readMarker, MARKER_FILE } from './lifecycle.ts';
export { proxyRoutes } from './proxy.routes.ts';
export { BoardRepo } from './board.repo.ts';
export { BoardService } from './board.service.ts';
export { boardRoutes } from './board.routes.ts';
export { ScheduleRepo } from './schedule.repo.ts';
export { ScheduleService } from './schedule.service.ts';
export { scheduleRoutes } from './schedule.routes.ts';
export { Connectors } from './connectors.ts';
export { NotesRepo } from './notes.repo.ts';
export { federationRoutes } from './federation.routes.ts';
export { DashboardSettingsService, describeChange } from './settings.ts';
export { settingsRoutes } from './settings.routes.ts';
export { callInstance, probeHealth, type Reader, type ReaderHandlers, type Target } from './instance-client.ts';
export { openReader } from './sse-reader.ts';
export { HubPermissions, hubRequestId } from './hub-push.ts';
export { carriesAgentCredential } from './permissions.routes.ts';
