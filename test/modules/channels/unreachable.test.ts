// Telegram (grammY) and Discord (discord.js) when their API cannot be reached: connections refused, and
// an API that accepts requests and never answers (the fakes' refuse() and hang()). The state says why and
// when it tries again, the restart route answers at the connect bound, a switch-off and the shutdown cut
// the hanging request at once, pairing is refused with what to do, and the channel connects by itself
// once the API is back. "At once" is checked functionally: the attempts here are given ten minutes, and
// the fake never answers, so a switch-off or a close that waited for either would not finish at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { startFakeTelegram } from '../../support/fake-telegram.ts';
import { startFakeDiscord } from '../../support/fake-discord.ts';
import { openSse } from '../../support/sse.ts';

interface Fake {
  url: string;
  token: string;
  stalled: { path: string; closed: boolean }[];
  hang(): void;
  refuse(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

const CHANNELS = [
  { name: 'telegram', label: 'Telegram', api: 'the Bot API', start: (): Promise<Fake> => startFakeTelegram() },
  { name: 'discord', label: 'Discord', api: 'Discord', start: (): Promise<Fake> => startFakeDiscord() },
] as const;

/** Long enough that nothing here may wait for it: an attempt that is not cut would outlast the test. */
const TEN_MINUTES = 600_000;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `work`, or a failure naming `what` when it has not settled after a generous while (it would hang for ever). */
async function settles<T>(work: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle in ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function stateOf(server: TestServer, name: string) {
  return (await getJson(`${server.url}/api/channels`)).body.channels.find((c: { name: string }) => c.name === name);
}

function enable(server: TestServer, name: string, fake: Fake, enabled = true) {
  server.app.services.settings.update({ channels: { [name]: { enabled, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
}

// what the service logs about each failed attempt is expected here
function quiet(t: { after(fn: () => void): void }) {
  const original = console.error;
  console.error = () => undefined;
  t.after(() => (console.error = original));
}

for (const { name, label, start } of CHANNELS) {
  test(`${name}, connections refused: the state says why and when it retries, pairing says what to do, and it connects once the API is back`, { timeout: 90_000 }, async (t) => {
    quiet(t);
    const fake = await start();
    await fake.refuse();
    const server = await startServer({ channelTiming: { retryBaseMs: 300 } });
    t.after(async () => {
      await server.close();
      await fake.close();
    });
    const events = await openSse(`${server.url}/api/events`);
    t.after(() => events.close());
    enable(server, name, fake);

    const state = await until(async () => {
      const s = await stateOf(server, name);
      return s.status === 'retrying' ? s : undefined;
    }, 'the failed attempt');
    assert.match(state.lastError, new RegExp(`^cannot reach ${escape(fake.url)}: connection refused; retrying in \\d+ s$`));
    assert.equal(typeof state.retryAt, 'number');
    assert.deepEqual([state.connected, state.pairable], [false, false]);
    const event = await until(() => events.messages.find((m) => m.data.event === 'channel_disconnected' && m.data.channel === name)?.data, 'channel_disconnected');
    assert.match(event.reason, /connection refused; retrying in \d+ s$/);

    const pair = await sendJson(`${server.url}/api/channels/${name}/pair`, 'POST', {});
    assert.deepEqual([pair.status, pair.body.error], [503, 'CHANNEL_NOT_CONNECTED']);
    // (a retry may be under way by now)
    assert.match(pair.body.message, new RegExp(`^${label} is (not connected|still connecting) \\(cannot reach ${escape(fake.url)}: connection refused; (retrying in \\d+ s|trying again now)\\), so the bot cannot receive a pairing code( yet)?: (check the network or channels\\.${name}\\.apiBaseUrl, then pair|pair once it is connected)`));

    await fake.resume();
    const connected = await until(async () => {
      const s = await stateOf(server, name);
      return s.connected ? s : undefined;
    }, 'the retry to connect');
    assert.deepEqual([connected.status, connected.pairable, connected.lastError, connected.retryAt], ['connected', true, undefined, undefined]);
    assert.equal((await sendJson(`${server.url}/api/channels/${name}/pair`, 'POST', {})).status, 200);
  });

  test(`${name}, an API that never answers: POST /api/channels/${name}/restart answers at once (202, connecting); at the connect bound channel_disconnected says why, and the request is cut`, { timeout: 90_000 }, async (t) => {
    quiet(t);
    const fake = await start();
    fake.hang();
    const server = await startServer({ channelTiming: { connectTimeoutMs: 300, retryBaseMs: TEN_MINUTES } });
    t.after(async () => {
      await server.close();
      await fake.close();
    });
    enable(server, name, fake);
    await until(() => fake.stalled.length > 0, 'a request to the API');
    const reasons: string[] = [];
    server.app.services.bus.subscribe((event) => {
      if (event.name === 'channel_disconnected' && event.payload.channel === name) reasons.push(String(event.payload.reason));
    });

    // the answer does not wait for the attempt: it is still connecting
    const answer = await settles(sendJson(`${server.url}/api/channels/${name}/restart`, 'POST', {}), 'the restart');
    assert.equal(answer.status, 202);
    assert.equal(answer.body.status, 'connecting');
    const api = name === 'telegram' ? 'the Bot API' : 'Discord';
    const why = new RegExp(`^${api} \\(${escape(fake.url)}\\) did not answer in 0.3 s; retrying in \\d+ s$`);
    await until(() => reasons.some((r) => why.test(r)), 'channel_disconnected with the reason');
    const state = await stateOf(server, name);
    assert.equal(state.status, 'retrying');
    assert.match(state.lastError!, why);
    await until(() => fake.stalled.every((r) => r.closed), 'the hanging requests to be cut');
  });

  test(`${name}, an API that never answers: switching the channel off and the shutdown cut the attempt at once`, { timeout: 90_000 }, async (t) => {
    quiet(t);
    const fake = await start();
    fake.hang();
    const server = await startServer({ channelTiming: { connectTimeoutMs: TEN_MINUTES } });
    t.after(async () => {
      await server.close();
      await fake.close();
    });
    enable(server, name, fake);
    await until(() => fake.stalled.length > 0, 'a request to the API');
    assert.equal((await stateOf(server, name)).status, 'connecting');

    enable(server, name, fake, false);
    await until(() => fake.stalled.every((r) => r.closed), 'the switch-off to cut the hanging request');
    // and a restart behind it is not queued behind the hang
    const off = await settles(sendJson(`${server.url}/api/channels/${name}/restart`, 'POST', {}), 'a restart after the switch-off');
    assert.equal(off.body.status, 'off');

    enable(server, name, fake);
    await until(() => fake.stalled.some((r) => !r.closed), 'a new request to the API');
    await settles(server.app.close(), 'the shutdown');
    await until(() => fake.stalled.every((r) => r.closed), 'the shutdown to cut the hanging request');
  });
}

for (const { name, start } of CHANNELS) {
  test(`${name}, a refused token: failed, says to fix the token, and is not tried again`, { timeout: 90_000 }, async (t) => {
    quiet(t);
    const fake = await start();
    const server = await startServer({ channelTiming: { retryBaseMs: 1 } });
    t.after(async () => {
      await server.close();
      await fake.close();
    });
    server.app.services.settings.update({ channels: { [name]: { enabled: true, botToken: `${fake.token}x`, apiBaseUrl: fake.url } } });
    const state = (await server.app.services.channels.restart(name, 'test')) as { status: string; retryAt?: number; lastError?: string };
    assert.equal(state.status, 'failed');
    assert.equal(state.retryAt, undefined);
    assert.match(state.lastError!, new RegExp(`refused the bot token \\((401: Unauthorized|An invalid token was provided\\.)\\): .*set channels\\.${name}\\.botToken$`));
    assert.ok(!state.lastError!.includes(fake.token));
  });
}
