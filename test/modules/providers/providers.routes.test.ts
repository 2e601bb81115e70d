// /api/cli-registry, /api/cli-status and /api/quota through real HTTP: the routes are registered on
// a second Fastify instance (with the service's error handler) next to a real server from
// startServer(), whose settings give the active provider. The CLIs are fake executables in a temp
// dir: `claude` answers --version at once, `codex` sleeps 10 s in a child that holds stdout open.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startServer, getJson, type TestServer } from '../../support/server.ts';
import { moduleServer } from '../../support/kit.ts';
import { providerRoutes } from '../../../src/modules/providers/providers.routes.ts';
import { CliDetector } from '../../../src/agent/detect.ts';
import { QuotaReader } from '../../../src/agent/quota.ts';
import { PROVIDER_IDS } from '../../../src/agent/providers/registry.ts';

/** Tests that check what is read, not the deadline, give reads time on a loaded machine. */
const SLOW_MACHINE_BUDGET_MS = 10_000;

const FIXTURE_HOME = join(import.meta.dirname, '../../fixtures/detect/codex-home');
const NOW = Date.parse('2026-11-21T18:30:00Z');

function script(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

function lines(path: string): number {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Alive and not a zombie (a container's PID 1 may not reap orphans). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    if (existsSync('/proc/self/stat')) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

describe('provider routes', { skip: process.platform === 'win32' }, () => {
  let server: TestServer;
  let api: FastifyInstance;
  let url: string;
  let dir: string;
  let bin: string;
  let codexHome: string;
  let detector: CliDetector;
  let quota: QuotaReader;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-providers-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
    script(join(bin, 'claude'), `echo "$@" >> ${dir}/claude.calls\necho "2.1.197 (Claude Code)"`);
    script(join(bin, 'codex'), `echo "$@" >> ${dir}/codex.calls\nsleep 10 &\necho $! > ${dir}/codex-sleep.pid\nwait`);
    script(join(bin, 'mytool'), `echo "$@" >> ${dir}/mytool.calls\necho 9.9.9`);
    codexHome = join(dir, 'codex-home');
    cpSync(FIXTURE_HOME, codexHome, { recursive: true });
    const older = new Date('2026-11-20T09:00:06Z');
    utimesSync(join(codexHome, 'sessions/2026/11/20/rollout-2026-11-20T08-40-12-0199a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl'), older, older);

    server = await startServer();
    const settings = server.app.services.settings;
    settings.update({ agent: { customCommand: ['mytool', '--prompt', '{prompt}'] } });
    detector = new CliDetector({ pathEnv: () => bin, customCommand: () => settings.get().agent.customCommand });
    quota = new QuotaReader({ codexHome: () => codexHome, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS });
    api = await moduleServer((a) => a.register(providerRoutes, { detector, quota, active: () => settings.get().agent }));
    await api.listen({ port: 0, host: '127.0.0.1' });
    const address = api.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  after(async () => {
    await detector?.close();
    await api?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('GET /api/cli-registry: every provider and the active choice from settings; detection not started', async () => {
    server.app.services.settings.update({ agent: { provider: 'codex', model: 'gpt-6.1-sol', effort: 'high' } });
    const { status, body } = await getJson(`${url}/api/cli-registry`);
    assert.equal(status, 200);
    assert.deepEqual(body.providers.map((p: { id: string }) => p.id), [...PROVIDER_IDS]);
    const claude = body.providers[0];
    assert.equal(claude.command, 'claude');
    assert.equal(claude.install.command, 'npm install -g @anthropic-ai/claude-code');
    assert.deepEqual(claude.efforts, ['low', 'medium', 'high', 'xhigh', 'max']);
    assert.equal(body.providers.find((p: { id: string }) => p.id === 'custom').install, null);
    assert.deepEqual(body.active, { provider: 'codex', model: 'gpt-6.1-sol', effort: 'high' });

    const bad = await getJson(`${url}/api/cli-registry?x=1`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'VALIDATION_FAILED');

    // Neither start-up nor the registry ran any CLI.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(detector.refreshing, false);
    assert.equal(lines(join(dir, 'claude.calls')), 0);
    assert.equal(lines(join(dir, 'codex.calls')), 0);
  });

  test('GET /api/cli-status answers at once while detection runs, and reports the results when done', async () => {
    const started = Date.now();
    const first = await getJson(`${url}/api/cli-status`);
    assert.ok(Date.now() - started < 500, `answered in ${Date.now() - started} ms`);
    assert.equal(first.status, 200);
    assert.equal(first.body.refreshing, true);
    assert.deepEqual(Object.keys(first.body.providers), [...PROVIDER_IDS]);
    assert.deepEqual(first.body.providers.codex, { state: 'detecting' });

    // The fast CLI shows up while the slow one is still pending.
    let second: Awaited<ReturnType<typeof getJson>> | undefined;
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const t = Date.now();
      second = await getJson(`${url}/api/cli-status`);
      assert.ok(Date.now() - t < 500);
      if (second.body.providers.claude.state === 'ready') break;
    }
    assert.equal(second!.body.providers.claude.version, '2.1.197');
    assert.deepEqual(second!.body.providers.codex, { state: 'detecting' });
    assert.equal(second!.body.refreshing, true);

    await detector.whenIdle();
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 4500 && elapsed < 8000, `detection took ${elapsed} ms (5 s probe deadline, the CLI sleeps 10 s)`);

    const done = await getJson(`${url}/api/cli-status`);
    const p = done.body.providers;
    assert.equal(done.body.refreshing, false);
    assert.equal(p.claude.state, 'ready');
    assert.equal(p.claude.installed, true);
    assert.equal(p.claude.path, join(bin, 'claude'));
    assert.equal(p.claude.version, '2.1.197');
    assert.equal(p.claude.error, undefined);
    assert.equal(typeof p.claude.checkedAt, 'number');
    assert.deepEqual(
      { installed: p.codex.installed, path: p.codex.path, version: p.codex.version, error: p.codex.error },
      { installed: true, path: join(bin, 'codex'), version: null, error: 'version probe timed out' },
    );
    assert.equal(p.gemini.installed, false);
    assert.equal(p.gemini.path, null);
    assert.match(p.gemini.error, /not found on PATH/);
    // custom: found through settings.agent.customCommand[0], but the user's program is never run
    assert.equal(p.custom.installed, true);
    assert.equal(p.custom.path, join(bin, 'mytool'));
    assert.equal(p.custom.version, null);
    assert.equal(lines(join(dir, 'mytool.calls')), 0);
    assert.equal(readFileSync(join(dir, 'claude.calls'), 'utf8'), '--version\n');

    // The whole process group was killed on the deadline, the sleeping child included.
    const sleepPid = Number(readFileSync(join(dir, 'codex-sleep.pid'), 'utf8'));
    for (let i = 0; i < 20 && alive(sleepPid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(sleepPid), false, 'the sleep child of the slow CLI is gone');
  });

  test('?refresh=1 re-detects in the background; concurrent refreshes coalesce', async () => {
    script(join(bin, 'codex'), `echo "$@" >> ${dir}/codex.calls\necho "codex-cli 0.169.0"`);
    const started = Date.now();
    const answer = await getJson(`${url}/api/cli-status?refresh=1`);
    assert.ok(Date.now() - started < 500);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.refreshing, true);
    // earlier results stay visible until replaced
    assert.equal(answer.body.providers.codex.state, 'ready');
    assert.equal(answer.body.providers.codex.error, 'version probe timed out');

    detector.refresh();
    await getJson(`${url}/api/cli-status?refresh=true`);
    await detector.whenIdle();
    assert.equal(lines(join(dir, 'claude.calls')), 2, 'one probe per detection run');
    assert.equal(lines(join(dir, 'codex.calls')), 2);

    const done = await getJson(`${url}/api/cli-status?refresh=0`);
    assert.equal(done.body.refreshing, false);
    assert.equal(done.body.providers.codex.version, '0.169.0');
    assert.equal(done.body.providers.codex.error, undefined);
    assert.equal(lines(join(dir, 'claude.calls')), 2, 'refresh=0 does not re-detect');
  });

  test('GET /api/cli-status rejects a bad refresh value and unknown parameters', async () => {
    const bad = await getJson(`${url}/api/cli-status?refresh=maybe`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'VALIDATION_FAILED');
    assert.equal(bad.body.field, 'refresh');
    const unknown = await getJson(`${url}/api/cli-status?force=1`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.field, 'force');
    assert.equal(detector.refreshing, false);
  });

  test('GET /api/quota: codex from its rollout, an observed claude limit, unknown elsewhere', async () => {
    quota.observe('claude', { kind: 'rate_limit', at: NOW - 60_000, resetsAt: NOW + 600_000, message: 'API Error: 429' });
    const started = Date.now();
    const { status, body } = await getJson(`${url}/api/quota`);
    assert.ok(Date.now() - started < 500);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body.providers), [...PROVIDER_IDS]);
    assert.equal(body.providers.codex.status, 'ok');
    assert.equal(body.providers.codex.source, 'codex-rollout');
    assert.deepEqual(
      body.providers.codex.windows.map((w: { name: string; usedPercent: number }) => [w.name, w.usedPercent]),
      [['5h', 42.5], ['7d', 77]],
    );
    assert.equal(body.providers.claude.status, 'limited');
    assert.equal(body.providers.claude.source, 'observed');
    assert.equal(body.providers.claude.resetsAt, NOW + 600_000);
    assert.deepEqual(body.providers.gemini, { status: 'unknown', source: 'none' });

    const bad = await getJson(`${url}/api/quota?provider=codex`);
    assert.equal(bad.status, 400);
  });
});
