// The real Codex CLI (scripts/install-real-clis.sh) through svc with no way to its model API: every
// connection goes to a proxy on a closed loopback port, as on a machine without a network. Offline, codex
// 0.169 does not say it has no login: it reconnects five times, then prints "Reconnecting... waiting for
// network" every few seconds for as long as the network is down (checked by hand: over five minutes). So
// svc refuses a codex it finds no login for before starting it, and stops one that only waits for the network.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareRealCliEnv, realCliPath } from '../support/real-clis.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { postNdjson } from '../support/ndjson.ts';
import { openSse } from '../support/sse.ts';

/** A loopback port nothing listens on (taken from the system, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('real codex without a network', { skip: realCliPath('codex') ? false : 'codex not installed: run scripts/install-real-clis.sh' }, () => {
  let dir: string;
  let proxy: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-real-codex-offline-'));
    proxy = `http://127.0.0.1:${await closedPort()}`;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A server whose codex runs in a fresh home: the default OpenAI endpoint (not the prepared fake provider), unreachable. */
  async function serverWith(name: string, login: Record<string, string>, networkWaitMs: number): Promise<TestServer> {
    const prepared = prepareRealCliEnv('codex', 'http://127.0.0.1:9', join(dir, name));
    writeFileSync(join(prepared.home, '.codex', 'config.toml'), 'check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n');
    const server = await startServer({ retryBaseMs: 10, killGraceMs: 500, networkWaitMs });
    const env = { ...prepared.env, FAKE_OPENAI_API_KEY: '', OPENAI_API_KEY: '', CODEX_API_KEY: '', HTTPS_PROXY: proxy, HTTP_PROXY: proxy, ALL_PROXY: proxy, ...login };
    server.app.services.settings.update({ agent: { provider: 'codex', executables: { codex: realCliPath('codex')! }, env, workingDir: prepared.cwd, retries: 0, idleTimeoutSec: 90 } });
    return server;
  }

  test('not logged in: refused at once with the login command; codex never starts', { timeout: 90_000 }, async (t) => {
    // were codex started, it would wait for the network until the bound (5 s) and fail as `network`
    const server = await serverWith('nologin', {}, 5000);
    t.after(() => server.close());
    const sse = await openSse(`${server.url}/api/events`);
    t.after(() => sse.close());
    const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello' })).done).at(-1);
    assert.equal(done.status, 'error', JSON.stringify(done));
    assert.equal(done.failure, 'auth');
    assert.equal(done.fix, 'codex login');
    assert.match(done.reason, /^Codex CLI is not logged in: svc found no OPENAI_API_KEY or CODEX_API_KEY .*Run codex login in a terminal and sign in/);
    assert.ok(!sse.messages.some((m) => m.data.event === 'provider_line' || m.data.event === 'agent_retry'), 'no codex output: it never ran');
  });

  test('logged in (a key) but offline: its reconnects and network waits are reported, then svc stops it as network unreachable', { timeout: 90_000 }, async (t) => {
    const server = await serverWith('offline', { OPENAI_API_KEY: 'sk-fake-offline' }, 1000);
    t.after(() => server.close());
    const sse = await openSse(`${server.url}/api/events`);
    t.after(() => sse.close());
    const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'hello' })).done).at(-1);
    assert.equal(done.status, 'error', JSON.stringify(done));
    assert.equal(done.failure, 'network', 'ended by the bound on waiting for the network, long before the idle watchdog (90 s)');
    assert.match(done.reason, /^Codex CLI cannot reach its model service: the network is unreachable \(no connection for 1 s; waiting for the network: .+\)\. Check the internet connection, a proxy or VPN/);
    const retries = sse.messages.map((m) => m.data).filter((d) => d.event === 'agent_retry').map((d) => d.reason as string);
    assert.ok(retries.some((r) => /waiting for the network/.test(r)), JSON.stringify(retries));
  });
});
