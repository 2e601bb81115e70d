// Tool permissions answered by a person, end to end with the real Claude Code CLI against the fake
// model (`scenario:write` asks to write hello-from-tool.txt): with auto-approve off, the call is held
// and becomes a permission request; a person's deny keeps the file from being written and its reason
// reaches the agent, an allow lets it land, nobody answering denies it by itself, and an allow
// remembered for the session answers the same call again without asking.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson } from '../../support/server.ts';
import { allowedWrite, deniedEnd, holdWrite, rememberedForSession, skipWithout, startPermissionRig, type PermissionRig } from './helpers.ts';

describe('tool permissions with the real Claude Code', { skip: skipWithout('claude'), timeout: 240_000 }, () => {
  let rig: PermissionRig;

  before(async () => {
    rig = await startPermissionRig('claude');
  });
  after(async () => {
    await rig?.close();
  });

  test('held, then denied by a person: nothing is written and the agent reads the reason', async () => {
    const { server } = rig;
    const held = await holdWrite(rig, 'deny');
    const { asked } = held;
    assert.equal(asked.tool, 'Write');
    assert.equal(asked.provider, 'claude');
    assert.equal(asked.summary.title, 'Write hello-from-tool.txt');
    assert.match(asked.summary.path, /hello-from-tool\.txt$/);
    assert.equal(asked.summary.diff, '+hello-from-tool\n+');
    assert.ok(asked.expiresAt - asked.createdAt === 10_000, 'the timeout is agent.approvalTimeoutSec');
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
    const answer = await deniedEnd(rig, held, 'person');
    assert.match(answer.text, /not in this folder, please/, 'the reason reached the agent');
    const audited = server.app.services.audit.page({ limit: 10, action: 'permission.decide' }).entries;
    assert.deepEqual(audited.map((e) => e.outcome).sort(), ['ok', 'refused'], 'the decision and the agent\'s attempt are audit entries');
  });

  test('allowed by a person: the file lands', () => allowedWrite(rig));

  test('nobody answers: denied by the timeout, and the agent is told', async () => {
    const answer = await rig.nobodyAnswersWithin(1500, async () => deniedEnd(rig, await holdWrite(rig, 'timeout'), 'timeout'));
    assert.match(answer.text, /Nobody answered this permission request within 1.5 s/);
  });

  test('allowed for the session: the same call is answered again without asking; forgetting the rule asks again', async () => {
    const { asked, rules } = await rememberedForSession(rig);
    assert.equal(rules.length, 1);
    assert.match(rules[0].label, /^Write\(.*hello-from-tool\.txt\)$/);
    assert.deepEqual([rules[0].decision, rules[0].scope, rules[0].sessionId], ['allow', 'session', asked.sessionId]);
    assert.equal((await getJson(`${rig.server.url}/api/permissions/rules/${rules[0].id}`, { method: 'DELETE' })).status, 200);
    assert.deepEqual(await rig.rules(), []);
  });
});
