// `svc channel list|send|pair` against a running server connected to a local fake Telegram Bot API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, startServer } from '../support/server.ts';
import { startFakeTelegram } from '../support/fake-telegram.ts';
import { runSvc } from '../support/cli.ts';


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
