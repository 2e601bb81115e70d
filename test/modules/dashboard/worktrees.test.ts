// Changes to review from the manager: every online instance's open worktrees, each labelled by its
// instance (one that cannot list them is named, not fatal), gone from the list once merged there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startFakeInstance } from './fake-instance.ts';
import { startManager } from './helpers.ts';

test('the manager lists the open worktrees of every instance, with a link target per instance', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'svc-dash-wt-'));
  writeFileSync(join(repo, 'README.md'), 'x\n');
  for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start']]) execFileSync('git', args, { cwd: repo });
  const instance = await startAgentServer({ workingDir: repo }, { classifyPeer: () => 'remote' as const });
  const old = await startFakeInstance();
  const manager = await startManager();
  try {
    const add = async (url: string, token: string, label: string) => (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url, token, label })).body.id as string;
    const id = await add(instance.url, instance.app.services.token, 'alpha');
    const idOld = await add(old.url, old.token, 'old');
    const worker = { name: 'w', role: 'r', provider: 'claude', model: '', instructions: '', capability: 'mutable' };
    const asOwner = (path: string, body: unknown) => getJson(`${instance.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${instance.app.services.token}` }, body: JSON.stringify(body) });
    const run = (await asOwner('/api/orchestrate/dispatch', { virtual: worker, isolation: 'worktree', task: 'x scenario:text write:a.txt=a', wait: true })).body;
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const listed = (await getJson(`${manager.url}/api/dashboard/worktrees`)).body;
    assert.deepEqual(listed.worktrees.map((w: { instanceId: string; instanceLabel: string; runId: string; branch: string }) => [w.instanceId, w.instanceLabel, w.runId, w.branch]), [[id, 'alpha', run.runId, `svc/${run.runId}`]]);
    assert.deepEqual(listed.errors.map((e: { instanceId: string }) => e.instanceId), [idOld], 'the instance that cannot list is named');
    assert.equal(listed.asked, 2);
    const merged = await asOwner(`/api/orchestrate/worker-runs/${run.runId}/merge`, {});
    assert.equal(merged.status, 200);
    assert.deepEqual((await getJson(`${manager.url}/api/dashboard/worktrees`)).body.worktrees, []);
  } finally {
    await manager.close();
    await old.close();
    await instance.close();
    rmSync(repo, { recursive: true, force: true });
  }
});
