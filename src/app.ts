// The composition root: opens storage, builds the services and the HTTP server, and closes them
// in order. Nothing here knows HTTP details beyond handing the context to the server factory.
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
import { VERSION } from './version.ts';
import type { FastifyInstance } from 'fastify';

export interface AppOptions {
  home: string;
  /** Injectable for tests: how much a peer address is trusted. */
  classifyPeer?: PeerClassifier;
  heartbeatMs?: number;
  maxSseListeners?: number;
  /** Working directory for runs when the setting is empty. */
  cwd?: string;
  logLevel?: string;
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
}

export interface App {
  context: AppContext;
  http: FastifyInstance;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

export async function createApp(options: AppOptions): Promise<App> {
  const home = ensureHome(options.home);
  const db = openDatabase(home.database);
  const bus = new EventBus((err, event) => console.error(`svc: listener of '${event.name}' failed:`, err));
  const context: AppContext = {
    version: VERSION,
    startedAt: Date.now(),
    home,
    token: loadOrCreateToken(home.token),
    cwd: options.cwd ?? process.cwd(),
    db,
    bus,
    stream: new EventStream(bus, { heartbeatMs: options.heartbeatMs }),
    listeners: { sse: new Slots(options.maxSseListeners ?? MAX_SSE_LISTENERS), ws: new Slots(MAX_WS_LISTENERS) },
    settings: new SettingsService(new SettingsRepo(db), bus),
    chat: new ChatService(new ChatSessionRepo(db), new MessageRepo(db), bus),
    classifyPeer: options.classifyPeer ?? classifyPeer,
  };
  const http = await buildHttpServer(context, { logLevel: options.logLevel });
  let closed = false;
  return {
    context,
    http,
    async listen(port, host) {
      return http.listen({ port, host });
    },
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      context.stream.close();
      closeDatabase(db);
    },
  };
}
