// `svc channel list|send|pair` against a running server connected to a local fake Telegram Bot API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, startServer } from '../support/server.ts';
import { startFakeTelegram } from '../support/fake-telegram.ts';
import { runSvc } from '../support/cli.ts';
import { renderChannel } from '../../src/cli/channel.ts';
import type { ChannelState } from '../../src/protocol/channels.ts';


const svc = (args: string[]) => runSvc(args);

test('svc channel: list, send (text and refusal), pair', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeTelegram();
  t.after(() => fake.close());
  const server = await startServer();
  t.after(() => server.close());
  const url = ['--url', server.url];
  server.app.services.settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
  await server.app.services.channels.restart('telegram', 'test');
  assert.equal((await getJson(`${server.url}/api/channels`)).body.channels[0].connected, true);

  const list = await svc(['channel', 'list', ...url]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^telegram  connected as @svc_test_bot; 1 allowed, 0 received, 0 ignored, 0 sent\ndiscord   off;/);

  const sent = await svc(['channel', 'send', 'build', 'is', '**green**', '--channel', 'telegram', '--target', '4242', ...url]);
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /^sent to telegram 4242: message \d+\n$/);
  assert.equal(fake.calls.at(-1)!.params.text, 'build is <b>green</b>');

  const refused = await svc(['channel', 'send', 'hi', '--channel', 'telegram', '--target', '5555', ...url]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /5555 is not on the telegram allowlist/);

  const pair = await svc(['channel', 'pair', 'telegram', ...url]);
  assert.equal(pair.code, 0, pair.stderr);
  assert.match(pair.stdout, /^Send \d{6} \(or \/pair \d{6}\) to the bot/);
});

test('svc channel pair refuses while the bot is not connected, saying why and what to do; list shows the reason', { timeout: 120_000 }, async (t) => {
  const fake = await startFakeTelegram();
  await fake.refuse();
  t.after(() => fake.close());
  const server = await startServer({ channelTiming: { retryBaseMs: 600_000 } });
  t.after(() => server.close());
  const url = ['--url', server.url];
  const originalError = console.error;
  console.error = () => undefined; // the server logs the failed attempt
  t.after(() => (console.error = originalError));
  server.app.services.settings.update({ channels: { telegram: { enabled: true, botToken: fake.token, apiBaseUrl: fake.url, allowlist: ['4242'] } } });
  assert.equal((await server.app.services.channels.restart('telegram', 'test')).status, 'retrying');

  const pair = await svc(['channel', 'pair', 'telegram', ...url]);
  assert.equal(pair.code, 1, pair.stdout);
  assert.equal(pair.stdout, '', 'no code is printed');
  assert.match(pair.stderr, /^svc channel pair: Telegram is not connected \(cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused; retrying in \d+ s\), so the bot cannot receive a pairing code: check the network or channels\.telegram\.apiBaseUrl, then pair/);

  const list = await svc(['channel', 'list', ...url]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^telegram  not connected: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused; retrying in \d+ s; 1 allowed/);
});

test('svc channel list: connecting, or not connected with the reason and when it retries', () => {
  const base: ChannelState = { name: 'telegram', enabled: true, configured: true, connected: false, status: 'connecting', allowlist: [], pairable: false, counts: { received: 0, ignored: 0, sent: 0, failed: 0 } };
  const list = (...channels: ChannelState[]) => renderChannel({ kind: 'list' }, { channels });
  assert.equal(list(base), 'telegram  connecting; 0 allowed, 0 received, 0 ignored, 0 sent');
  assert.equal(list({ ...base, status: 'retrying', lastError: 'cannot reach https://api.telegram.org: connection refused; retrying in 5 s', retryAt: 1 }), 'telegram  not connected: cannot reach https://api.telegram.org: connection refused; retrying in 5 s; 0 allowed, 0 received, 0 ignored, 0 sent');
  assert.equal(list({ ...base, status: 'failed' }), 'telegram  not connected; 0 allowed, 0 received, 0 ignored, 0 sent');
  assert.equal(list({ ...base, enabled: false, status: 'off' }), 'telegram  off; 0 allowed, 0 received, 0 ignored, 0 sent');
});
