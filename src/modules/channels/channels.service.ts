// The chat channels: connects the enabled adapters, keeps each one's state, answers allowed chats
// (inbound.ts), sends on request (POST /api/channel/send, `svc channel send`), pairs new chats with a
// one-time code, asks the chat whose run needs a tool permission (permission-prompts.ts), and writes what
// matters to the security audit log. Strangers are counted, never answered.
// A connect attempt is bounded and cancellable (abort.ts): a chat service that does not answer costs a
// reason in the state and a retry later, never a restart, a switch-off or a shutdown that waits.
import { basename } from 'node:path';
import { statSync } from 'node:fs';
import type { z } from 'zod';
import { AppError, badRequest } from '../../core/errors.ts';
import type { EventBus } from '../../events/bus.ts';
import type { ChannelSendBodySchema, ChannelSendResult, ChannelState } from '../../protocol/channels.ts';
import type { PermissionRequest } from '../../protocol/permissions.ts';
import type { AuditSink } from '../security-audit/index.ts';
import { bounded } from './abort.ts';
import { CHANNEL_LABELS, ChannelRefused, type ButtonPress, type ChannelAdapter, type ChannelName, type FileKind, type InboundMessage, type SendTarget } from './adapter.ts';
import { Pairing } from './pairing.ts';
import { PermissionPrompts, type PermissionDesk, type PromptChat } from './permission-prompts.ts';
import { failureReason } from './reach.ts';
import { withRetryAfter, type RetryLimits } from './retry.ts';
import { resolveSendFile } from './send-path.ts';
import type { ChannelSettings, ChannelsSettings } from './settings.ts';
import type { StatusChannel } from './status.ts';

/** How long a disconnect waits for the bot library to stop (a dead network must not hold up a shutdown). */
const STOP_WAIT_MS = 3000;
/** One connect attempt: the bot's identity, its command menu, and polling started or the gateway ready. */
const CONNECT_TIMEOUT_MS = 10_000;
/** The wait before the first automatic retry; it doubles with each failure in a row, up to RETRY_MAX_MS. */
const RETRY_BASE_MS = 5000;
const RETRY_MAX_MS = 5 * 60_000;

/** What did not answer, in a reason. */
const API_NAME: Record<ChannelName, string> = { telegram: 'the Bot API', discord: 'Discord' };

/** Resolves when `work` settles, or rejects after `ms` (the work goes on, unawaited). */
function within(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const FILE_LIMITS: Record<ChannelName, Record<FileKind, number>> = {
  telegram: { photo: 10 * 2 ** 20, document: 50 * 2 ** 20, voice: 50 * 2 ** 20 },
  discord: { photo: 10 * 2 ** 20, document: 10 * 2 ** 20, voice: 10 * 2 ** 20 },
};

export interface ChannelServiceDeps {
  settings(): ChannelsSettings;
  /** Adds a chat to an allowlist (pairing) through the settings, so the change is saved and published. */
  allow(channel: ChannelName, chatId: string): void;
  adapters: Record<ChannelName, () => ChannelAdapter>;
  audit: AuditSink;
  bus: EventBus;
  paths: () => { workingDir: string; mediaDir: string; home: string };
  /** Permission requests, answered from the chat whose run asked (permission-prompts.ts). */
  permissions: PermissionDesk;
  /** The chat a chat session belongs to: where its runs' permission requests go. */
  chatOf(sessionId: string): { channel: ChannelName; chatKey: string } | undefined;
  /** Handles a message from an allowed chat (runs the agent, answers). */
  onInbound(channel: ChannelName, message: InboundMessage, reply: Replier): Promise<void>;
  retry?: RetryLimits;
  /** Tests shorten these: the bound of a connect attempt, the first wait before a retry. */
  timing?: { connectTimeoutMs?: number; retryBaseMs?: number };
}

/** How inbound handling talks back to the chat it came from. */
export interface Replier {
  text(markdown: string): Promise<string[]>;
  typing(): Promise<void>;
  /** The live tool-step status message; absent when the channel's `toolStatus` is off. */
  status?: StatusChannel;
}

interface Live {
  adapter?: ChannelAdapter;
  connected: boolean;
  botName?: string;
  /** Why it is not connected, or the last thing that went wrong (without the retry, which `why` adds). */
  lastError?: string;
  /** Restarts queued or running: while there are any, an enabled channel is connecting. */
  pending: number;
  /** Counts restarts: a queued one that a later one superseded does nothing. */
  generation: number;
  /** The connect attempt under way; aborting it ends the attempt at once. */
  attempt?: AbortController;
  /** The next automatic attempt after a failure. */
  retry?: { at: number; timer: NodeJS.Timeout };
  /** Failed attempts in a row: the wait before the next doubles with each. */
  failures: number;
  /** The last allowed chat that wrote: the default target of sends. */
  lastChat?: SendTarget;
  counts: ChannelState['counts'];
  /** Serializes starts and stops. */
  lifecycle: Promise<void>;
  /** One message at a time per chat, in order. */
  chats: Map<string, Promise<void>>;
}

export type SendRequest = z.output<typeof ChannelSendBodySchema>;

export class ChannelService {
  readonly pairing = new Pairing();
  private readonly live: Record<ChannelName, Live>;
  private readonly prompts: PermissionPrompts;
  private unsubscribe?: () => void;
  private lastActive?: ChannelName;
  private closed = false;
  /** The settings as this service last saw them (to tell what a change changed). */
  private seen: ChannelsSettings;

  constructor(private readonly deps: ChannelServiceDeps) {
    this.seen = deps.settings();
    const fresh = (): Live => ({ connected: false, pending: 0, generation: 0, failures: 0, counts: { received: 0, ignored: 0, sent: 0, failed: 0 }, lifecycle: Promise.resolve(), chats: new Map() });
    this.live = { telegram: fresh(), discord: fresh() };
    this.prompts = new PermissionPrompts({
      desk: deps.permissions,
      chatOf: (sessionId) => deps.chatOf(sessionId),
      allowed: (name, chatId) => deps.settings()[name].allowlist.includes(chatId),
      chat: (name) => this.promptChat(name),
      audit: deps.audit,
    });
  }

  /** Connects every enabled channel (in the background: start-up never waits on a chat service). */
  start(): void {
    this.unsubscribe = this.deps.bus.subscribe((event) => {
      if (event.name === 'permission_request') this.prompts.asked(event.payload as PermissionRequest);
      else if (event.name === 'permission_resolved') void this.prompts.resolved(event.payload.id as string);
    });
    for (const name of ['telegram', 'discord'] as const) if (this.deps.settings()[name].enabled) void this.restart(name, 'start');
  }

  states(): ChannelState[] {
    return (['telegram', 'discord'] as const).map((name) => this.state(name));
  }

  state(name: ChannelName): ChannelState {
    const config = this.deps.settings()[name];
    const live = this.live[name];
    const status = this.status(name);
    const why = this.why(name);
    return {
      name,
      enabled: config.enabled,
      configured: config.botToken !== '',
      connected: live.connected,
      status,
      ...(live.botName ? { botName: live.botName } : {}),
      ...(why ? { lastError: why } : {}),
      ...(status === 'retrying' ? { retryAt: live.retry!.at } : {}),
      allowlist: config.allowlist,
      // one rule for the API, `svc channel pair` and the UI: a code is only any use to a bot that receives it
      pairable: status === 'connected',
      ...(this.pairing.pending(name) ? { pairingUntil: this.pairing.pending(name)!.expiresAt } : {}),
      counts: { ...live.counts },
    };
  }

  /** After a settings change: allowlist changes go to the audit log; a new token, address or switch reconnects. */
  settingsChanged(): void {
    const before = this.seen;
    const after = (this.seen = this.deps.settings());
    for (const name of ['telegram', 'discord'] as const) {
      const [a, b] = [before[name], after[name]];
      const added = b.allowlist.filter((id) => !a.allowlist.includes(id));
      const removed = a.allowlist.filter((id) => !b.allowlist.includes(id));
      if (added.length || removed.length) this.deps.audit.record({ actor: 'user', action: 'channel.allowlist', target: name, outcome: 'ok', details: { added, removed } });
      if (a.enabled !== b.enabled || a.botToken !== b.botToken || a.apiBaseUrl !== b.apiBaseUrl) void this.restart(name, 'settings');
    }
  }

  /**
   * A person's restart (POST /api/channels/:name/restart): begins it and answers the state at once
   * (`connecting`); the outcome comes as channel_connected or channel_disconnected.
   */
  requestRestart(name: ChannelName, actor: string): ChannelState {
    void this.restart(name, actor);
    return this.state(name);
  }

  /**
   * Stops the channel and connects it again when it is enabled and has a token; resolves with its state
   * once the attempt has succeeded or failed (within the connect bound). What was under way (an attempt,
   * a planned retry, an earlier restart still queued) is superseded at once, never waited for.
   */
  restart(name: ChannelName, actor: string): Promise<ChannelState> {
    const live = this.live[name];
    const generation = ++live.generation;
    this.cancel(name);
    // asked for (a user, new settings, the start): the retry waits start short again
    if (actor !== 'retry') live.failures = 0;
    live.pending++;
    const superseded = () => generation !== live.generation;
    live.lifecycle = live.lifecycle
      .then(async () => {
        if (superseded()) return;
        await this.disconnect(name);
        const config = this.deps.settings()[name];
        if (this.closed) return;
        if (!config.enabled) {
          live.lastError = undefined;
          // the outcome of a restart is an event either way (the UI reloads the state on it)
          if (actor !== 'start') this.deps.bus.publish('channel_disconnected', { channel: name, reason: 'turned off' });
          return;
        }
        if (!config.botToken) {
          live.lastError = `no bot token: set channels.${name}.botToken in the settings`;
          this.deps.bus.publish('channel_disconnected', { channel: name, reason: live.lastError });
          return;
        }
        if (!superseded()) await this.connect(name, config, actor);
      })
      .catch((err: Error) => console.error(`svc: ${name}: restart failed: ${this.redact(name, err.message)}`))
      .finally(() => live.pending--);
    return live.lifecycle.then(() => this.state(name));
  }

  /** Ends the attempt under way and forgets the planned retry. */
  private cancel(name: ChannelName): void {
    const live = this.live[name];
    live.attempt?.abort(new Error('cancelled'));
    if (live.retry) clearTimeout(live.retry.timer);
    live.retry = undefined;
  }

  private async connect(name: ChannelName, config: ChannelSettings, actor: string): Promise<void> {
    const live = this.live[name];
    const adapter = this.deps.adapters[name]();
    live.adapter = adapter;
    const attempt = (live.attempt = new AbortController());
    try {
      const { botName } = await bounded(
        (signal) =>
          adapter.start(
            { token: config.botToken, apiBaseUrl: config.apiBaseUrl },
            { message: (message) => this.receive(name, message), press: (press) => this.press(name, press) },
            (err, fatal) => {
              live.lastError = this.redact(name, err.message);
              console.error(`svc: ${name}: ${live.lastError}`);
              if (fatal && live.adapter === adapter && live.connected) {
                live.connected = false;
                // a lost connection is tried again later, unless the token was refused
                if (!(err instanceof ChannelRefused)) this.planRetry(name);
                this.deps.bus.publish('channel_disconnected', { channel: name, reason: this.why(name)! });
              }
            },
            signal,
          ),
        this.deps.timing?.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        attempt.signal,
      );
      live.connected = true;
      live.botName = botName;
      live.lastError = undefined;
      live.failures = 0;
      this.deps.bus.publish('channel_connected', { channel: name, botName });
      this.deps.audit.record({ actor, action: 'channel.connect', target: name, outcome: 'ok', details: { botName } });
    } catch (err) {
      live.adapter = undefined;
      await within(adapter.stop(), STOP_WAIT_MS).catch(() => undefined);
      // cancelled by a restart, a switch-off or the shutdown: that one says what comes next
      if (attempt.signal.aborted) return;
      const reason = this.redact(name, failureReason(err, API_NAME[name], config.apiBaseUrl));
      const news = actor !== 'retry' || reason !== live.lastError;
      live.lastError = reason;
      if (!(err instanceof ChannelRefused)) this.planRetry(name);
      // as it will read once this restart is over (it is still connecting until then)
      const why = this.why(name, live.retry ? 'retrying' : 'failed')!;
      // a retry that fails as the one before is no news to the audit log or the log
      if (news) {
        this.deps.audit.record({ actor, action: 'channel.connect', target: name, outcome: 'failed', details: { error: reason } });
        console.error(`svc: ${name} not connected: ${why}`);
      }
      // the state changed (the UI reloads it on this event)
      this.deps.bus.publish('channel_disconnected', { channel: name, reason: why });
    } finally {
      if (live.attempt === attempt) live.attempt = undefined;
    }
  }

  /** The next attempt after a failure: the network may heal, or the chat service come back. */
  private planRetry(name: ChannelName): void {
    const live = this.live[name];
    if (this.closed) return;
    live.failures++;
    const wait = Math.min((this.deps.timing?.retryBaseMs ?? RETRY_BASE_MS) * 2 ** (live.failures - 1), RETRY_MAX_MS);
    if (live.retry) clearTimeout(live.retry.timer);
    const timer = setTimeout(() => {
      live.retry = undefined;
      void this.restart(name, 'retry');
    }, wait);
    timer.unref();
    live.retry = { at: Date.now() + wait, timer };
  }

  private status(name: ChannelName): ChannelState['status'] {
    const live = this.live[name];
    if (!this.deps.settings()[name].enabled) return 'off';
    if (live.connected) return 'connected';
    if (live.pending > 0) return 'connecting';
    return live.retry ? 'retrying' : 'failed';
  }

  /** The reason it is not connected, with what happens next: read when asked, so "in 20 s" is true then. */
  private why(name: ChannelName, status = this.status(name)): string | undefined {
    const live = this.live[name];
    if (!live.lastError) return undefined;
    switch (status) {
      case 'retrying':
        return `${live.lastError}; retrying in ${Math.max(1, Math.ceil((live.retry!.at - Date.now()) / 1000))} s`;
      case 'connecting':
        return `${live.lastError}; trying again now`;
      default:
        return live.lastError;
    }
  }

  private async disconnect(name: ChannelName): Promise<void> {
    const live = this.live[name];
    const adapter = live.adapter;
    live.adapter = undefined;
    if (!adapter) return;
    const was = live.connected;
    live.connected = false;
    await within(adapter.stop(), STOP_WAIT_MS).catch((err: Error) => console.error(`svc: ${name} did not stop cleanly: ${this.redact(name, err.message)}`));
    if (was) this.deps.bus.publish('channel_disconnected', { channel: name, reason: 'stopped' });
  }

  /** Errors never carry the bot token (grammY and discord.js put URLs in some messages). */
  private redact(name: ChannelName, text: string): string {
    const token = this.deps.settings()[name].botToken;
    return token ? text.split(token).join('***') : text;
  }

  /** A one-time code, only while the bot is connected: it could not receive the code otherwise. */
  issuePairingCode(name: ChannelName, actor: string): { code: string; expiresAt: number } {
    const state = this.state(name);
    if (!state.pairable) {
      const message = this.notPairable(name, state);
      this.deps.audit.record({ actor, action: 'channel.pair.code', target: name, outcome: 'refused', details: { reason: message } });
      throw new AppError(503, 'CHANNEL_NOT_CONNECTED', message);
    }
    const issued = this.pairing.issue(name);
    this.deps.audit.record({ actor, action: 'channel.pair.code', target: name, outcome: 'ok', details: { expiresAt: issued.expiresAt } });
    return issued;
  }

  /** Why no pairing code now, and what to do first. */
  private notPairable(name: ChannelName, state: ChannelState): string {
    const label = CHANNEL_LABELS[name];
    const why = state.lastError ? ` (${state.lastError})` : '';
    const cannot = 'so the bot cannot receive a pairing code';
    switch (state.status) {
      case 'off':
        return `${label} is off, ${cannot}: enable it (channels.${name}.enabled) with its bot token, then pair`;
      case 'connecting':
        return `${label} is still connecting${why}, ${cannot} yet: pair once it is connected (svc channel list, GET /api/channels)`;
      case 'retrying':
        return `${label} is not connected${why}, ${cannot}: check the network or channels.${name}.apiBaseUrl, then pair (POST /api/channels/${name}/restart tries again at once)`;
      default:
        return `${label} is not connected${why}, ${cannot}: fix the bot token (channels.${name}.botToken), then pair`;
    }
  }

  private receive(name: ChannelName, message: InboundMessage): void {
    const live = this.live[name];
    const config = this.deps.settings()[name];
    const allowed = config.allowlist.includes(message.chatId);
    const target: SendTarget = { chatId: message.chatId, threadId: message.threadId };
    if (!allowed) {
      if (this.pairing.redeem(name, message.text)) {
        this.deps.allow(name, message.chatId);
        this.deps.audit.record({ actor: `channel:${name}:${message.senderId}`, action: 'channel.pair', target: `${name}:${message.chatId}`, outcome: 'ok', details: { chat: message.chatTitle } });
        void this.reply(name, target, 'Paired: this chat can talk to svc now.').catch(() => undefined);
        return;
      }
      live.counts.ignored++;
      this.deps.audit.recordLimited(`channel.ignored:${name}:${message.chatId}`, {
        actor: `channel:${name}:${message.senderId}`,
        action: 'channel.ignored',
        target: `${name}:${message.chatId}`,
        outcome: 'refused',
        details: { reason: 'not on the allowlist' },
      });
      return;
    }
    if (message.group && config.mentionOnly && !message.addressed) return;
    live.counts.received++;
    live.lastChat = target;
    this.lastActive = name;
    const key = message.threadId ? `${message.chatId}:${message.threadId}` : message.chatId;
    const replier: Replier = {
      text: (markdown) => this.reply(name, target, markdown),
      typing: async () => this.adapterOf(name).typing(target),
      ...(config.toolStatus ? { status: this.statusChannel(name, target) } : {}),
    };
    const previous = live.chats.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.deps.onInbound(name, message, replier))
      .catch((err: Error) => {
        live.lastError = this.redact(name, err.message);
        console.error(`svc: ${name}: a message from ${key} failed: ${live.lastError}`);
      })
      .finally(() => {
        if (live.chats.get(key) === next) live.chats.delete(key);
      });
    live.chats.set(key, next);
  }

  /** A press of one of the bot's buttons: so far only permission prompts have any. */
  private press(name: ChannelName, press: ButtonPress): void {
    this.prompts.press(name, press).catch((err: Error) => console.error(`svc: ${name}: a button press failed: ${this.redact(name, err.message)}`));
  }

  /** Prompts go to a connected channel only: a request is still answered elsewhere when the chat is out of reach. */
  private promptChat(name: ChannelName): PromptChat | undefined {
    const adapter = this.live[name].adapter;
    if (!adapter || !this.live[name].connected) return undefined;
    return {
      maxLength: adapter.maxLength,
      sendButtons: (target, piece, rows) => this.counted(name, () => adapter.sendButtons(target, piece, rows)),
      settle: (target, messageId, piece) => withRetryAfter(() => adapter.settle(target, messageId, piece), this.deps.retry),
    };
  }

  private adapterOf(name: ChannelName): ChannelAdapter {
    const adapter = this.live[name].adapter;
    if (!adapter || !this.live[name].connected) {
      const why = this.why(name);
      throw new AppError(503, 'CHANNEL_NOT_CONNECTED', `${name} is not connected${why ? ` (${why})` : ''}: enable it and set its bot token in the settings, then POST /api/channels/${name}/restart`);
    }
    return adapter;
  }

  /** Sends Markdown to a chat as the channel shows it, in pieces under its limit; the ids sent. */
  private async reply(name: ChannelName, target: SendTarget, markdown: string): Promise<string[]> {
    const adapter = this.adapterOf(name);
    const ids: string[] = [];
    for (const piece of adapter.render(markdown)) ids.push(await this.counted(name, () => adapter.sendText(target, piece)));
    return ids;
  }

  private statusChannel(name: ChannelName, target: SendTarget): StatusChannel {
    return {
      send: (text) => this.counted(name, () => this.adapterOf(name).sendText(target, { text, html: false })),
      edit: async (id, text) => this.adapterOf(name).editText(target, id, text),
      remove: async (id) => this.adapterOf(name).deleteMessage(target, id),
    };
  }

  private async counted<T>(name: ChannelName, send: () => Promise<T>): Promise<T> {
    try {
      const result = await withRetryAfter(send, this.deps.retry);
      this.live[name].counts.sent++;
      return result;
    } catch (err) {
      this.live[name].counts.failed++;
      throw err;
    }
  }

  /** The outbound send: the target must be on the channel's allowlist, files must be in the media or working directory. */
  async send(request: SendRequest, actor: string): Promise<ChannelSendResult> {
    const name = this.channelFor(request.channel);
    const config = this.deps.settings()[name];
    const target = this.targetFor(name, request.target);
    const targetText = target.threadId ? `${target.chatId}:${target.threadId}` : target.chatId;
    const audit = (outcome: 'ok' | 'refused' | 'failed', details: Record<string, unknown>) =>
      this.deps.audit.record({ actor, action: 'channel.send', target: `${name}:${targetText}`, outcome, details: { type: request.type, ...details } });
    if (!config.allowlist.includes(target.chatId)) {
      audit('refused', { reason: 'not on the allowlist' });
      throw new AppError(403, 'TARGET_NOT_ALLOWED', `${targetText} is not on the ${name} allowlist: pair the chat (POST /api/channels/${name}/pair) or add it to channels.${name}.allowlist`);
    }
    let ids: string[];
    let file: string | undefined;
    try {
      if (request.type === 'text') {
        if (!request.text?.trim()) throw badRequest('VALIDATION_FAILED', 'a text send needs `text`', { field: 'text' });
        ids = await this.reply(name, target, request.text);
      } else {
        if (!request.file) throw badRequest('VALIDATION_FAILED', `a ${request.type} send needs \`file\``, { field: 'file' });
        const path = resolveSendFile(request.file, this.deps.paths());
        file = basename(path);
        const limit = FILE_LIMITS[name][request.type];
        if (statSync(path).size > limit) throw new AppError(413, 'FILE_TOO_LARGE', `${file} is larger than ${name} takes for a ${request.type} (${limit / 2 ** 20} MB)`);
        const adapter = this.adapterOf(name);
        ids = [await this.counted(name, () => adapter.sendFile(target, request.type as FileKind, path, request.caption))];
      }
    } catch (err) {
      const app = err instanceof AppError ? err : new AppError(502, 'CHANNEL_SEND_FAILED', `${name} refused the message: ${this.redact(name, (err as Error).message)}`);
      audit(app.status < 500 ? 'refused' : 'failed', { ...(file ? { file } : {}), error: app.code });
      throw app;
    }
    audit('ok', { messageIds: ids, ...(file ? { file } : {}) });
    return { ok: true, channel: name, target: targetText, type: request.type, messageId: ids[0]!, messageIds: ids };
  }

  /** `active`: the channel a message came from last, else the only connected one. */
  private channelFor(requested: SendRequest['channel']): ChannelName {
    if (requested !== 'active') return requested;
    if (this.lastActive) return this.lastActive;
    const connected = (['telegram', 'discord'] as const).filter((n) => this.live[n].connected);
    if (connected.length === 1) return connected[0]!;
    throw new AppError(409, 'NO_TARGET', connected.length ? 'both channels are connected and none has been written to yet: name the channel' : 'no channel is connected: enable one in the settings');
  }

  private targetFor(name: ChannelName, requested: string | undefined): SendTarget {
    if (requested) {
      const [chatId, threadId] = requested.split(':');
      return { chatId: chatId!, threadId };
    }
    const last = this.live[name].lastChat;
    if (last) return last;
    const allowlist = this.deps.settings()[name].allowlist;
    if (allowlist.length === 1) return { chatId: allowlist[0]! };
    throw new AppError(409, 'NO_TARGET', `no chat has written to ${name} yet: give \`target\` (a chat id on the allowlist)`);
  }

  /** Sends an answer of a run started elsewhere to the last chat that wrote, when the channel forwards. */
  async forward(text: string): Promise<void> {
    for (const name of ['telegram', 'discord'] as const) {
      const live = this.live[name];
      if (!this.deps.settings()[name].forwardReplies || !live.connected || !live.lastChat) continue;
      if (!this.deps.settings()[name].allowlist.includes(live.lastChat.chatId)) continue;
      await this.reply(name, live.lastChat, text).catch((err: Error) => console.error(`svc: ${name}: forwarding failed: ${this.redact(name, err.message)}`));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.prompts.close();
    await Promise.all((['telegram', 'discord'] as const).map(async (name) => {
      const live = this.live[name];
      // a shutdown does not wait for a connect attempt (the API may never answer) nor run queued restarts
      live.generation++;
      this.cancel(name);
      await live.lifecycle;
      // runs were stopped before this: the chats' last answers go out (for a while), then the connection closes
      await within(Promise.all(live.chats.values()).then(() => undefined), STOP_WAIT_MS).catch(() => undefined);
      await this.disconnect(name);
    }));
  }
}
