// The channel service's connections, with stub adapters (no bot library): a connect attempt is bounded
// even when the adapter never answers and ignores its signal, a restart, a switch-off and the shutdown
// never wait for one, a failure says why and when it is tried again, a refused token is not retried, and
// a pairing code is only handed out while the bot is connected (the one rule of the API, CLI and UI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../src/events/bus.ts';
import { ChannelService } from '../../../src/modules/channels/index.ts';
import { ChannelRefused, type ChannelAdapter } from '../../../src/modules/channels/adapter.ts';
import { channelsSettings, type ChannelsSettings } from '../../../src/modules/channels/settings.ts';
import type { AuditInput } from '../../../src/modules/security-audit/index.ts';

/** How one start goes: it gets the attempt's signal and resolves, rejects, or never settles. */
type Start = (signal: AbortSignal, onError: (err: Error, fatal: boolean) => void) => Promise<{ botName: string }>;

const never = () => new Promise<never>(() => undefined);

function harness(starts: Start[], timing: { connectTimeoutMs?: number; retryBaseMs?: number }) {
  const settings: ChannelsSettings = structuredClone(channelsSettings.defaults);
  settings.telegram = { ...settings.telegram, enabled: true, botToken: '123:secret-token' };
  const audit: AuditInput[] = [];
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  const bus = new EventBus();
  bus.subscribe((e) => events.push({ name: e.name, payload: e.payload }));
  const adapter = {
    /** The signal each start was given, in order. */
    signals: [] as AbortSignal[],
    startedAt: [] as number[],
    stops: 0,
    onError: undefined as ((err: Error, fatal: boolean) => void) | undefined,
  };
  const make = (): ChannelAdapter => ({
    name: 'telegram',
    maxLength: 4096,
    start(_config, _receive, onError, signal) {
      adapter.signals.push(signal);
      adapter.startedAt.push(Date.now());
      adapter.onError = onError;
      const next = starts[Math.min(adapter.signals.length - 1, starts.length - 1)]!;
      return next(signal, onError);
    },
    async stop() {
      adapter.stops++;
    },
    render: (markdown) => [{ text: markdown, html: false }],
    sendText: async () => '1',
    sendFile: async () => '1',
    sendButtons: async () => '1',
    settle: async () => undefined,
    editText: async () => undefined,
    deleteMessage: async () => undefined,
    typing: async () => undefined,
  });
  const service = new ChannelService({
    // a fresh document each time, as the settings service gives (the service compares the last two)
    settings: () => ({ telegram: settings.telegram, discord: settings.discord }),
    allow: () => undefined,
    adapters: { telegram: make, discord: make },
    audit: { record: (input) => audit.push(input), recordLimited: (_key, input) => audit.push(input) },
    bus,
    permissions: { get: () => undefined, decide: () => assert.fail('no permission requests here') },
    chatOf: () => undefined,
    paths: () => ({ workingDir: '/tmp', mediaDir: '/tmp', home: '/tmp' }),
    onInbound: async () => undefined,
    timing,
  });
  return { service, settings, audit, events, adapter };
}

/** `work`, or a failure naming `what` when it has not settled after a generous while (it would hang for ever). */
async function settles<T>(work: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(probe: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const refusedError = () => Object.assign(new Error("Network request for 'getMe' failed!"), { error: { code: 'ECONNREFUSED' } });

test('an attempt the API never answers (and the adapter never gives up) ends at the bound, saying why and when it retries', async () => {
  const { service, audit, events, adapter } = harness([never], { connectTimeoutMs: 50, retryBaseMs: 60_000 });
  const state = await settles(service.restart('telegram', 'user'), 'the restart');
  assert.equal(state.status, 'retrying');
  assert.equal(state.connected, false);
  assert.equal(state.pairable, false);
  assert.match(state.lastError!, /^the Bot API \(https:\/\/api\.telegram\.org\) did not answer in 0\.05 s; retrying in (59|60) s$/);
  assert.ok(state.retryAt! > Date.now() + 55_000 && state.retryAt! <= Date.now() + 60_000, `retryAt ${state.retryAt! - Date.now()} ms ahead`);
  assert.equal(adapter.signals[0]!.aborted, true, 'the adapter was told to cut its requests');
  assert.equal(adapter.stops, 1, 'and stopped');
  assert.deepEqual(events.at(-1), { name: 'channel_disconnected', payload: { channel: 'telegram', reason: state.lastError } });
  assert.deepEqual(audit.map((a) => [a.action, a.outcome]), [['channel.connect', 'failed']]);
  await service.close();
});

test('switching the channel off takes effect during an attempt that would take ten minutes', async () => {
  const { service, settings, adapter } = harness([never], { connectTimeoutMs: 600_000 });
  service.settingsChanged(); // nothing changed: no attempt
  assert.equal(adapter.signals.length, 0);
  const started = service.restart('telegram', 'user');
  await until(() => adapter.signals.length === 1, 'the attempt');
  assert.equal(service.state('telegram').status, 'connecting');
  settings.telegram = { ...settings.telegram, enabled: false };
  service.settingsChanged();
  await until(() => adapter.signals[0]!.aborted && adapter.stops === 1, 'the attempt to be cut');
  const answer = await settles(started, 'the restart that was under way');
  assert.equal(answer.status, 'off');
  assert.equal(service.state('telegram').lastError, undefined);
  assert.equal(adapter.signals.length, 1, 'no new attempt for a channel that is off');
  await service.close();
});

test('a restart supersedes the attempt under way and answers with the new one', async () => {
  const { service, adapter } = harness([never, async () => ({ botName: '@bot' })], { connectTimeoutMs: 600_000 });
  const first = service.restart('telegram', 'user');
  await until(() => adapter.signals.length === 1, 'the first attempt');
  const second = await settles(service.restart('telegram', 'user'), 'the second restart');
  assert.equal(adapter.signals[0]!.aborted, true);
  assert.equal(second.status, 'connected');
  await settles(first, 'the first restart');
  await service.close();
});

test('the shutdown does not wait for an attempt that would take ten minutes', async () => {
  const { service, adapter } = harness([never], { connectTimeoutMs: 600_000 });
  void service.restart('telegram', 'start');
  await until(() => adapter.signals.length === 1, 'the attempt');
  await settles(service.close(), 'the shutdown');
  assert.equal(adapter.signals[0]!.aborted, true);
  assert.equal(adapter.stops, 1);
});

test('a failed attempt is tried again after a wait that doubles; the same failure again is no news', async () => {
  const fail: Start = async () => {
    throw refusedError();
  };
  const { service, audit, events, adapter } = harness([fail, fail, async () => ({ botName: '@bot' })], { retryBaseMs: 30 });
  const state = await service.restart('telegram', 'user');
  assert.equal(state.status, 'retrying');
  assert.equal(state.lastError, 'cannot reach https://api.telegram.org: connection refused; retrying in 1 s');
  await until(() => service.state('telegram').connected, 'the retries to connect');
  const [t1, t2, t3] = adapter.startedAt as [number, number, number];
  assert.ok(t2 - t1 >= 25 && t3 - t2 >= 55, `waits of ${t2 - t1} and ${t3 - t2} ms`);
  const after = service.state('telegram');
  assert.deepEqual([after.status, after.lastError, after.retryAt, after.pairable], ['connected', undefined, undefined, true]);
  // the second identical failure (by the retry) is neither audited again nor a new log line
  assert.deepEqual(audit.map((a) => [a.actor, a.action, a.outcome]), [['user', 'channel.connect', 'failed'], ['retry', 'channel.connect', 'ok']]);
  assert.deepEqual(events.map((e) => e.name), ['channel_disconnected', 'channel_disconnected', 'channel_connected']);
  await service.close();
});

test('a refused token is not tried again: the state says to fix it', async () => {
  const { service, adapter } = harness([async () => {
    throw new ChannelRefused('the Bot API refused the bot token (401: Unauthorized): get a new one from @BotFather and set channels.telegram.botToken');
  }], { retryBaseMs: 1 });
  const state = await service.restart('telegram', 'user');
  assert.equal(state.status, 'failed');
  assert.equal(state.retryAt, undefined);
  assert.match(state.lastError!, /^the Bot API refused the bot token \(401: Unauthorized\)/);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(adapter.signals.length, 1, 'no second attempt');
  await service.close();
});

test('a connection lost for good is tried again, unless the token was refused', async () => {
  const { service, events, adapter } = harness([async () => ({ botName: '@bot' })], { retryBaseMs: 60_000 });
  await service.restart('telegram', 'user');
  adapter.onError!(new Error('Conflict: terminated by other getUpdates request'), true);
  let state = service.state('telegram');
  assert.equal(state.status, 'retrying');
  assert.match(state.lastError!, /^Conflict: terminated by other getUpdates request; retrying in (59|60) s$/);
  assert.deepEqual(events.at(-1), { name: 'channel_disconnected', payload: { channel: 'telegram', reason: state.lastError } });
  await service.restart('telegram', 'user');
  assert.equal(service.state('telegram').status, 'connected');
  adapter.onError!(new ChannelRefused('the Bot API refused the bot token (401: Unauthorized)'), true);
  state = service.state('telegram');
  assert.deepEqual([state.status, state.retryAt, state.lastError], ['failed', undefined, 'the Bot API refused the bot token (401: Unauthorized)']);
  await service.close();
});

test('a pairing code only while the bot is connected: otherwise the refusal says why and what to do', async () => {
  const refuse: Start = async () => {
    throw refusedError();
  };
  const { service, settings, audit } = harness([refuse, async () => ({ botName: '@bot' })], { retryBaseMs: 60_000 });
  const refusal = (): { status: number; code: string; message: string } => {
    try {
      service.issuePairingCode('telegram', 'user');
    } catch (err) {
      const e = err as { status: number; code: string; message: string };
      return { status: e.status, code: e.code, message: e.message };
    }
    throw new Error('a code was issued');
  };
  // not connected: unreachable
  await service.restart('telegram', 'user');
  assert.equal(service.state('telegram').pairable, false);
  const unreachable = refusal();
  assert.deepEqual([unreachable.status, unreachable.code], [503, 'CHANNEL_NOT_CONNECTED']);
  assert.match(unreachable.message, /^Telegram is not connected \(cannot reach https:\/\/api\.telegram\.org: connection refused; retrying in \d+ s\), so the bot cannot receive a pairing code: check the network or channels\.telegram\.apiBaseUrl, then pair/);
  assert.equal(audit.at(-1)!.action, 'channel.pair.code');
  assert.equal(audit.at(-1)!.outcome, 'refused');
  // connected: a code
  await service.restart('telegram', 'user');
  assert.equal(service.state('telegram').pairable, true);
  assert.match(service.issuePairingCode('telegram', 'user').code, /^\d{6}$/);
  // off
  settings.telegram = { ...settings.telegram, enabled: false };
  await service.restart('telegram', 'user');
  assert.equal(service.state('telegram').pairable, false);
  assert.match(refusal().message, /^Telegram is off, so the bot cannot receive a pairing code: enable it \(channels\.telegram\.enabled\)/);
  // no token
  settings.telegram = { ...settings.telegram, enabled: true, botToken: '' };
  await service.restart('telegram', 'user');
  assert.match(refusal().message, /^Telegram is not connected \(no bot token: set channels\.telegram\.botToken in the settings\), so the bot cannot receive a pairing code: fix the bot token/);
  await service.close();
});
