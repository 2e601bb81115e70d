// The fleet's work queue over the real nats-server and JetStream: items queued to "any" are spread across two
// machines that take work; an item pinned to a machine runs there; an item no machine can run waits; a machine
// killed with SIGKILL mid-run loses the item to the other machine after the ack wait, and the item completes once,
// its first attempt abandoned. Bad input gets a 4xx that says what to fix.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { joinFleet } from '../../../src/modules/fleet/hub-side.ts';
import { createCoreServer } from '../../../src/servers/core.ts';
import { FAKE_CLIS, startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { SVC_BIN } from '../../support/cli.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { openSse, type SseConnection } from '../../support/sse.ts';
import { until, type TestManager } from '../dashboard/helpers.ts';
import { fleetManager, invite, machineHome, skipWithoutNats } from './helpers.ts';

const ACK_WAIT_MS = 2_000;

describe('the fleet\'s work queue', { skip: skipWithoutNats, timeout: 120_000 }, () => {
  let manager: TestManager;
  let natsUrl: string;
  let sse: SseConnection;
  let inProcess: AgentTestServer;
  let child: ChildProcess;
  let childOut = '';
  const ids = { a: '', b: '' };
  const homes = { a: machineHome(), b: machineHome() };
  const api = (path: string) => `${manager.url}${path}`;
  const item = async (id: string) => (await getJson(api(`/api/dashboard/work/${id}`))).body;
  const queue = async (body: Record<string, unknown>) => {
    const res = await sendJson(api('/api/dashboard/work'), 'POST', body);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const ended = (id: string, timeoutMs = 30_000) =>
    until(async () => {
      const i = await item(id);
      return i.status === 'succeeded' || i.status === 'failed' ? i : undefined;
    }, `work ${id} ended`, timeoutMs).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await getJson(api('/api/dashboard/work'))).body.items.map((i: any) => [i.prompt, i.status, i.reason, i.attempts]))}\n${childOut}`);
    });

  before(async () => {
    const fleet = await fleetManager({ heartbeatMs: 5_000, workAckWaitMs: ACK_WAIT_MS });
    ({ manager, url: natsUrl } = fleet);
    sse = await openSse(api('/api/events'));
    // machine a: svc serve in this process, with the fake CLIs
    ids.a = (await joinFleet({ url: natsUrl, code: (await invite(manager)).code, name: 'laptop', home: homes.a })).machineId;
    inProcess = await startAgentServer({}, { home: homes.a });
    // a machine takes only work its provider can run: the fake claude with a login of its own
    const { env } = inProcess.app.services.settings.get().agent;
    inProcess.app.services.settings.update({ agent: { env: { ...env, ANTHROPIC_API_KEY: 'fake-key' } } });
    // machine b: svc serve in a process of its own (to be killed), its settings written before it joined
    const setup = await createCoreServer({ home: homes.b, logLevel: 'silent' });
    setup.services.settings.update({ agent: { executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: homes.b, ANTHROPIC_API_KEY: 'fake-key' } } });
    await setup.close();
    ids.b = (await joinFleet({ url: natsUrl, code: (await invite(manager)).code, name: 'home server', home: homes.b })).machineId;
    child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', '--proxy-port', '0', '--home', homes.b], { env: { PATH: process.env.PATH, HOME: homes.b } });
    child.stdout!.on('data', (c) => (childOut += c));
    child.stderr!.on('data', (c) => (childOut += c));
    await until(() => manager.app.fleet.hub!.machines().every((m) => m.online) && manager.app.fleet.hub!.machines().length === 2, 'both machines online', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${childOut}`);
    });
  });
  after(async () => {
    sse?.close();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await inProcess?.close({ removeHome: false });
    await manager?.close();
    for (const home of Object.values(homes)) rmSync(home, { recursive: true, force: true });
  });

  test('bad input: an unknown machine, provider or item, a relative directory', async () => {
    const unknownMachine = await sendJson(api('/api/dashboard/work'), 'POST', { prompt: 'x', machine: 'm_nope' });
    assert.equal(unknownMachine.status, 400);
    assert.match(unknownMachine.body.message, /no machine m_nope/);
    assert.equal((await sendJson(api('/api/dashboard/work'), 'POST', { prompt: 'x', provider: 'nope' })).status, 400);
    assert.equal((await sendJson(api('/api/dashboard/work'), 'POST', { prompt: 'x', workingDir: 'relative/dir' })).status, 400);
    assert.equal((await sendJson(api('/api/dashboard/work'), 'POST', { prompt: '   ' })).status, 400);
    assert.equal((await getJson(api('/api/dashboard/work/work_nope'))).status, 404);
  });

  test('work queued to "any" is spread across both machines; a pinned item runs on its machine', async () => {
    const queued = [];
    for (let i = 0; i < 4; i++) queued.push(await queue({ prompt: `item ${i} scenario:text delay:150` }));
    const done = await Promise.all(queued.map((id) => ended(id)));
    for (const d of done) assert.equal(d.status, 'succeeded', JSON.stringify(d));
    assert.deepEqual(new Set(done.map((d) => d.machineId)), new Set([ids.a, ids.b]), 'both machines ran some');
    assert.ok(done.every((d) => d.answer && d.attempts.length === 1 && d.runId && d.instanceId?.startsWith(`fleet_${d.machineId}_`)));
    const pinned = await ended(await queue({ prompt: 'only on the laptop scenario:text', machine: ids.a }));
    assert.equal(pinned.machineId, ids.a);
    // each change was an event
    const events = sse.messages.filter((m) => m.data.event === 'fleet_work' && m.data.id === pinned.id).map((m) => m.data.status);
    assert.deepEqual(events, ['queued', 'running', 'succeeded']);
  });

  test('the executive queues work to "any" with its queue_work tool\'s route', async () => {
    const res = await sendJson(api('/api/svc-ceo/work'), 'POST', { prompt: 'from the executive scenario:text' });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal((await ended(res.body.id)).status, 'succeeded');
    assert.equal((await sendJson(api('/api/svc-ceo/work'), 'POST', { prompt: 'x', provider: 'nope' })).status, 400);
  });

  test('an item no machine can run waits in the queue', async () => {
    const id = await queue({ prompt: 'nowhere', workingDir: '/no/such/directory/anywhere' });
    await new Promise((r) => setTimeout(r, 3_000));
    const waiting = await item(id);
    assert.equal(waiting.status, 'queued');
    assert.equal(waiting.attempts.length, 0);
  });

  test('a machine killed mid-run: the item goes to the other after the ack wait and completes once', async () => {
    inProcess.app.services.settings.update({ fleet: { acceptWork: false } });
    const id = await queue({ prompt: 'long work scenario:text delay:400' });
    const running = await until(async () => {
      const i = await item(id);
      return i.status === 'running' ? i : undefined;
    }, 'the item running on the home server', 20_000);
    assert.equal(running.machineId, ids.b);
    child.kill('SIGKILL');
    inProcess.app.services.settings.update({ fleet: { acceptWork: true } });
    const done = await ended(id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.machineId, ids.a);
    assert.deepEqual(done.attempts.map((a: any) => [a.machineId, a.status]), [[ids.b, 'abandoned'], [ids.a, 'succeeded']]);
    const statuses = sse.messages.filter((m) => m.data.event === 'fleet_work' && m.data.id === id).map((m) => m.data.status);
    assert.equal(statuses.filter((s) => s === 'succeeded').length, 1, 'it completed once');
  });
});
