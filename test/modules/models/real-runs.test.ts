// Runs on a model endpoint with the real CLIs: the model `local/fake-model` picked under Claude Code, Codex, OpenCode
// and Pi reaches the user's own server (the fake model on loopback, in the API each CLI speaks), with the
// endpoint's key and not the user's vendor key, and a tool call is carried out; the user's own CLI configuration
// (which points elsewhere) is byte-identical afterwards. A provider that cannot speak the endpoint's API, and a run
// that needs tools on a server whose probe found none, are refused before a CLI starts.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFakeModel, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath, type RealCliName } from '../../support/real-clis.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';

const ENDPOINT_KEY = 'sk-endpoint-key';
const USERS_OWN_KEY = 'sk-users-own-vendor-key';
const CASES: { cli: RealCliName; api: 'anthropic' | 'openai-responses' | 'openai-chat'; wire: string }[] = [
  { cli: 'opencode', api: 'openai-chat', wire: 'chat' },
  { cli: 'codex', api: 'openai-responses', wire: 'responses' },
  { cli: 'claude', api: 'anthropic', wire: 'anthropic' },
  { cli: 'pi', api: 'openai-chat', wire: 'chat' },
];

/**
 * The CLI's environment as a user has it: its own configuration, pointing at its vendor (not at the endpoint), and
 * the files of it that a run must leave as they are.
 */
function usersOwnSetup(cli: RealCliName, fake: FakeModel): { env: Record<string, string>; cwd: string; files: string[] } {
  const prepared = prepareRealCliEnv(cli, fake.url, mkdtempSync(join(tmpdir(), `svc-endpoint-${cli}-`)));
  const env = { ...prepared.env };
  const files: string[] = [];
  if (cli === 'claude') {
    delete env.ANTHROPIC_BASE_URL;
    env.ANTHROPIC_API_KEY = USERS_OWN_KEY;
    const settings = join(prepared.home, '.claude', 'settings.json');
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(settings, JSON.stringify({ model: 'sonnet' }));
    files.push(settings);
  } else if (cli === 'codex') {
    const config = join(env.CODEX_HOME!, 'config.toml');
    writeFileSync(config, 'model = "gpt-5.5"\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n');
    env.OPENAI_API_KEY = USERS_OWN_KEY;
    files.push(config);
  } else if (cli === 'pi') {
    // the user's own Pi directory: svc's runs read svc's, where the endpoint is written
    const agentDir = env.PI_CODING_AGENT_DIR!;
    files.push(join(agentDir, 'models.json'), join(agentDir, 'settings.json'));
  } else {
    // as opencode keeps it (it adds its $schema to a config it loads, whoever runs it)
    writeFileSync(env.OPENCODE_CONFIG!, `${JSON.stringify({ $schema: 'https://opencode.ai/config.json', autoupdate: false, share: 'disabled' }, null, 2)}\n`);
    files.push(env.OPENCODE_CONFIG!);
  }
  return { env, cwd: prepared.cwd, files };
}

describe('runs on a model endpoint, with the real CLIs', { concurrency: 3 }, () => {
  const closing: (() => Promise<void>)[] = [];
  after(async () => {
    for (const close of closing) await close();
  });

  for (const { cli, api, wire } of CASES) {
    test(`${cli}: local/fake-model reaches the user's server in ${api}, with its key; a tool call runs; the user's config is untouched`, { skip: realCliPath(cli) ? false : `${cli} not installed: run scripts/install-real-clis.sh` }, async () => {
      const fake = await startFakeModel();
      const server: TestServer = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
      closing.push(() => server.close(), () => fake.close());
      const { env, cwd, files } = usersOwnSetup(cli, fake);
      const before = files.map((f) => readFileSync(f));
      const added = await sendJson(`${server.url}/api/models/endpoints`, 'POST', { id: 'local', name: 'My server', baseUrl: api === 'anthropic' ? fake.url : `${fake.url}/v1`, api, apiKey: ENDPOINT_KEY, models: ['fake-model'] });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      server.app.services.settings.update({ agent: { provider: cli, model: 'local/fake-model', executables: { [cli]: realCliPath(cli)! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 90, autoApprove: true } });

      const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: 'Run the command. scenario:tool' })).done;
      const done = lines.at(-1);
      assert.equal(done.status, 'ok', JSON.stringify(lines.slice(-3)));
      assert.match(done.text, /hello-from-tool/, 'the tool ran and its output came back to the model');
      const calls = fake.modelRequests().filter((r) => r.model === 'fake-model');
      assert.ok(calls.length >= 2, JSON.stringify(fake.requests.map((r) => [r.path, r.model])));
      assert.ok(calls.every((r) => r.api === wire), JSON.stringify(calls.map((r) => r.api)));
      for (const r of fake.requests) {
        assert.ok(!String(r.auth ?? '').includes(USERS_OWN_KEY), `the user's own vendor key never reaches the endpoint (${r.path})`);
      }
      assert.ok(calls.every((r) => String(r.auth).includes(ENDPOINT_KEY)), JSON.stringify(calls.map((r) => r.auth)));
      files.forEach((f, i) => assert.ok(existsSync(f) && readFileSync(f).equals(before[i]!), `${f} is byte-identical:\n${before[i]}\n---\n${existsSync(f) ? readFileSync(f, 'utf8') : '(gone)'}`));
    });
  }
});

describe('runs on a model endpoint that cannot work: refused before a CLI starts', () => {
  let server: TestServer;
  let fake: FakeModel;
  after(async () => {
    await server?.close();
    await fake?.close();
  });

  test('a provider that cannot speak its API, and a mutable run on a server whose probe found no tool calls', async () => {
    fake = await startFakeModel({ server: { tools: false } });
    server = await startServer();
    for (const body of [
      { id: 'chat', name: 'chat', baseUrl: `${fake.url}/v1`, api: 'openai-chat' },
      { id: 'notools', name: 'no tools', baseUrl: fake.url, api: 'anthropic', models: ['fake-model'] },
    ]) assert.equal((await sendJson(`${server.url}/api/models/endpoints`, 'POST', body)).status, 201);
    const probed = await getJson(`${server.url}/api/models/endpoints/notools/probe`, { method: 'POST' });
    assert.equal(probed.body.probe.tools.ok, false, JSON.stringify(probed.body));
    const run = async (model: string) => {
      server.app.services.settings.update({ agent: { provider: 'claude', model, autoApprove: true, retries: 0 } });
      return (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello' })).done).at(-1);
    };
    const before = fake.requests.length;
    const wrongApi = await run('chat/fake-model');
    assert.equal(wrongApi.status, 'error');
    assert.match(JSON.stringify(wrongApi), /speaks openai-chat, which claude cannot use: pick chat\/fake-model under opencode or pi/);
    const noTools = await run('notools/fake-model');
    assert.equal(noTools.status, 'error');
    assert.match(JSON.stringify(noTools), /found no tool calls, which this run needs/);
    assert.equal(fake.requests.length, before, 'no CLI reached the server');
  });
});
