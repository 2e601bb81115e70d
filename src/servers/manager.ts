// The manager dashboard's composition root (`svc dashboard serve`, port 24576): its own home and
// database, the instances it watches, its own event stream in the core's format, on the server kit
// with the core's trust model (loopback free, the manager's token for anyone else, Host and Origin
// checks).
import '../core/zod-setup.ts';
import { join } from 'node:path';
import { mkdirSync, chmodSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { loadOrCreateToken } from '../core/token.ts';
import { acquireServerLock } from '../core/server-lock.ts';
import type { ServerTls } from '../core/tls.ts';
import { SVC_BIN, VERSION } from '../core/version.ts';
import { closeDatabase, openDatabase, type Db } from '../store/db.ts';
import { managerMigrations } from '../store/migrations/manager/index.ts';
import { EventBus } from '../events/bus.ts';
import { EventStream } from '../events/stream.ts';
import { MAX_SSE_LISTENERS, MAX_WS_LISTENERS, Slots } from '../events/slots.ts';
import { createServer } from '../http/create-server.ts';
import { actorOf as actorOfPeer, classifyPeer, type PeerClassifier } from '../http/peers.ts';
import { eventRoutes } from '../modules/events/index.ts';
import { dashboardDistDir, uiFiles, uiRoutes, webDistDir } from '../modules/ui/index.ts';
import {
  BoardRepo,
  BoardService,
  boardRoutes,
  Connectors,
  federationRoutes,
  InstancesRepo,
  NotesRepo,
  InstancesService,
  instanceRoutes,
  proxyRoutes,
  DashboardSettingsService,
  describeChange,
  carriesAgentCredential,
  HubPermissions,
  ScheduleRepo,
  ScheduleService,
  scheduleRoutes,
  settingsRoutes,
  type InstancesTuning,
  type ScanRange,
} from '../modules/dashboard/index.ts';
import type { DashboardSettings, DashboardSettingsPatch } from '../protocol/dashboard.ts';
import { VoiceService, voiceRoutes } from '../modules/voice/index.ts';
import { DEFAULT_CONTACT, loadOrCreateVapidKeys, PushRepo, PushService, pushRoutes, pushSender, pushSettings, type VapidKeys } from '../modules/push/index.ts';
import { SecurityAudit } from '../modules/security-audit/index.ts';
import { loadFleetHub, type FleetHandle, type FleetHubSide, type WorkInput } from '../modules/fleet/index.ts';
import { complain } from '../core/log.ts';
import { ExecutiveAgent, ExecutiveRepo, ExecutiveService, loadExecutiveRoutes, managerFleet, RealtimeVoice, voiceInstructions, ceoMcpScript } from '../modules/executive/index.ts';


export interface ManagerOptions {
  /** The manager's home (default ~/.svc-dashboard): dashboard.db, token, instances/. */
  home: string;
  /** This run's scan range (`--from`, `--count`): over the kept settings until a change sets them. */
  scan?: Partial<ScanRange>;
  /** How to run svc for started instances (default: this node and bin/svc.js). */
  svcCommand?: readonly string[];
  classifyPeer?: PeerClassifier;
  /** This run's health-check period, over the kept setting (tests). */
  pollMs?: number;
  heartbeatMs?: number;
  logLevel?: string;
  /** The bridge's first reconnect delay; this run's cap over the kept setting (tests). */
  bridge?: { minBackoffMs?: number; maxBackoffMs?: number };
  /** Longest sleep of the schedule's runner (default 30 s). */
  scheduleTickMs?: number;
  /**
   * Serve HTTPS with this certificate (`--tls-cert`/`--tls-key`). The instances the manager starts then
   * serve HTTPS with the same files, so nothing it shows or proxies travels in the clear on any hop.
   */
  tls?: ServerTls;
  /**
   * Run the fleet's hub (`--fleet`): its nats-server on host:port, or (`external`, from `--nats-url` and
   * `--nats-creds`) a NATS an operator runs, reached with the hub's credentials (docs/fleet.md).
   */
  fleet?: {
    host: string;
    port: number;
    external?: { url: string; creds: string };
    heartbeatMs?: number;
    inviteTtlMs?: number;
    /** How long a machine may go silent on a work item before another gets it (tests). */
    workAckWaitMs?: number;
    /** Where nats-server is looked for (tests): PATH, then the directories (default NATS_SERVER_DIRS). */
    search?: { env: NodeJS.ProcessEnv; dirs: string };
  };
}

export interface ManagerServer {
  http: FastifyInstance;
  instances: InstancesService;
  schedule: ScheduleService;
  executive: ExecutiveService;
  fleet: FleetHandle;
  token: string;
  bus: EventBus;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** The settings this run's options set (CLI flags, tests' intervals), over the kept ones. */
function startupSettings(o: ManagerOptions): DashboardSettingsPatch {
  const scan = Object.fromEntries(Object.entries(o.scan ?? {}).filter(([, v]) => v !== undefined));
  return {
    ...(Object.keys(scan).length ? { scan } : {}),
    ...(o.pollMs !== undefined ? { healthIntervalSec: o.pollMs / 1000 } : {}),
    ...(o.bridge?.maxBackoffMs !== undefined ? { bridgeMaxBackoffSec: o.bridge.maxBackoffMs / 1000 } : {}),
  };
}

/** What the hub pushes: a held tool call (runs and goals end on an instance, whose own page can notify them). */
const HUB_PUSH_SETTINGS = { ...pushSettings.defaults, onPermission: true, onRunDone: false, onGoalDone: false, onWorkerAttention: false };

const tuningOf = (s: DashboardSettings): InstancesTuning => ({
  scan: { from: s.scan.from, count: s.scan.count },
  pollMs: s.healthIntervalSec * 1000,
  scanTtlMs: s.scan.intervalSec * 1000,
  maxBackoffMs: s.bridgeMaxBackoffSec * 1000,
});

export async function createManagerServer(options: ManagerOptions): Promise<ManagerServer> {
  const startedAt = Date.now();
  mkdirSync(options.home, { recursive: true, mode: 0o700 });
  chmodSync(options.home, 0o700);
  const lock = acquireServerLock(join(options.home, 'manager.lock'));
  const db = openDatabase(join(options.home, 'dashboard.db'), { migrationList: managerMigrations });
  const token = loadOrCreateToken(join(options.home, 'token'));
  const bus = new EventBus((err, event) => console.error(`svc dashboard: listener of '${event.name}' failed:`, err));
  const stream = new EventStream(bus, { heartbeatMs: options.heartbeatMs });
  const listeners = { sse: new Slots(MAX_SSE_LISTENERS), ws: new Slots(MAX_WS_LISTENERS) };
  const settings = new DashboardSettingsService(db, startupSettings(options), (next, previous) => {
    instances.configure(tuningOf(next));
    bus.publish('dashboard_activity', { kind: 'settings', ok: true, message: describeChange(previous, next) });
  });
  const fleetSide = await loadFleetHub();
  const { FleetInstanceSync, fleetReach, fleetRoutes } = fleetSide;
  const fleet = fleetOf(fleetSide, options, db, bus, () => fleetSync);
  const instances = new InstancesService({
    repo: new InstancesRepo(db),
    fleet: fleetReach(fleet),
    instancesDir: join(options.home, 'instances'),
    svcCommand: options.svcCommand ?? [process.execPath, SVC_BIN],
    ...(options.tls ? { tls: options.tls } : {}),
    tuning: tuningOf(settings.current()),
    ...(options.bridge?.minBackoffMs !== undefined ? { bridge: { minBackoffMs: options.bridge.minBackoffMs } } : {}),
    events: {
      status: (i, change) => bus.publish('instance_status', { instanceId: i.id, status: i.status, ...(i.reason ? { reason: i.reason } : {}), busy: i.busy, change }),
      connected: (id) => void executive.catchUp(id),
      relayed: (e) => bus.publish('instance_event', { instanceId: e.instanceId, name: e.name, instanceTopic: e.topic, instanceEventId: e.eventId, data: e.data }),
      activity: (kind, ok, message, instanceId) => bus.publish('dashboard_activity', { kind, ok, message, ...(instanceId ? { instanceId } : {}) }),
    },
  });
  const board = new BoardService(new BoardRepo(db), (id) => instances.target(id), (item, action) =>
    bus.publish('dashboard_activity', { kind: 'board', ok: true, message: `${action} '${item.title}'`, ...(item.instanceId ? { instanceId: item.instanceId } : {}) }),
  );
  const connectors = new Connectors(db, board, new NotesRepo(db), (id) => void instances.target(id), (note) =>
    bus.publish('dashboard_activity', { kind: 'note', ok: true, instanceId: note.instanceId, message: `the agent noted '${note.title}'` }),
  );
  const schedule = new ScheduleService({
    repo: new ScheduleRepo(db),
    instance: (id) => ({ row: instances.get(id), target: instances.target(id) }),
    onRun: (job, run) =>
      bus.publish('dashboard_activity', { kind: 'schedule', ok: run.status !== 'failed', instanceId: job.instanceId, message: `${job.title}: ${run.status}${run.reason ? ` (${run.reason})` : ''}` }),
    maxSleepMs: options.scheduleTickMs,
  });
  const executiveRepo = new ExecutiveRepo(db);
  // push-to-talk of the executive console transcribes with the executive's own voice settings
  const ceoVoice: VoiceService = new VoiceService(() => executive.settings().voice);
  const queueWork = (input: WorkInput) => fleetSide.requireHub(fleet).work.submit(input);
  const executive = new ExecutiveService({ repo: executiveRepo, fleet: managerFleet(instances, queueWork), bus, notesDir: join(options.home, 'notes'), voiceConfigured: (): boolean => ceoVoice.ready() });
  const pidDir = join(options.home, 'pids');
  const runsDir = join(options.home, 'runs');
  for (const dir of [pidDir, runsDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const executiveAgent = new ExecutiveAgent({
    service: executive,
    repo: executiveRepo,
    scope: 'manager',
    workDir: join(options.home, 'ceo-work'),
    settings: () => executive.settings(),
    mcpScript: ceoMcpScript(options.home),
    selfUrl: () => `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    selfPin: () => options.tls?.fingerprint,
    token,
    pidDir,
    scratchRoot: runsDir,
  });
  // completions come from each instance's own events, relayed by the bridge
  bus.subscribe((event) => {
    const p = event.payload as { instanceId?: string; name?: string; data?: Record<string, unknown> };
    if (event.name !== 'instance_event' || p.name !== 'agent_done' || typeof p.data?.requestId !== 'string') return;
    const d = p.data;
    executive.runDone({ instanceId: p.instanceId!, requestId: d.requestId as string, status: String(d.status), text: String(d.text ?? ''), ...(typeof d.messageId === 'number' ? { messageId: d.messageId } : {}) });
  });
  const fleetSync = new FleetInstanceSync(fleet, instances);
  // The hub's own push notifications: every instance's held tool calls, to the devices turned on in the
  // dashboard (modules/dashboard/hub-push.ts); the audit records who added a device and each refused token.
  const hubPermissions = new HubPermissions(instances);
  let vapidKeys: VapidKeys | undefined;
  const vapid = () => (vapidKeys ??= loadOrCreateVapidKeys(join(options.home, 'push-vapid.json')));
  const push = new PushService({
    repo: new PushRepo(db),
    bus: hubPermissions.events,
    audit: new SecurityAudit(db),
    permissions: hubPermissions,
    settings: () => HUB_PUSH_SETTINGS,
    vapidPublicKey: () => vapid().publicKey,
    send: pushSender(vapid, () => DEFAULT_CONTACT),
  });
  hubPermissions.start(bus);
  push.start();
  const actorOf = (address: string | undefined) => actorOfPeer(options.classifyPeer ?? classifyPeer, address);
  let port = 0;
  const http = await createServer({
    info: { title: 'svc manager dashboard', version: VERSION, description: 'The manager dashboard: many svc instances in one place.' },
    logLevel: options.logLevel,
    websocket: true,
    tls: options.tls,
    guard: { token, classifyPeer: options.classifyPeer ?? classifyPeer, network: () => ({ trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] }) },
  });
  await http.register(instanceRoutes, { instances, version: VERSION, startedAt, port: () => port });
  await http.register(settingsRoutes, { settings });
  await http.register(eventRoutes, { stream, listeners });
  await http.register(proxyRoutes, { instances, chatUi: uiFiles(VERSION, webDistDir()) });
  await http.register(boardRoutes, { board });
  await http.register(scheduleRoutes, { schedule });
  await http.register(federationRoutes, { instances, connectors });
  await http.register(fleetRoutes, { fleet });
  await http.register(pushRoutes, { push, isAgent: (request) => carriesAgentCredential(request.headers), actorOf });
  // push-to-talk of the executive console: the voice module's transcription, on the executive's own voice settings
  await http.register(voiceRoutes, { voice: ceoVoice, url: '/api/svc-ceo/voice/transcribe' });
  const voice = new RealtimeVoice({ service: executive, settings: () => executive.settings().realtime, instructions: () => voiceInstructions('manager') });
  await http.register(await loadExecutiveRoutes(), { executive, agent: executiveAgent, voice, token, events: { stream, sse: listeners.sse } });
  // installable: its service worker and icons, for the hub's push notifications
  await http.register(uiRoutes, { version: VERSION, dist: dashboardDistDir(), installable: true });
  await http.ready();
  let closed = false;
  return {
    http,
    instances,
    schedule,
    executive,
    fleet,
    token,
    bus,
    async listen(wanted, host = '127.0.0.1') {
      const address = await http.listen({ port: wanted, host });
      port = Number(new URL(address).port);
      lock.listening(address, options.tls?.fingerprint);
      if (fleet.hub) {
        await fleet.hub.start().catch((err: Error) => {
          fleet.off = fleet.hub!.operatorOwned ? `the fleet's NATS at ${fleet.hub!.url} could not be reached: ${err.message}` : `the fleet's nats-server did not start: ${err.message}`;
          complain(`svc dashboard: ${fleet.off}`);
          const hub = fleet.hub;
          delete fleet.hub;
          void hub?.close();
        });
      }
      // after listening: the checks and the scan are never on the start-up path
      void instances.start();
      schedule.start();
      return address;
    },
    async close() {
      if (closed) return;
      closed = true;
      // instances the manager started keep running: the next manager re-adopts them
      await instances.close();
      await schedule.close();
      hubPermissions.close();
      await push.close();
      await fleet.hub?.close();
      await http.close();
      stream.close();
      closeDatabase(db);
      lock.release();
    },
  };
}

/** The fleet's hub when `--fleet` was given and nats-server is installed; otherwise why there is none. */
function fleetOf(side: FleetHubSide, options: ManagerOptions, db: Db, bus: EventBus, sync: () => InstanceType<FleetHubSide['FleetInstanceSync']>): FleetHandle {
  const { FleetHub, FleetRepo, WorkRepo, findNatsServer, NATS_INSTALL_HINT } = side;
  if (!options.fleet) return {};
  const { external } = options.fleet;
  const binary = external ? undefined : options.fleet.search ? findNatsServer(options.fleet.search.env, options.fleet.search.dirs) : findNatsServer();
  if (!external && !binary) {
    complain(`svc dashboard: ${NATS_INSTALL_HINT}; running without the fleet`);
    return { off: NATS_INSTALL_HINT };
  }
  const hub = new FleetHub({
    dir: join(options.home, 'fleet'),
    repo: new FleetRepo(db),
    workRepo: new WorkRepo(db),
    nats: external ?? { binary: binary!, host: options.fleet.host, port: options.fleet.port },
    ...(options.tls ? { tls: { certFile: options.tls.certFile, keyFile: options.tls.keyFile, pem: options.tls.cert.toString('utf8'), fingerprint: options.tls.fingerprint } } : {}),
    ...(options.fleet.heartbeatMs !== undefined ? { heartbeatMs: options.fleet.heartbeatMs } : {}),
    ...(options.fleet.inviteTtlMs !== undefined ? { inviteTtlMs: options.fleet.inviteTtlMs } : {}),
    ...(options.fleet.workAckWaitMs !== undefined ? { workAckWaitMs: options.fleet.workAckWaitMs } : {}),
    onWork: (item) => bus.publish('fleet_work', { id: item.id, status: item.status, machineId: item.machineId, instanceId: item.instanceId, runId: item.runId, reason: item.reason }),
    onMachine: (m, change) => {
      sync().machine(m, change);
      bus.publish('fleet_machine', { machineId: m.id, name: m.name, online: m.online, change });
    },
    onHeartbeat: (m, cameOnline) => sync().heartbeat(m, cameOnline),
    onNats: (nats, reason) => bus.publish('fleet_status', { nats, ...(reason ? { reason } : {}) }),
  });
  return { hub };
}
