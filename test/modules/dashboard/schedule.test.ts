// The schedule really sends: a due job's prompt reaches the instance once, its answer is recorded;
// a slot never fires twice; jobs survive a manager restart; offline or busy targets are skipped with why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, until, auth, type TestManager } from './helpers.ts';

async function setup(manager: TestManager, instance: AgentTestServer): Promise<string> {
  return (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token })).body.id;
}

const runsOf = async (manager: TestManager, jobId: string) => (await getJson(`${manager.url}/api/dashboard/schedule/jobs/${jobId}/runs`)).body.runs as any[];

test('a one-off job sends its prompt once and records the answer; jobs survive a manager restart', async () => {
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  let manager = await startManager({ scheduleTickMs: 100 });
  const home = manager.home;
  try {
    const id = await setup(manager, instance);
    const created = await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'nightly', instanceId: id, prompt: 'scheduled hello scenario:text', runAt: Date.now() + 200 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const job = created.body;
    const answered = await until(async () => (await runsOf(manager, job.id)).find((r) => r.status === 'answered'), 'the run answered');
    assert.equal(answered.slot, job.runAt);
    const page = (await getJson(`${instance.url}/api/messages`, { headers: auth(instance.app.services.token) })).body;
    const answer = page.messages.find((m: any) => m.id === answered.messageId);
    assert.equal(answer.role, 'assistant', 'the recorded message id is the answer');
    assert.equal(instance.invocations().filter((i) => /scheduled hello/.test(i.prompt)).length, 1);
    assert.equal((await getJson(`${manager.url}/api/dashboard/schedule/jobs/${job.id}`)).body.nextRunAt, null, 'a one-off job is spent');

    // a slot claimed once is never claimed again, however many ticks look at it
    const cron = (await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'every minute', instanceId: id, prompt: 'cron hello scenario:text', cron: '0 0 1 1 *', enabled: true })).body;
    assert.ok(cron.nextRunAt > Date.now());
    // a refused job names the field to change, as the schema's own 400s do (the page shows it under that field)
    const badCron = await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'bad', instanceId: id, prompt: 'x', cron: 'not a cron' });
    assert.deepEqual([badCron.status, badCron.body.field], [400, 'cron']);
    const both = await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'both', instanceId: id, prompt: 'x', cron: '* * * * *', runAt: Date.now() });
    assert.deepEqual([both.status, both.body.field], [400, 'cron']);
    const neither = await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'neither', instanceId: id, prompt: 'x' });
    assert.deepEqual([neither.status, neither.body.field], [400, 'runAt']);
    const badEdit = await sendJson(`${manager.url}/api/dashboard/schedule/jobs/${cron.id}`, 'PATCH', { cron: '61 * * * *' });
    assert.deepEqual([badEdit.status, badEdit.body.field], [400, 'cron']);

    await manager.close({ removeHome: false });
    manager = await startManager({ home, scheduleTickMs: 100 });
    const jobs = (await getJson(`${manager.url}/api/dashboard/schedule/jobs`)).body.jobs;
    assert.deepEqual(jobs.map((j: any) => j.id).sort(), [job.id, cron.id].sort());
    assert.equal((await runsOf(manager, job.id)).length, 1, 'the spent job did not fire again after the restart');
    const due = cron.nextRunAt + 1;
    manager.app.schedule.tick(due);
    manager.app.schedule.tick(due);
    const cronRuns = await until(async () => {
      const runs = await runsOf(manager, cron.id);
      return runs.some((r) => r.status === 'answered' || r.status === 'skipped') ? runs : undefined;
    }, 'the cron slot ran');
    assert.equal(cronRuns.length, 1, 'one run for the slot');
    assert.equal(cronRuns[0].slot, cron.nextRunAt);
  } finally {
    await manager.close();
    await instance.close();
  }
});

test('a busy target is skipped under the skip policy, an offline one always, each with the reason', async () => {
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager({ scheduleTickMs: 100 });
  let stopped = false;
  try {
    const id = await setup(manager, instance);
    const token = instance.app.services.token;
    // keep the instance busy with a run that does not end by itself
    void fetch(`${instance.url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(token) }, body: JSON.stringify({ prompt: 'long one scenario:text hang' }) }).catch(() => undefined);
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.busy ? true : undefined), 'the manager sees it busy');
    const busyJob = (await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'b', instanceId: id, prompt: 'must not be sent', runAt: Date.now() + 50, whenBusy: 'skip' })).body;
    const skipped = await until(async () => (await runsOf(manager, busyJob.id)).find((r) => r.status === 'skipped'), 'skipped for busy');
    assert.match(skipped.reason, /busy/);
    assert.equal(instance.invocations().filter((i) => /must not be sent/.test(i.prompt)).length, 0);
    await fetch(`${instance.url}/api/stop`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(token) }, body: '{}' });

    await instance.close();
    stopped = true;
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.status === 'offline' ? true : undefined), 'offline');
    const offJob = (await sendJson(`${manager.url}/api/dashboard/schedule/jobs`, 'POST', { title: 'o', instanceId: id, prompt: 'nobody home', runAt: Date.now() + 50, whenBusy: 'queue' })).body;
    const off = await until(async () => (await runsOf(manager, offJob.id)).find((r) => r.status === 'skipped'), 'skipped for offline');
    assert.match(off.reason, /offline/);
  } finally {
    await manager.close();
    if (!stopped) await instance.close();
  }
});
