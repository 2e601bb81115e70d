// Tool permissions from the manager: the pending requests of every online instance, each labelled by
// its instance (an instance that cannot say is named, not fatal), live through the bridge, and a
// decision made at the manager that reaches the instance holding the request (with its token), which
// answers the waiting call; the instance's 404 and 409 come back as they are, and an agent's
// credential is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSse } from '../../support/sse.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { startFakeInstance } from './fake-instance.ts';
import { findMessage, startManager, until } from './helpers.ts';

const add = async (managerUrl: string, url: string, token: string, label: string) => {
  const added = await sendJson(`${managerUrl}/api/dashboard/instances`, 'POST', { url, token, label });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return added.body.id as string;
};

/** A held call on the instance, as a CLI's request would make it. */
const hold = (server: TestServer, runId: string, tool: string, input: Record<string, unknown>) =>
  server.app.services.permissions.ask({ sessionId: server.app.services.chat.activeSession().id, runId, provider: 'claude' }, { tool, input });

test('the manager lists every instance\'s pending requests and forwards a person\'s decision to the instance', async () => {
  // no loopback trust: the manager must present each instance's token
  const alpha = await startServer({ classifyPeer: () => 'remote' as const });
  const beta = await startServer({ classifyPeer: () => 'remote' as const });
  // an instance without the permissions API (an older svc): named in errors, the others still listed
  const old = await startFakeInstance();
  const manager = await startManager();
  const streams: { close(): void }[] = [];
  try {
    const idA = await add(manager.url, alpha.url, alpha.app.services.token, 'alpha');
    const idB = await add(manager.url, beta.url, beta.app.services.token, 'beta');
    const idOld = await add(manager.url, old.url, old.token, 'old');
    for (const id of [idA, idB]) await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), `${id} bridged`);
    const relayed = await openSse(`${manager.url}/api/events`);
    streams.push(relayed);

    const empty = (await getJson(`${manager.url}/api/dashboard/permissions`)).body;
    assert.deepEqual(empty.requests, []);
    assert.equal(empty.asked, 3);
    assert.deepEqual(empty.errors.map((e: any) => [e.instanceId, e.instanceLabel]), [[idOld, 'old']], 'the instance that cannot list is named');

    const writeAnswer = hold(alpha, 'tr_alpha', 'Write', { file_path: '/work/notes.md', content: 'one\ntwo' });
    const bashAnswer = hold(beta, 'tr_beta', 'Bash', { command: 'npm test' });
    // live: the instances' events reach the manager's stream (the page refreshes on them)
    const live = await findMessage(relayed, (d) => d.event === 'instance_event' && d.instanceId === idA && d.name === 'permission_request', 'the request relayed');
    assert.equal(live.data.data.summary.title, 'Write notes.md');

    const listed = (await getJson(`${manager.url}/api/dashboard/permissions`)).body;
    assert.deepEqual(
      listed.requests.map((r: any) => [r.instanceId, r.instanceLabel, r.tool, r.runId, r.status]),
      [
        [idA, 'alpha', 'Write', 'tr_alpha', 'pending'],
        [idB, 'beta', 'Bash', 'tr_beta', 'pending'],
      ],
      'oldest first, each with its instance',
    );
    const [writeReq, bashReq] = listed.requests;
    assert.equal(writeReq.summary.diff, '+one\n+two');
    assert.equal(bashReq.summary.command, 'npm test');

    const decide = (instanceId: string, requestId: string, body: unknown, headers: Record<string, string> = {}) =>
      getJson(`${manager.url}/api/dashboard/instances/${instanceId}/permissions/${requestId}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    // an agent's credential never decides, whatever it is
    for (const header of ['x-svc-run-token', 'x-svc-connector']) {
      const refused = await decide(idA, writeReq.id, { decision: 'allow' }, { [header]: 'whatever' });
      assert.deepEqual([refused.status, refused.body.error], [403, 'PERSON_REQUIRED'], header);
    }
    assert.equal(alpha.app.services.permissions.get(writeReq.id)!.status, 'pending', 'still held');
    // the wrong instance does not hold it: the instance's own 404; an unknown instance: the manager's 404; a bad body: 400
    assert.equal((await decide(idB, writeReq.id, { decision: 'allow' })).status, 404);
    assert.equal((await decide('inst_nope', writeReq.id, { decision: 'allow' })).status, 404);
    assert.equal((await decide(idA, writeReq.id, { decision: 'maybe' })).status, 400);

    const denied = await decide(idA, writeReq.id, { decision: 'deny', reason: 'not that file' });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.deepEqual([denied.body.request.status, denied.body.request.decidedBy, denied.body.request.instanceLabel], ['denied', 'person', 'alpha']);
    assert.deepEqual(await writeAnswer, { allow: false, reason: 'not that file' }, 'the waiting call got the deny and its reason');
    const resolved = await findMessage(relayed, (d) => d.event === 'instance_event' && d.name === 'permission_resolved' && d.data.id === writeReq.id, 'the decision relayed');
    assert.deepEqual([resolved.data.data.decision, resolved.data.data.by], ['deny', 'person']);
    const again = await decide(idA, writeReq.id, { decision: 'allow' });
    assert.deepEqual([again.status, again.body.error], [409, 'ALREADY_DECIDED'], 'the first decision stands');
    const audited = alpha.app.services.audit.page({ limit: 10, action: 'permission.decide' }).entries;
    assert.deepEqual(audited.map((e) => e.outcome), ['ok'], 'decided once, audited by the instance');

    const allowed = await decide(idB, bashReq.id, { decision: 'allow', remember: 'session' });
    assert.equal(allowed.status, 200);
    assert.deepEqual(await bashAnswer, { allow: true });
    assert.deepEqual(beta.app.services.permissions.rules().map((r) => [r.label, r.scope]), [['Bash(npm test)', 'session']], 'remembered on the instance');

    assert.deepEqual((await getJson(`${manager.url}/api/dashboard/permissions`)).body.requests, [], 'nothing waits any more');
  } finally {
    for (const s of streams) s.close();
    await manager.close();
    await old.close();
    await alpha.close();
    await beta.close();
  }
});
