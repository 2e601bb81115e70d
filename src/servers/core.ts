// The composition root: opens storage, builds the services and the HTTP server, and closes them
// in order. Nothing here knows HTTP details beyond handing the context to the server factory.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ensureHome, type HomePaths } from './config/home.ts';
import { loadOrCreateToken } from './config/token.ts';
import { closeDatabase, openDatabase, type Db } from './store/db.ts';
import { ChatSessionRepo } from './store/chat-sessions.ts';
import { MessageRepo } from './store/messages.ts';
import { SettingsRepo } from './store/settings-repo.ts';
import { EventBus } from './events/bus.ts';
import { EventStream } from './events/stream.ts';
import { MAX_SSE_LISTENERS, MAX_WS_LISTENERS, Slots } from './events/slots.ts';
import { SettingsService } from './services/settings.ts';
import { ChatService } from './services/chat.ts';
import { classifyPeer, type PeerClassifier } from './http/peers.ts';
import { buildHttpServer } from './http/server.ts';
import { SVC_BIN, VERSION } from './version.ts';
import { SKILL_INSTRUCTIONS } from './skills/instructions.ts';
import { ProviderSessionRepo, RunRepo } from './store/agent-store.ts';
import { QuotaObservationRepo } from './store/quota-observations.ts';
import { TraceRecorder } from './agent/traces.ts';
import { AgentRuntime } from './agent/runtime.ts';
import { builtInCommands, CommandRegistry } from './agent/commands.ts';
import { reapOrphans } from './agent/process.ts';
import type { ProviderId } from './agent/providers/types.ts';
import { RuleService } from './skills/web-routing/service.ts';
import { RulesRepo } from './skills/web-routing/rules-repo.ts';
import { startRoutingProxy, type RoutingProxy } from './skills/web-routing/proxy.ts';
import { skillCommands } from './skills/commands.ts';
import { browserClientFor } from './browser/spawn.ts';
import type { BrowserClient } from './browser/client.ts';
import { CliDetector } from './agent/detect.ts';
import { QuotaReader } from './agent/quota.ts';
import { lazyVisionClickService, type LazyVisionClick } from './skills/vision-click/lazy.ts';

export interface AppOptions {
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
}

export interface AppContext {
  version: string;
  startedAt: number;
  home: HomePaths;
  token: string;
  cwd: string;
  db: Db;
  bus: EventBus;
  stream: EventStream;
  listeners: { sse: Slots; ws: Slots };
  settings: SettingsService;
  chat: ChatService;
  classifyPeer: PeerClassifier;
  providerSessions: ProviderSessionRepo;
  runs: RunRepo;
  recorder: TraceRecorder;
  agent: AgentRuntime;
  commands: CommandRegistry;
  rules: RuleService;
  detector: CliDetector;
  quota: QuotaReader;
  /** Client of the browser server (which it starts on first use). */
  browser: BrowserClient;
  /** The vision-click skill (loaded on first use: OCR and image code stay off the start-up path). */
  visionClick: LazyVisionClick;
  /** The web-routing proxy, when started. */
  proxy?: RoutingProxy;
  /** Set once the server listens; given to provider CLIs as SVC_URL so skills can call back. */
  serverUrl?: string;
}

export interface App {
  context: AppContext;
  http: FastifyInstance;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

export async function createApp(options: AppOptions): Promise<App> {
  const home = ensureHome(options.home);
  const cwd = options.cwd ?? process.cwd();
  const db = openDatabase(home.database);
  const bus = new EventBus((err, event) => console.error(`svc: listener of '${event.name}' failed:`, err));
  // Provider CLIs left running by a server that crashed are ended before anything else starts.
  reapOrphans(home.pids);
  const settings = new SettingsService(new SettingsRepo(db), bus);
  const chat = new ChatService(new ChatSessionRepo(db), new MessageRepo(db), bus);
  const providerSessions = new ProviderSessionRepo(db);
  const runs = new RunRepo(db);
  runs.markAbandoned();
  const token = loadOrCreateToken(home.token);
  const secrets = () => [token, settings.get().vision.apiKey, ...Object.values(settings.get().agent.env)];
  const recorder = new TraceRecorder(home.traces, bus, secrets);
  const commands = new CommandRegistry();
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
  const browserClient = browserClientFor({ home: home.root, port: options.browserPort, parentPid: process.pid, coreUrl: () => context.serverUrl });
  const quota = new QuotaReader({
    codexHome: () => settings.get().agent.env.CODEX_HOME ?? process.env.CODEX_HOME,
    store: new QuotaObservationRepo(db),
  });
  const context: AppContext = {
    version: VERSION,
    startedAt: Date.now(),
    home,
    token,
    cwd,
    db,
    bus,
    stream: new EventStream(bus, { heartbeatMs: options.heartbeatMs }),
    listeners: { sse: new Slots(options.maxSseListeners ?? MAX_SSE_LISTENERS), ws: new Slots(MAX_WS_LISTENERS) },
    settings,
    chat,
    classifyPeer: options.classifyPeer ?? classifyPeer,
    providerSessions,
    runs,
    recorder,
    commands,
    rules: new RuleService(new RulesRepo(db), {
      onInvalidRule: (rule, err) => console.error(`svc: web-routing rule #${rule.id} is skipped: ${(err as Error).message}`),
    }),
    detector,
    quota,
    browser: browserClient,
    visionClick: lazyVisionClickService({
      settings: () => settings.get().vision,
      mediaDir: home.media,
      browser: browserClient,
      env: providerEnv,
      executable: (provider) => settings.get().agent.executables[provider],
    }),
    agent: new AgentRuntime({
      bus,
      chat,
      settings,
      providerSessions,
      runs,
      recorder,
      pidDir: home.pids,
      cwd,
      executable: (provider: ProviderId) => settings.get().agent.executables[provider] ?? provider,
      systemPrompt: () => [settings.get().agent.systemPrompt, SKILL_INSTRUCTIONS].filter(Boolean).join('\n\n'),
      baseEnv: () => ({
        ...providerEnv(),
        SVC_HOME: home.root,
        SVC_BROWSER_PORT: String(context.browser.port),
        SVC_SERVER_PID: String(process.pid),
        ...(context.serverUrl ? { SVC_URL: context.serverUrl } : {}),
      }),
      onProviderOutcome: (provider, outcome) => {
        if (outcome.ok) quota.observe(provider, { kind: 'ok', at: Date.now() });
        else if (outcome.failure === 'rate_limit') quota.observe(provider, { kind: 'rate_limit', at: Date.now(), message: outcome.message });
      },
      retryBaseMs: options.retryBaseMs,
      killGraceMs: options.killGraceMs,
    }),
  };
  for (const command of [...builtInCommands(commands), ...skillCommands(context)]) commands.register(command);
  const http = await buildHttpServer(context, { logLevel: options.logLevel });
  let closed = false;
  return {
    context,
    http,
    async listen(port, host) {
      const address = await http.listen({ port, host });
      context.serverUrl = address;
      if (options.proxyPort !== undefined) {
        try {
          context.proxy = await startRoutingProxy({ rules: context.rules, port: options.proxyPort, host: '127.0.0.1' });
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
      await context.agent.close();
      await context.detector.close();
      await context.visionClick.close();
      await http.close();
      await context.proxy?.close();
      // a browser server this process started goes with it; one the user started stays
      if (context.browser.spawnedServer) await context.browser.shutdown();
      await recorder.close();
      context.stream.close();
      closeDatabase(db);
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
