// Tool permissions answered by a person, end to end with the real Claude Code CLI against the fake
// model (`scenario:write` asks to write hello-from-tool.txt): with auto-approve off, the call is held
// and becomes a permission request; a person's deny keeps the file from being written and its reason
// reaches the agent, an allow lets it land, nobody answering denies it by itself, and an allow
// remembered for the session answers the same call again without asking.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, sendJson } from '../../support/server.ts';
import { resolvedOf, skipWithout, startPermissionRig, WRITE_PROMPT, WRITTEN_FILE, type PermissionRig } from './helpers.ts';

describe('tool permissions with the real Claude Code', { skip: skipWithout('claude'), timeout: 240_000 }, () => {
  let rig: PermissionRig;
  const file = () => join(rig.cwd, WRITTEN_FILE);

  before(async () => {
    rig = await startPermissionRig('claude');
  });
  after(async () => {
    await rig?.close();
  });

  test('held, then denied by a person: nothing is written and the agent reads the reason', async () => {
    const { server, seen } = rig;
    rmSync(file(), { force: true });
    await rig.newChat('deny');
    const mark = seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal(asked.tool, 'Write');
    assert.equal(asked.provider, 'claude');
    assert.equal(asked.summary.title, 'Write hello-from-tool.txt');
    assert.match(asked.summary.path, /hello-from-tool\.txt$/);
    assert.equal(asked.summary.diff, '+hello-from-tool\n+');
    assert.ok(asked.expiresAt - asked.createdAt === 10_000, 'the timeout is agent.approvalTimeoutSec');
    assert.equal(existsSync(file()), false, 'held: the tool has not run');
    const listed = (await getJson(`${server.url}/api/permissions`)).body.requests;
    assert.deepEqual(listed.map((r: { id: string }) => r.id), [asked.id], 'listed while pending');

    // only a person decides: the run's own credential is refused, and bad input is a 4xx
    const token = server.app.services.credentials.issue({ runId: asked.runId, sessionId: asked.sessionId }, 60_000);
    const byAgent = await getJson(`${server.url}/api/permissions/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-run-token': token }, body: JSON.stringify({ decision: 'allow' }) });
    assert.deepEqual([byAgent.status, byAgent.body.error], [403, 'PERSON_REQUIRED']);
    assert.equal((await rig.decide('perm_unknown', { decision: 'allow' })).status, 404);
    assert.equal((await rig.decide(asked.id, { decision: 'maybe' })).status, 400);

    const denied = await rig.decide(asked.id, { decision: 'deny', reason: 'not in this folder, please' });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.equal(denied.body.request.status, 'denied');
    const again = await rig.decide(asked.id, { decision: 'allow' });
    assert.deepEqual([again.status, again.body.error], [409, 'ALREADY_DECIDED'], 'the first decision stands');
    const answer = await done;
    assert.equal(answer.status, 'ok');
    assert.match(answer.text, /not in this folder, please/, 'the reason reached the agent');
    assert.equal(existsSync(file()), false);
    const resolved = resolvedOf(seen, asked.id);
    assert.deepEqual([resolved.decision, resolved.by], ['deny', 'person']);
    const audited = server.app.services.audit.page({ limit: 10, action: 'permission.decide' }).entries;
    assert.deepEqual(audited.map((e) => e.outcome).sort(), ['ok', 'refused'], 'the decision and the agent\'s attempt are audit entries');
  });

  test('allowed by a person: the file lands', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('allow');
    const mark = rig.seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal((await rig.decide(asked.id, { decision: 'allow' })).status, 200);
    assert.equal((await done).status, 'ok');
    assert.equal(existsSync(file()), true, 'the tool ran');
  });

  test('nobody answers: denied by the timeout, and the agent is told', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('timeout');
    const mark = rig.seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    const answer = await done;
    assert.match(answer.text, /Nobody answered this permission request within 10 s/);
    assert.equal(existsSync(file()), false);
    const resolved = resolvedOf(rig.seen, asked.id);
    assert.deepEqual([resolved.decision, resolved.by], ['deny', 'timeout']);
  });

  test('allowed for the session: the same call is answered again without asking', async () => {
    const { server, seen } = rig;
    rmSync(file(), { force: true });
    await rig.newChat('remember');
    let mark = seen.length;
    const first = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal((await rig.decide(asked.id, { decision: 'allow', remember: 'session' })).status, 200);
    await first;
    const rules = await rig.rules();
    assert.equal(rules.length, 1);
    assert.match(rules[0].label, /^Write\(.*hello-from-tool\.txt\)$/);
    assert.deepEqual([rules[0].decision, rules[0].scope, rules[0].sessionId], ['allow', 'session', asked.sessionId]);

    rmSync(file(), { force: true });
    // the same chat session, a fresh conversation with the CLI (so the model calls the tool again)
    assert.equal((await sendJson(`${server.url}/api/session/reset`, 'POST', {})).status, 200);
    mark = seen.length;
    assert.equal((await rig.send('Write the greeting file again. scenario:write')).status, 'ok');
    assert.equal(existsSync(file()), true, 'written again');
    assert.equal(seen.slice(mark).filter((s) => s.name === 'permission_request').length, 0, 'not asked a second time');

    // forgetting the rule asks again
    assert.equal((await getJson(`${server.url}/api/permissions/rules/${rules[0].id}`, { method: 'DELETE' })).status, 200);
    assert.deepEqual(await rig.rules(), []);
  });
});
