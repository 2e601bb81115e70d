// Across instances: one memory search, the chat relay, read-only git with checked paths, and
// connectors that refuse an instance without the credential the manager issued to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, auth, type TestManager } from './helpers.ts';

const add = async (manager: TestManager, s: AgentTestServer, label: string) =>
  (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: s.url, token: s.app.services.token, label })).body.id as string;

test('memory search across instances, chat relay, git views and connectors', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'svc-git-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first commit'], { cwd: repo });
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\n');
  const a = await startAgentServer({ workingDir: repo }, { classifyPeer: () => 'remote' as const });
  const b = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  try {
    const idA = await add(manager, a, 'alpha');
    const idB = await add(manager, b, 'beta');
    for (const [s, text] of [[a, 'The zeppelin hangar is in Friedrichshafen.'], [b, 'Zeppelin rides start at nine.']] as const) {
      const saved = await getJson(`${s.url}/api/svc-memory/save`, { method: 'POST', headers: { ...auth(s.app.services.token), 'content-type': 'application/json' }, body: JSON.stringify({ path: 'notes/facts.md', content: `# Facts\n\n${text}\n` }) });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
    const search = (await getJson(`${manager.url}/api/dashboard/memory/search?q=zeppelin`)).body;
    assert.deepEqual(search.errors, []);
    assert.deepEqual(search.hits.map((h: any) => h.instanceLabel).sort(), ['alpha', 'beta']);
    assert.ok(search.hits.every((h: any) => /zeppelin/i.test(h.snippet)));
    assert.equal(search.searched, 2, 'how many instances were asked');
    // no hits says in how many instances there were none (the page's "No memory matches 'x' in 2 instances")
    const none = (await getJson(`${manager.url}/api/dashboard/memory/search?q=${encodeURIComponent('quetzalcoatlus')}`)).body;
    assert.deepEqual([none.hits, none.searched, none.errors], [[], 2, []]);

    const relayed = await fetch(`${manager.url}/api/dashboard/chat/${idB}/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'relay me scenario:text' }) });
    const lines = (await relayed.text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.at(-1).type, 'done');
    assert.equal(lines.at(-1).status, 'ok');
    assert.equal(b.invocations().filter((i) => /relay me/.test(i.prompt)).length, 1);

    const status = (await getJson(`${manager.url}/api/dashboard/git/${idA}/status`)).body;
    assert.equal(status.branch, 'main');
    assert.deepEqual(status.files, [{ path: 'a.txt', index: ' ', worktree: 'M' }]);
    assert.equal((await getJson(`${manager.url}/api/dashboard/git/${idA}/log`)).body.commits[0].subject, 'first commit');
    assert.deepEqual((await getJson(`${manager.url}/api/dashboard/git/${idA}/diff`)).body.files, [{ path: 'a.txt', added: 1, removed: 0 }]);
    assert.match((await getJson(`${manager.url}/api/dashboard/git/${idA}/file-diff?path=a.txt`)).body.diff, /\+two/);
    for (const bad of ['../etc/passwd', '/etc/passwd', '--output=/tmp/x', 'a/../../x']) {
      const answer = await getJson(`${manager.url}/api/dashboard/git/${idA}/file-diff?path=${encodeURIComponent(bad)}`);
      assert.equal(answer.status, 400, bad);
      assert.equal(answer.body.error, 'OUTSIDE_WORKING_DIR');
    }

    const refused = await sendJson(`${manager.url}/api/dashboard/connectors/board`, 'POST', { title: 'sneaky' });
    assert.equal(refused.status, 401);
    const forged = await getJson(`${manager.url}/api/dashboard/connectors/board`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-connector': 'svcc_made_up' }, body: JSON.stringify({ title: 'forged' }) });
    assert.equal(forged.status, 401);
    const issued = (await sendJson(`${manager.url}/api/dashboard/connectors/credentials`, 'POST', { instanceId: idA })).body;
    const made = await getJson(`${manager.url}/api/dashboard/connectors/board`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-connector': issued.credential }, body: JSON.stringify({ title: 'Ship it', lane: 'ready' }) });
    assert.equal(made.status, 201);
    assert.equal(made.body.source, 'connector');
    assert.equal(made.body.instanceId, idA, 'the item is the agent of the instance the credential belongs to');
    const audit = (await getJson(`${manager.url}/api/dashboard/connectors/audit`)).body.entries;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].actor, 'agent');
    assert.equal(audit[0].instanceId, idA);
    assert.equal(audit[0].targetId, made.body.id);
    assert.equal((await getJson(`${manager.url}/api/dashboard/board/items`)).body.items.length, 1, 'the refused writes left nothing');
    await getJson(`${manager.url}/api/dashboard/connectors/credentials/${idA}`, { method: 'DELETE' });
    const revoked = await getJson(`${manager.url}/api/dashboard/connectors/board/${made.body.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-svc-connector': issued.credential }, body: JSON.stringify({ lane: 'done' }) });
    assert.equal(revoked.status, 401);
  } finally {
    await manager.close();
    await a.close();
    await b.close();
    rmSync(repo, { recursive: true, force: true });
  }
});
