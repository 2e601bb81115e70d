// A local Telegram Bot API for tests: the real paths (/bot<token>/<method>, /file/bot<token>/<path>),
// JSON, form and multipart bodies, long-polled getUpdates (with allowed_updates kept from call to call,
// as Telegram does), inline keyboards, button presses (callback_query) and their answers, and the real
// answer shapes ({ok, result} or {ok:false, error_code, description, parameters}). Tests push users'
// messages and presses and read what the bot sent,
// and can make it unreachable: hang() (requests accepted, never answered), refuse() (nothing listens).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wakeups } from './wakeups.ts';

export interface SentCall {
  method: string;
  params: Record<string, unknown>;
  /** Files sent with multipart: field name → name and bytes. */
  files: Record<string, { name: string; bytes: Buffer }>;
  at: number;
}

export interface FakeTelegram {
  url: string;
  token: string;
  bot: { id: number; username: string };
  calls: SentCall[];
  /** Every request path seen (to check what reached the API). */
  paths: string[];
  /** A user's message arrives (an Update with `message`); `extra` overrides fields of the message. */
  push(message: Record<string, unknown>): number;
  /**
   * A user presses a button under one of the bot's messages (an Update with `callback_query`), by default
   * in the chat the message is in, by its private chat's user; the query's id, to find its answer.
   */
  press(messageId: number, data: string, from?: { chatId?: number; userId?: number; username?: string }): string;
  /** The messages the bot sent, as they are now (edits applied): text and inline keyboard. */
  messages: Map<number, { chatId: number; text: string; keyboard: { text: string; callback_data?: string }[][] }>;
  /** The update types the bot receives (Telegram keeps the last allowed_updates given; undefined: its default, all the usual ones). */
  allowedUpdates: string[] | undefined;
  /** A file the bot can download with getFile. */
  addFile(fileId: string, bytes: Buffer, path: string): void;
  /** The next call of `method` fails with this error (error_code, description, parameters). */
  failNext(method: string, error: { error_code: number; description: string; parameters?: Record<string, unknown> }): void;
  waitFor(predicate: (calls: SentCall[]) => boolean, timeoutMs?: number): Promise<void>;
  /** The token stops working (as when it is revoked in @BotFather): every call is a 401 from now on. */
  revoke(): void;
  /** The API stops answering (a network that swallows requests): every request from now on hangs. */
  hang(): void;
  /** The requests held by hang(), in order; `closed` once the client gave up on one (cut its connection). */
  stalled: { path: string; closed: boolean }[];
  /** Nothing listens on the address any more: connections are refused (as with a server that is down). */
  refuse(): Promise<void>;
  /** Answers again, on the same address, after hang() or refuse(). */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** The parts of a multipart/form-data body (what grammY sends with files). */
function multipart(raw: Buffer, boundary: string): { name: string; filename?: string; body: Buffer }[] {
  if (!boundary) throw new Error('multipart body without a boundary');
  const parts: { name: string; filename?: string; body: Buffer }[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    const part = raw.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    // grammY writes the file name unquoted
    const file = /filename=(?:"([^"]*)"|([^;\r\n]+))/.exec(head);
    const filename = file ? (file[1] ?? file[2]) : undefined;
    parts.push({ name, filename, body: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

async function bodyOf(req: IncomingMessage): Promise<{ params: Record<string, unknown>; files: SentCall['files'] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  const query = Object.fromEntries(new URL(req.url!, 'http://x').searchParams);
  if (!raw.length) return { params: query, files: {} };
  if (type.includes('application/json')) return { params: { ...query, ...JSON.parse(raw.toString('utf8')) }, files: {} };
  const params: Record<string, unknown> = { ...query };
  const files: SentCall['files'] = {};
  for (const part of multipart(raw, /boundary=("?)([^";]+)\1/.exec(type)?.[2] ?? '')) {
    if (part.filename === undefined) {
      const value = part.body.toString('utf8');
      try {
        params[part.name] = JSON.parse(value);
      } catch {
        params[part.name] = value;
      }
    } else files[part.name] = { name: part.filename, bytes: part.body };
  }
  // a file may be sent under its own field, named by `attach://<field>` in the parameter
  for (const [key, value] of Object.entries(params)) {
    const attached = typeof value === 'string' && /^attach:\/\/(.+)$/.exec(value)?.[1];
    if (attached && files[attached]) files[key] = files[attached];
  }
  return { params, files };
}

export async function startFakeTelegram(token = '123456:TEST-telegram-token-abcdefghijklmnop'): Promise<FakeTelegram> {
  const bot = { id: 999001, username: 'svc_test_bot' };
  const calls: SentCall[] = [];
  const paths: string[] = [];
  const updates: ({ update_id: number } & ({ message: Record<string, unknown> } | { callback_query: Record<string, unknown> }))[] = [];
  const messages: FakeTelegram['messages'] = new Map();
  /** Presses not answered yet: answerCallbackQuery takes each once. */
  const openQueries = new Set<string>();
  let nextQuery = 1;
  const { wake, sleep, waitFor } = wakeups();
  const failures = new Map<string, { error_code: number; description: string; parameters?: Record<string, unknown> }>();
  const files = new Map<string, { bytes: Buffer; path: string }>();
  let revoked = false;
  let hanging = false;
  let refusing = false;
  const stalled: FakeTelegram['stalled'] = [];
  let nextUpdate = 1;
  let nextMessage = 5000;
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const message = (params: Record<string, unknown>, extra: Record<string, unknown>) => ({
    message_id: nextMessage++,
    date: Math.floor(Date.now() / 1000),
    chat: { id: Number(params.chat_id), type: Number(params.chat_id) < 0 ? 'supergroup' : 'private' },
    from: { id: bot.id, is_bot: true, first_name: 'Svc', username: bot.username },
    ...extra,
  });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (hanging) {
      // never answered (close() ends the connection); the test sees whether the client gave up on it
      const held = { path: url.pathname.replace(token, '<token>'), closed: false };
      stalled.push(held);
      res.on('close', () => (held.closed = true));
      wake();
      return;
    }
    paths.push(url.pathname);
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const found = [...files.values()].find((f) => f.path === file[2]);
      if (file[1] !== token || !found) return send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(found.bytes);
    }
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!match) return send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, given, method] = match as unknown as [string, string, string];
    let body;
    try {
      body = await bodyOf(req);
    } catch (err) {
      return send(res, 400, { ok: false, error_code: 400, description: `Bad Request: ${(err as Error).message}` });
    }
    const { params, files: uploaded } = body;
    if (given !== token || revoked) return send(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failure = failures.get(method);
    if (failure) {
      failures.delete(method);
      calls.push({ method: `${method}:failed`, params, files: uploaded, at: Date.now() });
      return send(res, failure.error_code, { ok: false, ...failure });
    }
    const ok = (result: unknown) => send(res, 200, { ok: true, result });
    const badRequest = (description: string) => send(res, 400, { ok: false, error_code: 400, description: `Bad Request: ${description}` });
    switch (method) {
      case 'getMe':
        return ok({ id: bot.id, is_bot: true, first_name: 'Svc', username: bot.username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
      case 'deleteWebhook':
        updates.splice(0);
        return ok(true);
      case 'getUpdates': {
        const offset = Number(params.offset ?? 0);
        // the list given stays until another is given
        if (params.allowed_updates !== undefined) fake.allowedUpdates = params.allowed_updates as string[];
        const wanted = (u: (typeof updates)[number]) => !fake.allowedUpdates || fake.allowedUpdates.some((type) => type in u);
        const pending = () => updates.filter((u) => u.update_id >= offset && wanted(u));
        const answer = () => ok(pending().slice(0, Number(params.limit ?? 100)));
        if (pending().length || !Number(params.timeout)) return answer();
        // long poll: answer when an update comes, or empty at the timeout
        await sleep(Number(params.timeout) * 1000, (done) => {
          req.on('close', done);
          res.on('close', done);
        });
        if (res.destroyed) return;
        return answer();
      }
      case 'getFile': {
        const found = files.get(String(params.file_id));
        if (!found) return send(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        return ok({ file_id: params.file_id, file_unique_id: `u${params.file_id}`, file_size: found.bytes.length, file_path: found.path });
      }
      default: {
        calls.push({ method, params, files: uploaded, at: Date.now() });
        wake();
        if (method === 'sendChatAction' || method === 'setMyCommands' || method === 'deleteMessage') return ok(true);
        if (method === 'answerCallbackQuery') {
          if (!openQueries.delete(String(params.callback_query_id))) return badRequest('query is too old and response timeout expired or query ID is invalid');
          return ok(true);
        }
        const html = params.parse_mode === 'HTML';
        if (html && /<(?!\/?(b|i|s|u|code|pre|a)\b)[^>]*>/.test(String(params.text))) return badRequest("can't parse entities");
        const markup = params.reply_markup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined;
        if (markup && !Array.isArray(markup.inline_keyboard)) return badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array');
        if (markup?.inline_keyboard?.some((row) => row.some((b) => b.callback_data !== undefined && (Buffer.byteLength(b.callback_data) > 64 || !b.callback_data)))) return badRequest('BUTTON_DATA_INVALID');
        const keyboard = markup?.inline_keyboard ?? [];
        const replyMarkup = keyboard.length ? { reply_markup: { inline_keyboard: keyboard } } : {};
        if (method === 'editMessageText') {
          const id = Number(params.message_id);
          const shown = messages.get(id);
          if (!shown || shown.chatId !== Number(params.chat_id)) return badRequest('message to edit not found');
          // an edit without reply_markup takes the keyboard away, as one with an empty keyboard does
          if (shown.text === params.text && JSON.stringify(shown.keyboard) === JSON.stringify(keyboard)) return badRequest('message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
          messages.set(id, { chatId: shown.chatId, text: String(params.text), keyboard });
          return ok(message(params, { message_id: id, text: params.text, edit_date: Math.floor(Date.now() / 1000), ...replyMarkup }));
        }
        if (method === 'sendMessage') {
          const sent = message(params, { text: params.text, ...replyMarkup });
          messages.set(sent.message_id, { chatId: Number(params.chat_id), text: String(params.text), keyboard });
          return ok(sent);
        }
        if (method === 'sendPhoto') return ok(message(params, { photo: [{ file_id: 'p1', file_unique_id: 'p1', width: 1, height: 1 }], caption: params.caption }));
        if (method === 'sendDocument') return ok(message(params, { document: { file_id: 'd1', file_unique_id: 'd1', file_name: uploaded.document?.name }, caption: params.caption }));
        if (method === 'sendVoice') return ok(message(params, { voice: { file_id: 'v1', file_unique_id: 'v1', duration: 1 }, caption: params.caption }));
        return send(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method}` });
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const stopListening = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const fake: FakeTelegram = {
    url,
    token,
    bot,
    calls,
    paths,
    messages,
    allowedUpdates: undefined,
    press(messageId, data, from = {}) {
      const shown = messages.get(messageId);
      if (!shown) throw new Error(`the bot sent no message ${messageId}`);
      const chatId = from.chatId ?? shown.chatId;
      const userId = from.userId ?? (chatId > 0 ? chatId : 777);
      const id = String(nextQuery++);
      openQueries.add(id);
      updates.push({
        update_id: nextUpdate++,
        callback_query: {
          id,
          from: { id: userId, is_bot: false, first_name: 'Ann', username: from.username ?? 'ann' },
          message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: chatId < 0 ? 'supergroup' : 'private' }, from: { id: bot.id, is_bot: true, first_name: 'Svc', username: bot.username }, text: shown.text },
          chat_instance: `ci-${chatId}`,
          data,
        },
      });
      wake();
      return id;
    },
    push(extra) {
      const update_id = nextUpdate++;
      const chat = (extra.chat as { id: number } | undefined) ?? { id: 4242, type: 'private', first_name: 'Ann', username: 'ann' };
      updates.push({
        update_id,
        message: { message_id: nextMessage++, date: Math.floor(Date.now() / 1000), chat, from: { id: chat.id > 0 ? chat.id : 777, is_bot: false, first_name: 'Ann', username: 'ann' }, ...extra },
      });
      wake();
      return update_id;
    },
    addFile(fileId, bytes, path) {
      files.set(fileId, { bytes, path });
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
    revoke() {
      revoked = true;
      wake();
    },
    failNext(method, error) {
      failures.set(method, error);
    },
    waitFor: (predicate, timeoutMs = 10_000) => waitFor(calls, predicate, timeoutMs, (c) => [c.method, c.params]),
    async close() {
      wake();
      if (!refusing) await stopListening();
    },
  };
  return fake;
}
