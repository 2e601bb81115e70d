// A local Discord for tests: the REST API under /v10 (GET /gateway/bot, POST /channels/:id/messages with
// JSON or multipart and message components, PATCH and DELETE of a message, POST /channels/:id/typing,
// POST /interactions/:id/:token/callback, 429s with retry_after) and the gateway WebSocket (HELLO,
// IDENTIFY, READY, GUILD_CREATE, heartbeats, MESSAGE_CREATE, INTERACTION_CREATE for a button press), with
// the real payload shapes. It can be made unreachable: hang() (REST requests accepted, never answered),
// refuse() (nothing listens).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { wakeups } from './wakeups.ts';

export interface DiscordCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
  files: { name: string; bytes: Buffer }[];
  at: number;
}

export const GUILD = 'g1';
export const CHANNEL = '100000000000000001';
export const OTHER_CHANNEL = '100000000000000002';
export const BOT_ID = '900000000000000001';
/** A thread under CHANNEL. */
export const THREAD = '100000000000000003';

const user = (id: string, username: string, bot = false) => ({ id, username, discriminator: '0', global_name: null, avatar: null, bot });

function multipart(raw: Buffer, boundary: string): { name: string; filename?: string; body: Buffer }[] {
  const parts: { name: string; filename?: string; body: Buffer }[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    const part = raw.subarray(start + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const file = /filename=(?:"([^"]*)"|([^;\r\n]+))/.exec(head);
    parts.push({ name: /name="([^"]*)"/.exec(head)?.[1] ?? '', filename: file ? (file[1] ?? file[2]) : undefined, body: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

/** Message components as the API takes them: action rows (type 1) of buttons (type 2). */
interface ActionRow {
  type: number;
  components: { type: number; style: number; label?: string; custom_id?: string }[];
}

/** What is wrong with a message's components by Discord's rules, if anything. */
function badComponents(components: unknown): string | undefined {
  if (!Array.isArray(components)) return 'components must be an array';
  if (components.length > 5) return 'at most 5 action rows';
  for (const row of components as ActionRow[]) {
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length < 1 || row.components.length > 5) return 'each row is an action row of 1 to 5 components';
    for (const b of row.components) {
      if (b.type !== 2 || !(b.style >= 1 && b.style <= 5)) return 'a component of a row is a button with a style';
      if (b.style !== 5 && (!b.custom_id || b.custom_id.length > 100)) return 'a button needs a custom_id of 1 to 100 characters';
      if (b.label !== undefined && b.label.length > 80) return 'a button label is at most 80 characters';
    }
  }
  return undefined;
}

export interface FakeDiscord {
  url: string;
  token: string;
  calls: DiscordCall[];
  /** A user's message in a channel (guild text channel by default); `mention` adds the bot's mention. */
  push(message: { content: string; channelId?: string; mention?: boolean; authorId?: string }): void;
  /** The messages the bot sent, as they are now (edits applied): content and components. */
  messages: Map<string, { channelId: string; content: string; components: ActionRow[] }>;
  /**
   * A user presses a button of one of the bot's messages (INTERACTION_CREATE, a message component
   * interaction), by default in the message's channel; the interaction's id, to find its callback.
   */
  press(messageId: string, customId: string, from?: { channelId?: string; userId?: string; username?: string }): string;
  /** The next REST call answers 429 with this retry_after (seconds). */
  rateLimitNext(retryAfter: number): void;
  /** REST stops answering: every request from now on is held (close() ends them). */
  hang(): void;
  /** The requests held by hang(), in order; `closed` once the client gave up on one. */
  stalled: { path: string; closed: boolean }[];
  /** Nothing listens on the address any more: connections are refused. */
  refuse(): Promise<void>;
  /** Answers again, on the same address, after hang() or refuse(). */
  resume(): Promise<void>;
  waitFor(predicate: (calls: DiscordCall[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeDiscord(token = 'TEST.discord-token.abcdefghijklmnopqrstuvwxyz'): Promise<FakeDiscord> {
  const calls: DiscordCall[] = [];
  const sockets = new Set<WebSocket>();
  const { wake, waitFor } = wakeups();
  let seq = 0;
  let nextId = 500000000000000000n;
  let limitNext: number | undefined;
  let hanging = false;
  let refusing = false;
  const stalled: FakeDiscord['stalled'] = [];
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    // a 204 has no body, so no content type (a client would try to parse one)
    res.writeHead(status, { ...(status === 204 ? {} : { 'content-type': 'application/json' }), ...headers });
    res.end(status === 204 ? undefined : JSON.stringify(body));
  };
  let url = '';
  const messages: FakeDiscord['messages'] = new Map();
  /** Interactions not answered yet, by id: their token; a callback answers one once. */
  const openInteractions = new Map<string, string>();
  const messageJson = (id: string, channelId: string, content: string, components: ActionRow[], edited: boolean) => ({
    id, channel_id: channelId, guild_id: GUILD, author: user(BOT_ID, 'svcbot', true), content, timestamp: new Date().toISOString(), edited_timestamp: edited ? new Date().toISOString() : null,
    tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [], components, pinned: false, type: 0,
  });
  const server = createServer(async (req: IncomingMessage, res) => {
    if (hanging) {
      const held = { path: new URL(req.url!, 'http://x').pathname, closed: false };
      stalled.push(held);
      res.on('close', () => (held.closed = true));
      wake();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const path = new URL(req.url!, 'http://x').pathname.replace(/^\/v10/, '');
    // an interaction's callback is authorized by its token in the path, not the bot's (discord.js sends none)
    const callback = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path);
    if (req.method === 'POST' && callback) {
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      const [, id, interactionToken] = callback as unknown as [string, string, string];
      if (!openInteractions.has(id)) return json(res, 404, { message: 'Unknown interaction', code: 10062 });
      if (openInteractions.get(id) !== interactionToken) return json(res, 401, { message: 'Invalid Webhook Token', code: 50027 });
      openInteractions.delete(id);
      calls.push({ method: 'POST', path, body, files: [], at: Date.now() });
      wake();
      return json(res, 204, undefined);
    }
    if (req.headers.authorization !== `Bot ${token}`) return json(res, 401, { message: '401: Unauthorized', code: 0 });
    if (req.method === 'GET' && path === '/gateway/bot') {
      return json(res, 200, { url: url.replace('http', 'ws'), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
    }
    if (limitNext !== undefined) {
      const retryAfter = limitNext;
      limitNext = undefined;
      calls.push({ method: `${req.method}:limited`, path, body: {}, files: [], at: Date.now() });
      return json(res, 429, { message: 'You are being rate limited.', retry_after: retryAfter, global: false }, {
        'retry-after': String(Math.ceil(retryAfter)),
        'x-ratelimit-scope': 'user',
      });
    }
    let body: Record<string, unknown> = {};
    const files: DiscordCall['files'] = [];
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/json') && raw.length) body = JSON.parse(raw.toString('utf8'));
    else if (type.includes('multipart/form-data')) {
      for (const part of multipart(raw, /boundary=("?)([^";]+)\1/.exec(type)![2]!)) {
        if (part.name === 'payload_json') body = JSON.parse(part.body.toString('utf8'));
        else if (part.filename !== undefined) files.push({ name: part.filename, bytes: part.body });
      }
    }
    calls.push({ method: req.method!, path, body, files, at: Date.now() });
    wake();
    const typing = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (req.method === 'POST' && typing) return json(res, 204, undefined);
    const send = /^\/channels\/(\d+)\/messages$/.exec(path);
    const invalid = (message: string) => json(res, 400, { message: 'Invalid Form Body', code: 50035, errors: { components: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } });
    const bad = body.components !== undefined ? badComponents(body.components) : undefined;
    if (bad) return invalid(bad);
    if (req.method === 'POST' && send) {
      const id = String(nextId++);
      const components = (body.components ?? []) as ActionRow[];
      messages.set(id, { channelId: send[1]!, content: String(body.content ?? ''), components });
      return json(res, 200, {
        ...messageJson(id, send[1]!, String(body.content ?? ''), components, false),
        attachments: files.map((f, i) => ({ id: String(i), filename: f.name, size: f.bytes.length, url: 'http://x', proxy_url: 'http://x' })),
      });
    }
    const one = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path);
    if (req.method === 'DELETE' && one) {
      messages.delete(one[2]!);
      return json(res, 204, undefined);
    }
    if (req.method === 'PATCH' && one) {
      const shown = messages.get(one[2]!) ?? { channelId: one[1]!, content: '', components: [] };
      if (shown.channelId !== one[1]) return json(res, 404, { message: 'Unknown Message', code: 10008 });
      // fields left out stay as they were: components go only when given as an empty list
      const now = { channelId: one[1]!, content: body.content !== undefined ? String(body.content) : shown.content, components: (body.components ?? shown.components) as ActionRow[] };
      messages.set(one[2]!, now);
      return json(res, 200, messageJson(one[2]!, one[1]!, now.content, now.components, true));
    }
    return json(res, 404, { message: '404: Not Found', code: 0 });
  });
  const gateway = new WebSocketServer({ server });
  const dispatch = (ws: WebSocket, t: string, d: unknown) => ws.send(JSON.stringify({ op: 0, t, s: ++seq, d }));
  gateway.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41250 }, s: null, t: null }));
    ws.on('message', (data) => {
      const payload = JSON.parse(String(data)) as { op: number; d: { token?: string } };
      if (payload.op === 1) ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      if (payload.op === 2) {
        if (payload.d.token !== token) return ws.close(4004, 'Authentication failed.');
        dispatch(ws, 'READY', {
          v: 10, user: { ...user(BOT_ID, 'svcbot', true), verified: true, flags: 0, mfa_enabled: false }, guilds: [{ id: GUILD, unavailable: true }], session_id: 'session-1',
          resume_gateway_url: url.replace('http', 'ws'), application: { id: BOT_ID, flags: 0 }, shard: [0, 1], private_channels: [], relationships: [], presences: [],
        });
        const channel = (id: string, name: string) => ({ id, type: 0, name, guild_id: GUILD, position: 0, permission_overwrites: [], nsfw: false, parent_id: null, topic: null, last_message_id: null, rate_limit_per_user: 0 });
        dispatch(ws, 'GUILD_CREATE', {
          id: GUILD, name: 'Test', icon: null, owner_id: '1', unavailable: false, large: false, member_count: 2, joined_at: new Date().toISOString(),
          channels: [channel(CHANNEL, 'general'), channel(OTHER_CHANNEL, 'random')],
          threads: [{
            id: THREAD, type: 11, name: 'a topic', guild_id: GUILD, parent_id: CHANNEL, owner_id: '300000000000000001', member_count: 1, message_count: 0,
            rate_limit_per_user: 0, thread_metadata: { archived: false, auto_archive_duration: 60, archive_timestamp: new Date().toISOString(), locked: false },
          }], members: [], voice_states: [], presences: [], stage_instances: [],
          guild_scheduled_events: [], soundboard_sounds: [],
          roles: [{ id: GUILD, name: '@everyone', permissions: '0', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
          emojis: [], stickers: [], features: [], afk_timeout: 300, verification_level: 0, default_message_notifications: 0, explicit_content_filter: 0, mfa_level: 0,
          system_channel_flags: 0, premium_tier: 0, preferred_locale: 'en-US', nsfw_level: 0, premium_progress_bar_enabled: false,
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
  const stopListening = () => {
    for (const ws of sockets) ws.terminate();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url,
    token,
    calls,
    push({ content, channelId = CHANNEL, mention = true, authorId = '300000000000000001' }) {
      const d = {
        id: String(nextId++), channel_id: channelId, guild_id: GUILD, author: user(authorId, 'ann'),
        member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
        content: mention ? `<@${BOT_ID}> ${content}` : content, timestamp: new Date().toISOString(), edited_timestamp: null, tts: false,
        mention_everyone: false, mentions: mention ? [user(BOT_ID, 'svcbot', true)] : [], mention_roles: [], attachments: [], embeds: [], pinned: false, type: 0,
      };
      for (const ws of sockets) dispatch(ws, 'MESSAGE_CREATE', d);
    },
    messages,
    press(messageId, customId, from = {}) {
      const shown = messages.get(messageId);
      if (!shown) throw new Error(`the bot sent no message ${messageId}`);
      const channelId = from.channelId ?? shown.channelId;
      const id = String(nextId++);
      const interactionToken = `interaction-token-${id}`;
      openInteractions.set(id, interactionToken);
      const presser = user(from.userId ?? '300000000000000001', from.username ?? 'ann');
      const channel = channelId === THREAD
        ? { id: THREAD, type: 11, name: 'a topic', guild_id: GUILD, parent_id: CHANNEL, permissions: '0' }
        : { id: channelId, type: 0, name: channelId === CHANNEL ? 'general' : 'random', guild_id: GUILD, parent_id: null, permissions: '0' };
      const d = {
        id, application_id: BOT_ID, type: 3, data: { custom_id: customId, component_type: 2 }, guild_id: GUILD, channel_id: channelId, channel,
        member: { user: presser, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0, permissions: '0' },
        token: interactionToken, version: 1, message: messageJson(messageId, shown.channelId, shown.content, shown.components, false),
        app_permissions: '0', locale: 'en-US', guild_locale: 'en-US', entitlements: [], authorizing_integration_owners: { 0: GUILD }, context: 0, attachment_size_limit: 10485760,
      };
      for (const ws of sockets) dispatch(ws, 'INTERACTION_CREATE', d);
      return id;
    },
    rateLimitNext(retryAfter) {
      limitNext = retryAfter;
    },
    hang() {
      hanging = true;
    },
    stalled,
    async refuse() {
      if (refusing) return;
      refusing = true;
      await stopListening();
    },
    async resume() {
      hanging = false;
      if (!refusing) return;
      refusing = false;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject).listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    waitFor: (predicate, timeoutMs = 10_000) => waitFor(calls, predicate, timeoutMs, (c) => [c.method, c.path, c.body]),
    async close() {
      gateway.close();
      if (!refusing) await stopListening();
    },
  };
}
