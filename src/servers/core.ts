// The core server's composition root (`svc serve`): opens storage, builds the services, mounts each
// module's routes and commands on the server kit, and closes everything in order. This is the only
// file that knows every module; each module gets just the dependencies it names.
import '../core/zod-setup.ts';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { homedir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ensureHome, type HomePaths } from '../core/home.ts';
import { loadOrCreateToken } from '../core/token.ts';
import { acquireServerLock, type ServerLock } from '../core/server-lock.ts';
import type { ServerTls } from '../core/tls.ts';
import { TLS_PIN_ENV } from '../core/tls-pin-env.ts';
import { SVC_BIN, VERSION } from '../core/version.ts';
import { createLog, parseLogLevel } from '../core/log.ts';
import { closeDatabase, openDatabase, type Db } from '../store/db.ts';
import { EventBus } from '../events/bus.ts';
import { EventStream } from '../events/stream.ts';
import { MAX_SSE_LISTENERS, MAX_WS_LISTENERS, Slots } from '../events/slots.ts';
import { callerOf } from '../http/caller.ts';
import { createServer } from '../http/create-server.ts';
import { defineLazyRoutes, routesOf } from '../http/lazy-routes.ts';
import { actorOf as actorOfPeer, classifyPeer, type PeerClassifier } from '../http/peers.ts';
import { AgentRuntime } from '../agent/runtime.ts';
import { CommandRegistry } from '../agent/commands.ts';
import { CliDetector } from '../agent/detect.ts';
import { QuotaReader } from '../agent/quota.ts';
import { QuotaObservationRepo } from '../agent/quota.repo.ts';
import { ProviderSessionRepo, RunRepo } from '../agent/runs.repo.ts';
import { agentSettings } from '../agent/settings.ts';
import { reapOrphans } from '../agent/process.ts';
import { clearRunDirs } from '../agent/run-dir.ts';
import { runOnce } from '../agent/one-shot.ts';
import type { RunSources } from '../agent/run-request.ts';
import { RUN_TOKEN_ENV, RunCredentials } from '../agent/run-credentials.ts';
import { TraceRecorder } from '../agent/traces.ts';
import { fleetSettings, loadFleetMachine, type FleetMember, type LocalInstances } from '../modules/fleet/index.ts';
import { isProviderId, PROVIDER_IDS } from '../agent/providers/registry.ts';
import { EndpointsRepo, ModelEndpoints, loadEndpointRoutes } from '../modules/models/index.ts';
import { endpointModel } from '../protocol/models-text.ts';
import { networkSettings, SettingsModel, SettingsRepo, SettingsService, type SettingsOf, loadSettingsRoutes } from '../modules/settings/index.ts';
import { ChatService, ChatSessionRepo, MessageRepo, chatCommands, loadChatRoutes } from '../modules/chat/index.ts';
import { runCommands, loadRunRoutes } from '../modules/runs/index.ts';
import { systemRoutes } from '../modules/system/index.ts';
import { runningAs } from '../core/service-env.ts';
import { eventRoutes } from '../modules/events/index.ts';
import { MediaStore, mediaRoutes } from '../modules/media/index.ts';
import { TracePinRepo, TraceRetention, traceSettings, loadTraceRoutes } from '../modules/traces/index.ts';
import { DiskUsage, loadDiskRoutes } from '../modules/disk/index.ts';
import { loadProviderRoutes } from '../modules/providers/index.ts';
import { reclaimFreePages } from '../store/vacuum.ts';
import { SkillRegistry, SkillsRepo, skillInstructions, skillsCommand, loadSkillRoutes } from '../modules/skills/index.ts';
import { PiProfiles, prunePiSessions, loadPiRoutes } from '../modules/pi/index.ts';
import { McpInstaller, McpRepo, McpService, syncMcp, loadMcpRoutes } from '../modules/mcp/index.ts';
import { uiRoutes, webDistDir } from '../modules/ui/index.ts';
import { MemoryService, memoryCommand, memorySettings, loadMemoryRoutes } from '../modules/memory/index.ts';
import { GoalRepo, GoalService, goalCommand, goalSettings, scheduleWakeupCall, loadGoalRoutes } from '../modules/goals/index.ts';
import { TaskRepo, TaskService, taskCommand, loadTaskRoutes } from '../modules/tasks/index.ts';
import { browserClientFor, browserCommand, browserSkill, type BrowserClient, loadBrowserRoutes } from '../modules/automation/browser/index.ts';
import {
  lazyVisionClickService,
  visionClickCommand,
  visionClickSkill,
  visionSettings,
  type LazyVisionClick,
  loadVisionClickRoutes,
} from '../modules/automation/vision-click/index.ts';
import {
  RuleService,
  RulesRepo,
  startRoutingProxy,
  webRoutingCommand,
  webRoutingSkill,
  type RoutingProxy,
  loadWebRoutingRoutes,
} from '../modules/automation/web-routing/index.ts';
import { SecurityAudit, loadAuditRoutes } from '../modules/security-audit/index.ts';
import { PermissionsRepo, PermissionsService, permissionRoutes } from '../modules/permissions/index.ts';
import { DEFAULT_CONTACT, loadOrCreateVapidKeys, PushRepo, PushService, pushRoutes, pushSender, pushSettings, type VapidKeys } from '../modules/push/index.ts';
import { ExecutiveAgent, ExecutiveRepo, ExecutiveService, RealtimeVoice, selfFleet, SELF_ID, voiceInstructions, ceoMcpScript, loadExecutiveRoutes } from '../modules/executive/index.ts';
import {
  ChannelService,
  ChannelSessionRepo,
  channelsSettings,
  discordAdapter,
  inboundHandler,
  telegramAdapter,
  loadChannelRoutes,
} from '../modules/channels/index.ts';
import { DEFAULT_OFFLINE_TOOLS, VoiceService, voiceRoutes, voiceSettings, type OfflineTools } from '../modules/voice/index.ts';
import { WebAiService, webAiClient, webAiCommand, webAiSkill, loadWebAiRoutes } from '../modules/automation/web-ai/index.ts';
import {
  EmployeeRepo,
  OrchestrationRepo,
  OrchestrationService,
  orchestrationSettings,
  orchestrationCommands,
  WorkerRunRepo,
  WorkerService,
  WorktreeRepo,
  WorktreeService,
  loadOrchestrationRoutes,
  loadWorkerRoutes,
} from '../modules/orchestration/index.ts';

/** The settings document of the core server: each section declared by its owner. */
export const coreSettings = new SettingsModel({ agent: agentSettings, network: networkSettings, vision: visionSettings, memory: memorySettings, orchestration: orchestrationSettings, goals: goalSettings, channels: channelsSettings, voice: voiceSettings, push: pushSettings, traces: traceSettings, fleet: fleetSettings });
export type CoreSettings = SettingsOf<typeof coreSettings.sections>;

const SKILLS = [browserSkill, visionClickSkill, webRoutingSkill, webAiSkill];
/** How often Pi's old sessions are looked for (as the traces' age bound is). */
const PI_SESSIONS_CHECK_MS = 3_600_000;

export interface CoreOptions {
  home: string;
  /** Injectable for tests: how much a peer address is trusted. */
  classifyPeer?: PeerClassifier;
  heartbeatMs?: number;
  /** How often a machine of a fleet tells its hub it is there (tests). */
  fleetHeartbeatMs?: number;
  /** How often a joined machine looks for its other instances (tests: shorter than the default 10 s). */
  fleetScanMs?: number;
  maxSseListeners?: number;
  /** Working directory for runs when the setting is empty. */
  cwd?: string;
  logLevel?: string;
  /** Base delay of the agent's retry backoff (tests make it short). */
  retryBaseMs?: number;
  killGraceMs?: number;
  /** How long a provider CLI may only wait for the network before it is stopped (default NETWORK_WAIT_MS, 2 minutes). */
  networkWaitMs?: number;
  /** Port of the web-routing proxy started with the server (serve: 3458); absent = not started. */
  proxyPort?: number;
  /** Port of the browser server, started on the first browser command (default 3459). */
  browserPort?: number;
  /** The user's home directory, whose CLI configs POST /api/mcp/sync writes (default: os.homedir()). */
  userHome?: string;
  /** Injectable for tests: the offline voice engine's programs and model (default: Debian's). */
  voiceTools?: Partial<OfflineTools>;
  /** Injectable for tests: the chat channels' connect bound and first retry wait (default 10 s, 5 s). */
  channelTiming?: { connectTimeoutMs?: number; retryBaseMs?: number };
  /**
   * Tests: how long a held tool call waits for a person, read at each request, in place of
   * agent.approvalTimeoutSec (whose 10 s minimum is a production bound); undefined: the setting.
   */
  approvalTimeoutMs?: () => number | undefined;
  /** Serve HTTPS with this certificate (`--tls-cert`/`--tls-key`, read by src/cli/tls-files.ts). */
  tls?: ServerTls;
}

/** What the server is made of (for the CLI and for tests that look inside; modules never get this). */
export interface CoreServices {
  version: string;
  startedAt: number;
  home: HomePaths;
  token: string;
  db: Db;
  bus: EventBus;
  stream: EventStream;
  listeners: { sse: Slots; ws: Slots };
  settings: SettingsService<typeof coreSettings.sections>;
  chat: ChatService;
  providerSessions: ProviderSessionRepo;
  runtime: AgentRuntime;
  orchestration: OrchestrationService;
  workers: WorkerService;
  /** The live main-agent runs' credentials (how routes tell the agent from a human). */
  credentials: RunCredentials;
  commands: CommandRegistry;
  rules: RuleService;
  /** The memory store (its index is brought up to date in the background once the server listens). */
  memory: MemoryService;
  /** The security audit log (other parts record into it). */
  audit: SecurityAudit;
  /** The chat channels (Telegram, Discord). */
  channels: ChannelService;
  mcp: McpService;
  detector: CliDetector;
  /** Client of the browser server (which it starts on first use). */
  browser: BrowserClient;
  /** The vision-click skill (loaded on first use: OCR and image code stay off the start-up path). */
  visionClick: LazyVisionClick;
  /** The web-routing proxy, when started. */
  proxy?: RoutingProxy;
  goals: GoalService;
  tasks: TaskService;
  permissions: PermissionsService;
  /** Web Push to the devices that turned notifications on. */
  push: PushService;
  /** Trace retention (the oldest traces beyond the `traces` settings go). */
  traceRetention: TraceRetention;
  /** Set once the server listens; given to provider CLIs as SVC_URL so skills can call back. */
  serverUrl?: string;
}

export interface CoreServer {
  services: CoreServices;
  http: FastifyInstance;
  /** Listens, then starts the web-routing proxy when asked for one: a proxy that cannot listen is a ProxyListenError. */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The web-routing proxy asked for could not listen. Not a warning: HTTP_PROXY clients pointed at the port
 * would reach whatever holds it, with no rule applied, and nothing but a line scrolled past would say so.
 */
export class ProxyListenError extends Error {
  constructor(readonly port: number, readonly code: string | undefined, cause: Error) {
    super(`the web-routing proxy cannot listen on 127.0.0.1:${port}: ${code ?? cause.message}`, { cause });
  }
}

export async function createCoreServer(options: CoreOptions): Promise<CoreServer> {
  const startedAt = Date.now();
  const home = ensureHome(options.home);
  const lock = acquireServerLock(home.lock);
  try {
    return await compose(options, home, lock, startedAt);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function compose(options: CoreOptions, home: HomePaths, lock: ServerLock, startedAt: number): Promise<CoreServer> {
  const cwd = options.cwd ?? process.cwd();
  const db = openDatabase(home.database);
  const audit = new SecurityAudit(db);
  const bus = new EventBus((err, event) => console.error(`svc: listener of '${event.name}' failed:`, err));
  // Provider CLIs left running by a server that crashed are ended before anything else starts.
  reapOrphans(home.pids);
  // Private directories of runs a crash interrupted (MCP configs with secrets among them).
  clearRunDirs(home.runs);
  const settings = new SettingsService(coreSettings, new SettingsRepo(db), bus);
  const providerSessions = new ProviderSessionRepo(db);
  const runs = new RunRepo(db);
  runs.markAbandoned();
  const token = loadOrCreateToken(home.token);
  const mcp = new McpService({ repo: new McpRepo(db), bus, isProvider: isProviderId });
  const piProfiles = new PiProfiles(home.piAgent);
  const recorder: TraceRecorder = new TraceRecorder(
    home.traces,
    bus,
    () => [token, ...coreSettings.secretValues(settings.get()), ...mcp.secretValues(), ...piProfiles.secretValues()],
    (traceId, previousBytes): Promise<void> => retention.ended(traceId, previousBytes),
  );
  // the traces stay within the `traces` settings; the directory is scanned once, after listen
  const retention: TraceRetention = new TraceRetention({ dir: home.traces, settings: () => settings.get().traces, pins: new TracePinRepo(db), inFlight: (id): boolean => recorder.isOpen(id) });
  const shimDir = writeSvcShim(home.root);
  // A credential reaches a CLI only from the runtime, for its own run: never inherited from the
  // server's environment or set in agent.env.
  const providerEnv = () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...settings.get().agent.env };
    delete env[RUN_TOKEN_ENV];
    return { ...env, PATH: `${shimDir}:${env.PATH ?? ''}` };
  };
  const credentials = new RunCredentials();
  const permissions = new PermissionsService({ repo: new PermissionsRepo(db), bus, audit, timeoutMs: () => options.approvalTimeoutMs?.() ?? settings.get().agent.approvalTimeoutSec * 1000 });
  // read (and checked, with node:crypto) when a device subscribes or a push is sent, not at every start
  let vapidKeys: VapidKeys | undefined;
  const vapid = () => (vapidKeys ??= loadOrCreateVapidKeys(home.vapidKeys));
  const push = new PushService({
    repo: new PushRepo(db),
    bus,
    audit,
    permissions,
    settings: () => settings.get().push,
    vapidPublicKey: () => vapid().publicKey,
    send: pushSender(vapid, () => settings.get().push.contact || DEFAULT_CONTACT),
    sessionOfRun: (traceId) => runs.get(traceId)?.chatSessionId,
    goalObjective: (sessionId) => goals.view(sessionId).goal?.objective,
  });
  // Detection starts on the first GET /api/cli-status, never on the start-up path.
  const detector = new CliDetector({
    paths: () => settings.get().agent.executables,
    customCommand: () => settings.get().agent.customCommand,
    pathEnv: () => providerEnv().PATH,
    workingDir: () => settings.get().agent.workingDir || cwd,
    env: providerEnv,
  });
  let serverUrl: string | undefined;
  // Over HTTPS, the processes this server starts get its certificate's fingerprint with its URL: their
  // `svc …` commands (and the browser server's rule fetches) pin it, whatever CA it was made with.
  const pinEnv = (): Record<string, string> => (serverUrl && options.tls ? { [TLS_PIN_ENV]: options.tls.fingerprint } : {});
  const browser = browserClientFor({ home: home.root, port: options.browserPort, parentPid: process.pid, coreUrl: () => serverUrl, corePin: () => options.tls?.fingerprint });
  // the model servers the user runs (docs/models.md): a run's model `<endpoint>/<model>` names one
  const endpoints = new ModelEndpoints({
    repo: new EndpointsRepo(db),
    providerIds: PROVIDER_IDS,
    env: () => ({ ...process.env, ...settings.get().agent.env }),
    // Pi reads its models from svc's own Pi directory: the endpoints are written there beside its profiles
    onChange: (all) => piProfiles.syncEndpoints(all),
    usedBy: (id) => {
      const on = (model: string) => endpointModel(model)?.id === id;
      return [
        ...(on(settings.get().agent.model) ? ["the agent's model (Settings › Agent)"] : []),
        ...(on(executive.settings().model) ? ["the executive's model"] : []),
        ...employees.list().filter((e) => on(e.model)).map((e) => `the employee ${e.id}`),
      ];
    },
  });
  // What every provider run gets from the settings, whichever kind it is (chat, worker, one-shot, executive):
  // agent/run-request.ts makes each run's request from these.
  const runSources: RunSources = {
    settings: () => settings.get().agent,
    executable: (provider) => settings.get().agent.executables[provider] ?? provider,
    mcpServers: (provider) => mcp.forRun(provider),
    skills: () => skills.enabledDirs(),
    endpoint: (id) => endpoints.forRun(id),
  };
  /** The environment of every provider run, before what is the run's own (its credential, its adapter's variables). */
  const runEnv = (): NodeJS.ProcessEnv => ({
    ...providerEnv(),
    SVC_HOME: home.root,
    // Pi reads its models and keeps its sessions in svc's own directory, never the user's ~/.pi.
    PI_CODING_AGENT_DIR: home.piAgent,
    SVC_BROWSER_PORT: String(browser.port),
    SVC_SERVER_PID: String(process.pid),
    ...(serverUrl ? { SVC_URL: serverUrl } : {}),
    ...pinEnv(),
  });
  const quota = new QuotaReader({
    codexHome: () => settings.get().agent.env.CODEX_HOME ?? process.env.CODEX_HOME,
    store: new QuotaObservationRepo(db),
  });
  const skills = new SkillRegistry({
    builtIns: SKILLS,
    homeDir: home.skills,
    npmPrefix: home.skillsNpm,
    repo: new SkillsRepo(db),
    env: providerEnv,
    audit,
  });
  // The chat and the runtime need each other: the runtime saves into the chat, and clearing a chat
  // stops its runs. The chat reaches the runtime only when a session is cleared or deleted.
  const chat = new ChatService(new ChatSessionRepo(db), new MessageRepo(db), bus, {
    stopSessionWork: (sessionId, reason) => runtime.stopSessionWork(sessionId, reason),
    forgetProviderSessions: (sessionId) => runtime.forgetProviderSessions(sessionId),
  });
  const memory = new MemoryService({
    root: home.memory,
    db,
    bus,
    settings: () => settings.get().memory,
    messagesAfter: (afterId, limit) => chat.messages.newestAfter(afterId, limit),
    runSummary: (prompt, summarize) => {
      const provider = summarize.provider || settings.get().agent.provider;
      return runOnce({
        sources: runSources,
        provider,
        model: summarize.model,
        prompt,
        env: runEnv(),
        scratchRoot: home.runs,
        pidDir: home.pids,
        timeoutMs: 180_000,
      });
    },
  });
  const runtime: AgentRuntime = new AgentRuntime({
    ...runSources,
    bus,
    transcript: chat,
    providerSessions,
    runs,
    recorder,
    pidDir: home.pids,
    scratchRoot: home.runs,
    cwd,
    systemPrompt: async (prompt, sessionId) =>
      [
        settings.get().agent.systemPrompt,
        skillInstructions(skills.enabledBuiltIns(), skills.enabledDirs()),
        goals.policyFor(sessionId),
        await memory.promptBlock(prompt),
        orchestration.promptBlock(sessionId),
      ]
        .filter(Boolean)
        .join('\n\n'),
    credentials,
    baseEnv: runEnv,
    onProviderOutcome: (provider, outcome) => {
      if (outcome.ok) quota.observe(provider, { kind: 'ok', at: Date.now() });
      else if (outcome.failure === 'rate_limit') quota.observe(provider, { kind: 'rate_limit', at: Date.now(), message: outcome.message });
    },
    permissions,
    onRunEnd: (end) => {
      // a call held for a person has no CLI waiting once its run is over
      permissions.endRun(end.traceId);
      goals.onRunEnd(end);
    },
    onDropped: (requestIds) => goals.onDropped(requestIds),
    // a CLI svc knows is not logged in is not started (codex offline would wait for the network for ever)
    missingLogin: (provider) => detector.missingLogin(provider),
    activeSession: () => chat.activeSession().id,
    retryBaseMs: options.retryBaseMs,
    killGraceMs: options.killGraceMs,
    networkWaitMs: options.networkWaitMs,
  });
  const workingDir = () => settings.get().agent.workingDir || cwd;
  const voice = new VoiceService(() => settings.get().voice, { ...DEFAULT_OFFLINE_TOOLS, ...options.voiceTools });
  const executiveRepo = new ExecutiveRepo(db);
  const executive = new ExecutiveService({
    repo: executiveRepo,
    bus,
    securityAudit: audit,
    notesDir: join(home.root, 'notes'),
    // an instance transcribes with its own voice section (POST /api/voice)
    voiceConfigured: () => voice.ready(),
    fleet: selfFleet({
      label: 'this instance',
      status: () => runtime.status(),
      startedAt,
      workingDir,
      submit: (prompt) => runtime.submit({ prompt, sessionId: chat.activeSession().id }),
    }),
  });
  const executiveAgent = new ExecutiveAgent({
    service: executive,
    repo: executiveRepo,
    scope: 'instance',
    workDir: join(home.root, 'ceo-work'),
    settings: () => executive.settings(),
    sources: runSources,
    baseEnv: runEnv,
    mcpScript: ceoMcpScript(home.root),
    selfUrl: () => serverUrl ?? '',
    selfPin: () => options.tls?.fingerprint,
    token,
    pidDir: home.pids,
    scratchRoot: home.runs,
  });
  // its completions come from this server's own agent_done events
  bus.subscribe((event) => {
    const p = event.payload as { requestId?: unknown; status?: unknown; text?: unknown; messageId?: unknown };
    if (event.name !== 'agent_done' || typeof p.requestId !== 'string') return;
    executive.runDone({ instanceId: SELF_ID, requestId: p.requestId, status: String(p.status), text: String(p.text ?? ''), ...(typeof p.messageId === 'number' ? { messageId: p.messageId } : {}) });
  });
  // watched runs of an earlier boot of this server were lost with it: each ends as a `lost` completion
  void executive.catchUp(SELF_ID);
  const orchestration = new OrchestrationService({
    repo: new OrchestrationRepo(db),
    bus,
    settings: () => settings.get().orchestration,
    session: (id) => (id === undefined ? chat.activeSession().id : chat.requireSession(id).id),
    cwd: workingDir,
    env: providerEnv,
    pidDir: home.pids,
    cancelWorkers: (sessionId, reason) => workers.cancelSession(sessionId, reason),
    openWorktrees: (sessionId): string[] => workers.openWorktrees().filter((w: { sessionId: string }) => w.sessionId === sessionId).map((w: { runId: string }) => w.runId),
    audit,
  });
  const employees = new EmployeeRepo(db);
  const workerRuns = new WorkerRunRepo(db);
  const workers = new WorkerService({
    db,
    repo: workerRuns,
    employees,
    orchestration,
    bus,
    recorder,
    settings: () => settings.get().orchestration,
    sources: runSources,
    env: runEnv,
    cwd: workingDir,
    pidDir: home.pids,
    scratchRoot: home.runs,
    deliver: (sessionId, text) => void runtime.submit({ prompt: text, sessionId }),
    note: (sessionId, content, meta) => void chat.saveMessage({ sessionId, role: 'system', content, meta }),
    missingLogin: (provider) => detector.missingLogin(provider),
    networkWaitMs: options.networkWaitMs,
    memoryContext: async (task) => (await memory.workerContext(task)).text,
    killGraceMs: options.killGraceMs,
    audit,
    worktrees: new WorktreeService({ repo: new WorktreeRepo(db), root: home.worktrees }),
  });
  const goals: GoalService = new GoalService({
    db,
    mergedRun: (runId) => workers.get(runId)?.worktree?.state === 'merged',
    repo: new GoalRepo(db),
    bus,
    agent: { submit: (input): { requestId: string } => runtime.submit(input) },
    orchestration: {
      phaseOf: (sessionId) => orchestration.state(sessionId).phase,
      busyWorkers: () => workers.list({ status: 'running', limit: 1000 }).length,
      undeliveredResults: (sessionId) => workerRuns.undelivered().filter((run) => run.sessionId === sessionId).length,
    },
    activeSession: () => chat.activeSession().id,
    defaultRoot: () => settings.get().agent.workingDir || cwd,
    settings: () => settings.get().goals,
  });
  const tasks = new TaskService(new TaskRepo(db), bus);
  // Each worker run dispatched counts against the goal budget of the chat that dispatched it.
  bus.subscribe((event) => {
    if (event.name === 'worker_run' && event.payload.status === 'queued') goals.recordDispatch(String(event.payload.sessionId));
  });
  // Claude Code's own ScheduleWakeup tool call becomes a wakeup of the chat it ran in.
  bus.subscribe((event) => {
    if (event.name !== 'agent_tool' || event.payload.status !== 'running') return;
    const call = scheduleWakeupCall(String(event.payload.name), event.payload.input as Record<string, unknown>);
    const sessionId = runtime.status().active?.sessionId;
    if (!call || !sessionId) return;
    try {
      goals.wakeup(sessionId, call);
    } catch {
      // the refusal went out as schedule_wakeup_failed
    }
  });
  const rules = new RuleService(new RulesRepo(db), {
    onInvalidRule: (rule, err) => console.error(`svc: web-routing rule #${rule.id} is skipped: ${(err as Error).message}`),
  });
  const visionClick = auditedDesktopActions(lazyVisionClickService({
    settings: () => settings.get().vision,
    mediaDir: home.media,
    browser,
    env: providerEnv,
    executable: (provider) => settings.get().agent.executables[provider],
  }), audit, () => settings.get().vision.target);
  // Attachments come from the working directory (or uploads); code is written only under it.
  const webAi = new WebAiService(webAiClient((method, path, body, timeoutMs) => browser.request(method, path, body, timeoutMs)), {
    workingDir: () => settings.get().agent.workingDir || cwd,
    inputRoots: () => [home.media],
  });
  const media = new MediaStore(home.media);
  media.removePartials();
  // What detection read may have changed (a path, the custom command, a key in agent.env).
  bus.subscribe((event) => {
    if (event.name === 'settings_changed' && (event.payload.sections as string[]).includes('agent')) detector.invalidate();
    if (event.name === 'settings_changed' && (event.payload.sections as string[]).includes('traces')) void retention.prune();
    // a deleted or emptied chat frees pages: given back to the disk after the answer has gone
    if (event.name === 'session_deleted' || event.name === 'chat_cleared') setImmediate(() => db.open && reclaimFreePages(db));
  });
  // The chat's queue count is the shown session's own: another session shown, another count (told after
  // the switch itself has reached every listener, so clients see the switch first).
  bus.subscribe((event) => {
    if (event.name === 'session_switched') queueMicrotask(() => runtime.announceQueue());
  });
  const stream = new EventStream(bus, { heartbeatMs: options.heartbeatMs });
  const listeners = { sse: new Slots(options.maxSseListeners ?? MAX_SSE_LISTENERS), ws: new Slots(MAX_WS_LISTENERS) };
  const peers = options.classifyPeer ?? classifyPeer;
  const actorOf = (address: string | undefined) => actorOfPeer(peers, address);
  let settingsBefore = settings.get();
  bus.subscribe((event) => {
    if (event.name !== 'settings_changed') return;
    const after = settings.get();
    const { fields, secrets } = coreSettings.changedFields(settingsBefore, after);
    settingsBefore = after;
    audit.record({ actor: 'user', action: secrets.length ? 'settings.secrets' : 'settings.change', target: (event.payload.sections as string[]).join(','), outcome: 'ok', details: { fields, secrets } });
  });

  const commands = new CommandRegistry();
  commands.register(
    ...runCommands({ registry: commands, runtime, chat, settings, providers: () => detector.settled(8000) }),
    ...chatCommands(chat),
    browserCommand(browser),
    webRoutingCommand(rules),
    visionClickCommand({ service: visionClick }),
    webAiCommand(webAi),
    memoryCommand(memory),
    ...orchestrationCommands(orchestration, workers),
    goalCommand(goals),
    taskCommand(tasks),
    skillsCommand(skills),
  );

  const channelSessions = new ChannelSessionRepo(db);
  const channels = new ChannelService({
    settings: () => settings.get().channels,
    allow: (name, chatId) => {
      const allowlist = settings.get().channels[name].allowlist;
      if (!allowlist.includes(chatId)) settings.update({ channels: { [name]: { allowlist: [...allowlist, chatId] } } });
    },
    adapters: { telegram: telegramAdapter, discord: discordAdapter },
    ...(options.channelTiming ? { timing: options.channelTiming } : {}),
    audit,
    bus,
    permissions,
    chatOf: (sessionId) => channelSessions.chatOf(sessionId),
    paths: () => ({ workingDir: settings.get().agent.workingDir || cwd, mediaDir: home.media, home: home.root }),
    onInbound: inboundHandler({
      sessions: channelSessions,
      chat: { createSession: (title, activate) => chat.createSession(title, activate), exists: (id) => chat.sessions.get(id) !== undefined },
      runtime,
      commands,
      media,
      // voice notes are transcribed when an engine can run, and attached either way
      transcribe: async (audio, mime, name) => (voice.ready() ? (await voice.transcribe(audio, mime, extname(name).slice(1))).text : ''),
    }),
  });
  bus.subscribe((event) => {
    if (event.name === 'settings_changed' && (event.payload.sections as string[]).includes('channels')) channels.settingsChanged();
    // answers of runs started in the web UI or the CLI go to the last chat, where a channel forwards
    if (event.name === 'message' && event.payload.role === 'assistant' && !channelSessions.chatOf(event.payload.sessionId as string)) void channels.forward(event.payload.content as string);
  });

  const http = await createServer({
    info: { title: 'svc', version: VERSION, description: 'The core server of svc, a local agent runtime.' },
    logLevel: options.logLevel,
    websocket: true,
    tls: options.tls,
    guard: {
      token,
      classifyPeer: peers,
      network: () => settings.get().network,
      onRefused: (refusal) =>
        audit.recordLimited(`${refusal.code}:${refusal.peer}`, {
          actor: actorOf(refusal.peer),
          action: 'auth.refused',
          target: `${refusal.method} ${refusal.path}`,
          outcome: 'refused',
          details: { code: refusal.code },
        }),
    },
  });
  http.addHook('onResponse', async (request, reply) => {
    // media fetched by anything but the UI's own pages (a script, another machine, a link opened elsewhere)
    if (request.routeOptions.url === '/media/:filename' && reply.statusCode === 200 && request.headers['sec-fetch-site'] !== 'same-origin') {
      audit.recordLimited(`media:${request.socket.remoteAddress}`, {
        actor: actorOf(request.socket.remoteAddress),
        action: 'media.serve',
        target: (request.params as { filename: string }).filename,
        outcome: 'ok',
      });
      return;
    }
    if (request.routeOptions.url !== '/api/auth/token') return;
    // 401s were refused (and recorded) by the guard before the route ran
    if (reply.statusCode === 401) return;
    const issued = reply.statusCode === 200;
    const input = { actor: actorOf(request.socket.remoteAddress), action: 'token.issue', target: '/api/auth/token', outcome: issued ? ('ok' as const) : ('refused' as const), details: { status: reply.statusCode } };
    if (issued) audit.record(input);
    else audit.recordLimited(`token:${request.socket.remoteAddress}`, input);
  });
  /** This machine's connection to its fleet's hub, made on listen when the home joined one, and the instances it offers. */
  let fleetMember: FleetMember | undefined;
  let fleetInstances: LocalInstances | undefined;
  await http.register(systemRoutes, {
    version: VERSION,
    startedAt,
    home: home.root,
    service: runningAs(process.env),
    token,
    classifyPeer: peers,
    activeSession: () => chat.activeSession(),
    agent: () => ({ ...settings.get().agent, workingDir: settings.get().agent.workingDir || cwd }),
    runtime: () => runtime.status(),
    fleet: () => fleetMember?.status() ?? null,
    events: () => ({ streamId: stream.streamId, lastSeq: stream.lastSeq, sseListeners: listeners.sse.inUse, sseCapacity: listeners.sse.capacity, wsListeners: listeners.ws.inUse }),
  });
  // The groups declared with defineLazyRoutes are built on their first request (src/http/lazy-routes.ts):
  // their modules and schemas stay off the start-up path. Their dependencies are made then too.
  defineLazyRoutes(
    http,
    ['/api/messages', '/api/messages/*', '/api/chat-sessions', '/api/chat-sessions/*'],
    routesOf(loadChatRoutes, () => ({ chat })),
  );
  defineLazyRoutes(
    http,
    ['/api/svc-ceo/*'],
    routesOf(loadExecutiveRoutes, () => ({
      executive,
      agent: executiveAgent,
      voice: new RealtimeVoice({ service: executive, settings: () => executive.settings().realtime, instructions: () => voiceInstructions('instance') }),
      token,
      events: { stream, sse: listeners.sse },
    })),
  );
  await http.register(eventRoutes, { stream, listeners });
  defineLazyRoutes(http, ['/api/settings', '/api/settings/*'], routesOf(loadSettingsRoutes, () => ({ settings })));
  defineLazyRoutes(
    http,
    ['/api/message', '/api/commands', '/api/command', '/api/stop', '/api/clear', '/api/session/reset'],
    routesOf(loadRunRoutes, () => ({ runtime, chat, commands, media, resolveRun: (token) => credentials.resolve(token) })),
  );
  defineLazyRoutes(
    http,
    ['/api/traces/*'],
    routesOf(loadTraceRoutes, () => ({
      runs,
      dir: home.traces,
      retention,
      knownRun: (runId) => runs.get(runId) !== undefined || workerRuns.get(runId) !== undefined,
      inFlight: (runId) => recorder.isOpen(runId),
      resolveRun: (runToken) => credentials.resolve(runToken),
    })),
  );
  const disk = new DiskUsage({ home, db, traces: () => retention.stats(), traceSettings: () => settings.get().traces });
  defineLazyRoutes(http, ['/api/disk'], routesOf(loadDiskRoutes, () => ({ disk })));
  defineLazyRoutes(http, ['/api/skills', '/api/skills/*'], routesOf(loadSkillRoutes, () => ({ skills, actorOf })));
  defineLazyRoutes(http, ['/api/pi/*'], routesOf(loadPiRoutes, () => ({ profiles: piProfiles })));
  defineLazyRoutes(
    http,
    ['/api/mcp', '/api/mcp/*'],
    routesOf(loadMcpRoutes, () => ({
      mcp,
      sync: (targets, dryRun) => syncMcp({ userHome: () => options.userHome ?? homedir(), svcHome: home.root, serversFor: (target) => mcp.forRun(target) }, targets, dryRun),
      installer: new McpInstaller({ prefix: home.mcp, env: providerEnv, progress: (event) => bus.publish('mcp_install', event) }),
      audit,
      actorOf,
    })),
  );
  defineLazyRoutes(http, ['/api/web-routing/*'], routesOf(loadWebRoutingRoutes, () => ({ rules })));
  defineLazyRoutes(
    http,
    ['/api/browser/*'],
    routesOf(loadBrowserRoutes, () => ({ api: browser })),
    routesOf(loadWebAiRoutes, () => ({ api: webAi })),
  );
  defineLazyRoutes(http, ['/api/vision-click'], routesOf(loadVisionClickRoutes, () => ({ service: visionClick })));
  await http.register(mediaRoutes, { media, resolveRun: (runToken) => credentials.resolve(runToken) });
  defineLazyRoutes(
    http,
    ['/api/goal', '/api/goal/*', '/api/goal-run', '/api/goal-run/*', '/api/wakeup'],
    routesOf(loadGoalRoutes, () => ({ goals, resolveRun: (token) => credentials.resolve(token) })),
  );
  defineLazyRoutes(http, ['/api/task'], routesOf(loadTaskRoutes, () => ({ tasks })));
  defineLazyRoutes(
    http,
    ['/api/svc-memory/*', '/api/memory/*'],
    routesOf(loadMemoryRoutes, () => ({ memory, settings: () => settings.get().memory })),
  );
  defineLazyRoutes(
    http,
    ['/api/cli-registry', '/api/cli-status', '/api/quota'],
    routesOf(loadProviderRoutes, () => ({
      detector,
      quota,
      active: () => settings.get().agent,
      extraModels: (provider) => [...(provider === 'pi' ? piProfiles.modelOptions() : []), ...endpoints.modelOptions(provider)],
    })),
  );
  defineLazyRoutes(
    http,
    ['/api/orchestrate/*', '/api/employees', '/api/employees/*'],
    routesOf(loadOrchestrationRoutes, () => ({
      orchestration,
      workers,
      resolveRun: (token) => credentials.resolve(token),
      runtime: () => runtime.status(),
      queue: { list: () => runtime.queued(), drop: (id) => runtime.dropQueued(id), runNow: (id) => runtime.runQueuedNow(id) },
    })),
    routesOf(loadWorkerRoutes, () => ({
      orchestration,
      workers,
      employees,
      resolveRun: (token) => credentials.resolve(token),
      traceDir: home.traces,
      waitMs: () => settings.get().orchestration.workerTimeoutSec * 1000,
    })),
  );
  defineLazyRoutes(http, ['/api/security-audit/*'], routesOf(loadAuditRoutes, () => ({ audit })));
  defineLazyRoutes(http, ['/api/models/endpoints', '/api/models/endpoints/*'], routesOf(loadEndpointRoutes, () => ({ endpoints })));
  await http.register(permissionRoutes, { permissions, audit, resolveRun: (runToken) => credentials.resolve(runToken), actorOf });
  await http.register(pushRoutes, { push, isAgent: (request) => callerOf(request, (runToken) => credentials.resolve(runToken)).kind === 'agent', actorOf });
  defineLazyRoutes(
    http,
    ['/api/channels', '/api/channels/*', '/api/channel/*', '/api/chatappa/*', '/api/chatappb/*'],
    routesOf(loadChannelRoutes, () => ({ channels, actorOf })),
  );
  await http.register(voiceRoutes, {
    voice,
    submit: (text) => {
      const sessionId = chat.activeSession().id;
      return { sessionId, ...runtime.submit({ prompt: text, sessionId }) };
    },
  });
  await http.register(uiRoutes, { version: VERSION, dist: webDistDir(), installable: true });
  await http.ready();

  const services: CoreServices = {
    version: VERSION,
    startedAt,
    home,
    token,
    db,
    bus,
    stream,
    listeners,
    settings,
    chat,
    providerSessions,
    runtime,
    orchestration,
    workers,
    credentials,
    commands,
    rules,
    memory,
    audit,
    channels,
    mcp,
    detector,
    browser,
    visionClick,
    goals,
    tasks,
    permissions,
    push,
    traceRetention: retention,
  };
  let closed = false;
  let piSessionsTimer: NodeJS.Timeout | undefined;
  return {
    services,
    http,
    async listen(port, host) {
      const address = await http.listen({ port, host });
      serverUrl = services.serverUrl = address;
      lock.listening(address, options.tls?.fingerprint);
      // the proxy before anything starts work (runs, channels): a server that cannot have it stops at once
      if (options.proxyPort !== undefined) {
        try {
          services.proxy = await startRoutingProxy({ rules, port: options.proxyPort, host: '127.0.0.1' });
        } catch (err) {
          throw new ProxyListenError(options.proxyPort, (err as NodeJS.ErrnoException).code, err as Error);
        }
      }
      // after listening: the memory index and the chat channels are never on the start-up path
      memory.start();
      // worker runs the last server left: orphaned ones end, undelivered results go out, the queue resumes
      workers.recover();
      goals.start();
      // notifications follow permission requests (and, by setting, runs, goals and workers) from now on
      push.start();
      // requests the last process left pending have no CLI waiting any more: denied, and said so
      permissions.start();
      channels.start();
      // the one scan of the traces directory (thousands of files) waits for the server to be answering
      setImmediate(() => void retention.start());
      // Pi's sessions age out with the traces (modules/pi/sessions.ts)
      const prunePi = () => void prunePiSessions(home.piAgent, settings.get().traces.maxAgeDays).catch((err: Error) => console.error('svc: pruning Pi sessions failed:', err.message));
      setImmediate(prunePi);
      piSessionsTimer = setInterval(prunePi, PI_SESSIONS_CHECK_MS).unref();
      // a machine that joined a fleet connects out to its hub (the NATS client loads only then)
      const fleet = existsSync(home.fleetMembership) ? await loadFleetMachine() : undefined;
      const membership = fleet?.readMembership(home.root);
      if (fleet && membership) {
        const { FleetMember, LocalInstances, handToServer, localWork } = fleet;
        const fleetLog = createLog(parseLogLevel(options.logLevel, 'info'));
        const local = new LocalInstances({
          own: {
            home: home.root,
            url: () => address,
            token,
            version: VERSION,
            provider: () => settings.get().agent.provider || null,
            busy: () => runtime.status().busy,
            accept: (connection) => handToServer(http.server, connection),
            events: (sink) => {
              stream.attach(sink, `${stream.streamId}-0`);
              return () => stream.detach(sink);
            },
          },
          scan: () => settings.get().fleet.scan,
          ...(options.fleetScanMs !== undefined ? { scanMs: options.fleetScanMs } : {}),
        });
        fleetInstances = local;
        void local.start();
        const member = new FleetMember({
          home: home.root,
          membership,
          version: VERSION,
          instances: () => local.list(),
          token: (key) => local.token(key),
          accept: (key, connection) => local.accept(key, connection),
          events: (key, outbox) => local.events(key, outbox),
          work: localWork({
            instance: local.ownKey,
            settings: () => settings.get(),
            providers: () => detector.settled(5_000),
            createSession: (title) => chat.createSession(title, false),
            submit: (input) => runtime.submit(input),
          }),
          ...(options.fleetHeartbeatMs !== undefined ? { heartbeatMs: options.fleetHeartbeatMs } : {}),
          onState: (state, detail) => {
            const line = `fleet: ${state}${detail ? ` (${detail})` : ''}`;
            if (state === 'revoked') fleetLog.warn(line);
            else fleetLog.info(line);
          },
        });
        fleetMember = member;
        void member.start().catch((err: Error) => fleetLog.error(`fleet: cannot connect to ${membership.url}: ${err.message}`));
      }
      return address;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Goals first: a turn the stop cuts stays on record as running, and resumes at the next start.
      goals.close();
      // the fleet's items under way go back to its queue at once (another machine takes them), before their runs are cut
      fleetMember?.stopWork();
      // Runs first: their CLIs are killed and their final events written while clients still listen.
      await workers.close();
      await runtime.close();
      // ...and while the hub still listens: the fleet's outboxes send them before the connection closes
      await fleetMember?.close();
      fleetInstances?.close();
      permissions.close();
      // the last notifications (a run's end denied what it left pending) go out before the database closes
      await push.close();
      await channels.close();
      await memory.close();
      await detector.close();
      await visionClick.close();
      await http.close();
      await services.proxy?.close();
      // a browser server this process started goes with it; one the user started stays
      if (browser.spawnedServer) await browser.shutdown();
      await recorder.close();
      retention.close();
      clearInterval(piSessionsTimer);
      stream.close();
      closeDatabase(db);
      lock.release();
    },
  };
}

/** Vision actions on the desktop (not in the controlled browser) reach outside svc: each one is an audit entry. */
function auditedDesktopActions(inner: LazyVisionClick, audit: SecurityAudit, defaultTarget: () => string): LazyVisionClick {
  return {
    async run(request) {
      if ((request.target ?? defaultTarget()) !== 'desktop') return inner.run(request);
      const entry = { actor: 'agent', action: 'vision.desktop', target: request.action, details: { description: request.description ?? '', dryRun: Boolean(request.dryRun) } };
      try {
        const result = await inner.run(request);
        audit.record({ ...entry, outcome: 'ok' });
        return result;
      } catch (err) {
        audit.record({ ...entry, outcome: 'failed', details: { ...entry.details, error: (err as { code?: string }).code ?? 'INTERNAL' } });
        throw err;
      }
    },
    close: () => inner.close(),
  };
}

/** `<home>/bin/svc`: lets provider CLIs call `svc browser …` whether or not svc is on their PATH. */
function writeSvcShim(root: string): string {
  const dir = join(root, 'bin');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(join(dir, 'svc'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(SVC_BIN)} "$@"\n`);
  chmodSync(join(dir, 'svc'), 0o755);
  return dir;
}
