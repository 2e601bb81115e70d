// The core server's composition root (`svc serve`): opens storage, builds the services, mounts each
// module's routes and commands on the server kit, and closes everything in order. This is the only
// file that knows every module; each module gets just the dependencies it names.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { ensureHome, type HomePaths } from '../core/home.ts';
import { loadOrCreateToken } from '../core/token.ts';
import { acquireServerLock, type ServerLock } from '../core/server-lock.ts';
import { SVC_BIN, VERSION } from '../core/version.ts';
import { closeDatabase, openDatabase, type Db } from '../store/db.ts';
import { EventBus } from '../events/bus.ts';
import { EventStream } from '../events/stream.ts';
import { MAX_SSE_LISTENERS, MAX_WS_LISTENERS, Slots } from '../events/slots.ts';
import { createServer } from '../http/create-server.ts';
import { classifyPeer, type PeerClassifier } from '../http/peers.ts';
import { AgentRuntime } from '../agent/runtime.ts';
import { CommandRegistry } from '../agent/commands.ts';
import { CliDetector } from '../agent/detect.ts';
import { QuotaReader } from '../agent/quota.ts';
import { QuotaObservationRepo } from '../agent/quota.repo.ts';
import { ProviderSessionRepo, RunRepo } from '../agent/runs.repo.ts';
import { agentSettings } from '../agent/settings.ts';
import { reapOrphans } from '../agent/process.ts';
import { runOnce } from '../agent/one-shot.ts';
import { TraceRecorder } from '../agent/traces.ts';
import { isProviderId, type ProviderId } from '../agent/providers/registry.ts';
import { networkSettings, SettingsModel, SettingsRepo, SettingsService, settingsRoutes, type SettingsOf } from '../modules/settings/index.ts';
import { ChatService, ChatSessionRepo, MessageRepo, chatCommands, chatRoutes } from '../modules/chat/index.ts';
import { runCommands, runRoutes } from '../modules/runs/index.ts';
import { systemRoutes } from '../modules/system/index.ts';
import { eventRoutes } from '../modules/events/index.ts';
import { MediaStore, mediaRoutes } from '../modules/media/index.ts';
import { traceRoutes } from '../modules/traces/index.ts';
import { providerRoutes } from '../modules/providers/index.ts';
import { SkillRegistry, SkillsRepo, skillInstructions, skillRoutes, skillsCommand } from '../modules/skills/index.ts';
import { PiProfiles, piRoutes } from '../modules/pi/index.ts';
import { McpInstaller, McpRepo, McpService, mcpRoutes, syncMcp } from '../modules/mcp/index.ts';
import { uiRoutes, webDistDir } from '../modules/ui/index.ts';
import { MemoryService, memoryCommand, memoryRoutes, memorySettings } from '../modules/memory/index.ts';
import { browserClientFor, browserCommand, browserRoutes, browserSkill, type BrowserClient } from '../modules/automation/browser/index.ts';
import {
  lazyVisionClickService,
  visionClickCommand,
  visionClickRoutes,
  visionClickSkill,
  visionSettings,
  type LazyVisionClick,
} from '../modules/automation/vision-click/index.ts';
import {
  RuleService,
  RulesRepo,
  startRoutingProxy,
  webRoutingCommand,
  webRoutingRoutes,
  webRoutingSkill,
  type RoutingProxy,
} from '../modules/automation/web-routing/index.ts';
import { WebAiService, webAiClient, webAiCommand, webAiRoutes, webAiSkill } from '../modules/automation/web-ai/index.ts';

/** The settings document of the core server: each section declared by its owner. */
export const coreSettings = new SettingsModel({ agent: agentSettings, network: networkSettings, vision: visionSettings, memory: memorySettings });
export type CoreSettings = SettingsOf<typeof coreSettings.sections>;

const SKILLS = [browserSkill, visionClickSkill, webRoutingSkill, webAiSkill];

export interface CoreOptions {
  home: string;
  /** Injectable for tests: how much a peer address is trusted. */
  classifyPeer?: PeerClassifier;
  heartbeatMs?: number;
  maxSseListeners?: number;
  /** Working directory for runs when the setting is empty. */
  cwd?: string;
  logLevel?: string;
  /** Base delay of the agent's retry backoff (tests make it short). */
  retryBaseMs?: number;
  killGraceMs?: number;
  /** Port of the web-routing proxy started with the server (serve: 3458); absent = not started. */
  proxyPort?: number;
  /** Port of the browser server, started on the first browser command (default 3459). */
  browserPort?: number;
  /** The user's home directory, whose CLI configs POST /api/mcp/sync writes (default: os.homedir()). */
  userHome?: string;
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
  commands: CommandRegistry;
  rules: RuleService;
  /** The memory store (its index is brought up to date in the background once the server listens). */
  memory: MemoryService;
  mcp: McpService;
  detector: CliDetector;
  /** Client of the browser server (which it starts on first use). */
  browser: BrowserClient;
  /** The vision-click skill (loaded on first use: OCR and image code stay off the start-up path). */
  visionClick: LazyVisionClick;
  /** The web-routing proxy, when started. */
  proxy?: RoutingProxy;
  /** Set once the server listens; given to provider CLIs as SVC_URL so skills can call back. */
  serverUrl?: string;
}

export interface CoreServer {
  services: CoreServices;
  http: FastifyInstance;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
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
  const bus = new EventBus((err, event) => console.error(`svc: listener of '${event.name}' failed:`, err));
  // Provider CLIs left running by a server that crashed are ended before anything else starts.
  reapOrphans(home.pids);
  // Private directories of runs a crash interrupted (MCP configs with secrets among them).
  rmSync(home.runs, { recursive: true, force: true });
  const settings = new SettingsService(coreSettings, new SettingsRepo(db), bus);
  const providerSessions = new ProviderSessionRepo(db);
  const runs = new RunRepo(db);
  runs.markAbandoned();
  const token = loadOrCreateToken(home.token);
  const mcp = new McpService({ repo: new McpRepo(db), bus, isProvider: isProviderId });
  const piProfiles = new PiProfiles(home.piAgent);
  const recorder = new TraceRecorder(home.traces, bus, () => [token, ...coreSettings.secretValues(settings.get()), ...mcp.secretValues(), ...piProfiles.secretValues()]);
  const shimDir = writeSvcShim(home.root);
  const providerEnv = () => {
    const env = { ...process.env, ...settings.get().agent.env };
    return { ...env, PATH: `${shimDir}:${env.PATH ?? ''}` };
  };
  // Detection starts on the first GET /api/cli-status, never on the start-up path.
  const detector = new CliDetector({
    paths: () => settings.get().agent.executables,
    customCommand: () => settings.get().agent.customCommand,
    pathEnv: () => providerEnv().PATH,
    env: providerEnv,
  });
  let serverUrl: string | undefined;
  const browser = browserClientFor({ home: home.root, port: options.browserPort, parentPid: process.pid, coreUrl: () => serverUrl });
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
        provider,
        executable: settings.get().agent.executables[provider] ?? provider,
        model: summarize.model,
        prompt,
        env: providerEnv(),
        pidDir: home.pids,
        timeoutMs: 180_000,
      });
    },
  });
  const runtime = new AgentRuntime({
    bus,
    transcript: chat,
    settings: () => settings.get().agent,
    providerSessions,
    runs,
    recorder,
    pidDir: home.pids,
    scratchRoot: home.runs,
    cwd,
    executable: (provider: ProviderId) => settings.get().agent.executables[provider] ?? provider,
    mcpServers: (provider) => mcp.forRun(provider),
    skills: () => skills.enabledDirs(),
    systemPrompt: async (prompt) => [settings.get().agent.systemPrompt, skillInstructions(skills.enabledBuiltIns(), skills.enabledDirs()), await memory.promptBlock(prompt)].filter(Boolean).join('\n\n'),
    baseEnv: () => ({
      ...providerEnv(),
      SVC_HOME: home.root,
      // Pi reads its models and keeps its sessions in svc's own directory, never the user's ~/.pi.
      PI_CODING_AGENT_DIR: home.piAgent,
      SVC_BROWSER_PORT: String(browser.port),
      SVC_SERVER_PID: String(process.pid),
      ...(serverUrl ? { SVC_URL: serverUrl } : {}),
    }),
    onProviderOutcome: (provider, outcome) => {
      if (outcome.ok) quota.observe(provider, { kind: 'ok', at: Date.now() });
      else if (outcome.failure === 'rate_limit') quota.observe(provider, { kind: 'rate_limit', at: Date.now(), message: outcome.message });
    },
    retryBaseMs: options.retryBaseMs,
    killGraceMs: options.killGraceMs,
  });
  const rules = new RuleService(new RulesRepo(db), {
    onInvalidRule: (rule, err) => console.error(`svc: web-routing rule #${rule.id} is skipped: ${(err as Error).message}`),
  });
  const visionClick = lazyVisionClickService({
    settings: () => settings.get().vision,
    mediaDir: home.media,
    browser,
    env: providerEnv,
    executable: (provider) => settings.get().agent.executables[provider],
  });
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
  });
  const stream = new EventStream(bus, { heartbeatMs: options.heartbeatMs });
  const listeners = { sse: new Slots(options.maxSseListeners ?? MAX_SSE_LISTENERS), ws: new Slots(MAX_WS_LISTENERS) };
  const peers = options.classifyPeer ?? classifyPeer;

  const commands = new CommandRegistry();
  commands.register(
    ...runCommands({ registry: commands, runtime, chat, settings, providers: () => detector.settled(8000) }),
    ...chatCommands(chat),
    browserCommand(browser),
    webRoutingCommand(rules),
    visionClickCommand({ service: visionClick }),
    webAiCommand(webAi),
    memoryCommand(memory),
    skillsCommand(skills),
  );

  const http = await createServer({
    info: { title: 'svc', version: VERSION, description: 'The core server of svc, a local agent runtime.' },
    logLevel: options.logLevel,
    websocket: true,
    guard: { token, classifyPeer: peers, network: () => settings.get().network },
  });
  await http.register(systemRoutes, {
    version: VERSION,
    startedAt,
    home: home.root,
    token,
    classifyPeer: peers,
    activeSession: () => chat.activeSession(),
    agent: () => ({ ...settings.get().agent, workingDir: settings.get().agent.workingDir || cwd }),
    runtime: () => runtime.status(),
    events: () => ({ streamId: stream.streamId, lastSeq: stream.lastSeq, sseListeners: listeners.sse.inUse, sseCapacity: listeners.sse.capacity, wsListeners: listeners.ws.inUse }),
  });
  await http.register(chatRoutes, { chat });
  await http.register(eventRoutes, { stream, listeners });
  await http.register(settingsRoutes, { settings });
  await http.register(runRoutes, { runtime, chat, commands, media });
  await http.register(traceRoutes, { runs, dir: home.traces });
  await http.register(skillRoutes, { skills });
  await http.register(piRoutes, { profiles: piProfiles });
  await http.register(mcpRoutes, {
    mcp,
    sync: (targets, dryRun) => syncMcp({ userHome: () => options.userHome ?? homedir(), svcHome: home.root, serversFor: (target) => mcp.forRun(target) }, targets, dryRun),
    installer: new McpInstaller({ prefix: home.mcp, env: providerEnv, progress: (event) => bus.publish('mcp_install', event) }),
  });
  await http.register(webRoutingRoutes, { rules });
  await http.register(browserRoutes, { api: browser });
  await http.register(visionClickRoutes, { service: visionClick });
  await http.register(webAiRoutes, { api: webAi });
  await http.register(mediaRoutes, { media });
  await http.register(memoryRoutes, { memory, settings: () => settings.get().memory });
  await http.register(providerRoutes, {
    detector,
    quota,
    active: () => settings.get().agent,
    extraModels: (provider) => (provider === 'pi' ? piProfiles.modelOptions() : []),
  });
  await http.register(uiRoutes, { version: VERSION, dist: webDistDir() });
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
    commands,
    rules,
    memory,
    mcp,
    detector,
    browser,
    visionClick,
  };
  let closed = false;
  return {
    services,
    http,
    async listen(port, host) {
      const address = await http.listen({ port, host });
      serverUrl = services.serverUrl = address;
      lock.listening(address);
      // after listening: the memory index is never on the start-up path
      memory.start();
      if (options.proxyPort !== undefined) {
        try {
          services.proxy = await startRoutingProxy({ rules, port: options.proxyPort, host: '127.0.0.1' });
        } catch (err) {
          // The API works without the proxy: say so and go on.
          console.error(`svc: web-routing proxy not started on 127.0.0.1:${options.proxyPort} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); choose another with --proxy-port`);
        }
      }
      return address;
    },
    async close() {
      if (closed) return;
      closed = true;
      // Runs first: their CLIs are killed and their final events written while clients still listen.
      await runtime.close();
      await memory.close();
      await detector.close();
      await visionClick.close();
      await http.close();
      await services.proxy?.close();
      // a browser server this process started goes with it; one the user started stays
      if (browser.spawnedServer) await browser.shutdown();
      await recorder.close();
      stream.close();
      closeDatabase(db);
      lock.release();
    },
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
