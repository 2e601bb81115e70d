// What other modules write to the security audit log, read back through GET /api/security-audit/entries:
// MCP list changes, installs and syncs; skills enabled, disabled and added; orchestration approvals,
// rejections, resets and refused credentials; dispatches. Names and ids only, never a secret value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { agentHeader, call, waitFor } from '../orchestration/support.ts';

interface Entry {
  seq: number;
  actor: string;
  action: string;
  target: string;
  outcome: string;
  details: Record<string, any>;
}

test('MCP, skills, orchestration approvals and dispatches are audit entries', { timeout: 120_000 }, async (t) => {
  const userHome = mkdtempSync(join(tmpdir(), 'svc-audit-user-'));
  const server = await startAgentServer({}, { userHome });
  t.after(() => server.close());
  const entries = async (action: string): Promise<Entry[]> => (await getJson(`${server.url}/api/security-audit/entries?action=${action}`)).body.entries;

  await t.test('MCP: list changes by name, installs (refused ones too), syncs into the user\'s CLI configs', async () => {
    const probe = { name: 'probe', transport: 'stdio', command: '/bin/true', env: { PROBE_KEY: 'mcp-secret-value' } };
    assert.equal((await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [probe] })).status, 200);
    assert.equal((await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [{ ...probe, env: { PROBE_KEY: '***' } }] })).status, 200, 'an unchanged list');
    const other = { name: 'other', transport: 'http', url: 'http://127.0.0.1:9/mcp' };
    assert.equal((await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [{ ...probe, args: ['--x'], env: { PROBE_KEY: '***' } }, other] })).status, 200);
    assert.equal((await sendJson(`${server.url}/api/mcp`, 'PUT', { servers: [other] })).status, 200);
    const changes = await entries('mcp.change');
    assert.deepEqual(changes.map((e) => e.details), [
      { added: ['probe'], removed: [], updated: [] },
      { added: ['other'], removed: [], updated: ['probe'] },
      { added: [], removed: ['probe'], updated: [] },
    ]);
    assert.deepEqual(changes.map((e) => [e.actor, e.outcome]), [['local', 'ok'], ['local', 'ok'], ['local', 'ok']]);

    const refused = await sendJson(`${server.url}/api/mcp/install`, 'POST', { package: '/does/not/exist' });
    assert.equal(refused.status, 400);
    const [install] = await entries('mcp.install');
    assert.deepEqual([install!.target, install!.outcome, install!.details.error], ['/does/not/exist', 'refused', refused.body.error]);

    assert.equal((await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude'], dryRun: true })).status, 200);
    assert.equal((await entries('mcp.sync')).length, 0, 'a dry run writes nothing and is not logged');
    assert.equal((await sendJson(`${server.url}/api/mcp/sync`, 'POST', { targets: ['claude'] })).status, 200);
    const [sync] = await entries('mcp.sync');
    assert.equal(sync!.target, 'claude');
    assert.equal(sync!.outcome, 'ok');
    assert.deepEqual(sync!.details.results.map((r: { target: string; added: string[] }) => [r.target, r.added]), [['claude', ['other']]]);
    assert.ok(sync!.details.results[0].file.startsWith(userHome));

    const all = JSON.stringify((await getJson(`${server.url}/api/security-audit/entries?action=mcp`)).body);
    assert.ok(!all.includes('mcp-secret-value'), 'secret values are never logged');
  });

  await t.test('skills: disabled, enabled (a no-op is not logged), added by path, refused', async () => {
    const enable = (id: string, enabled: boolean) => sendJson(`${server.url}/api/skills/enable`, 'POST', { id, enabled });
    assert.equal((await enable('browser', false)).status, 200);
    assert.equal((await enable('browser', false)).status, 200);
    assert.equal((await enable('browser', true)).status, 200);
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-audit-skill-')), 'notes');
    mkdirSync(dir);
    writeFileSync(join(dir, 'SKILL.md'), '---\nname: Notes\ndescription: Keeps notes\n---\n\nKeep notes.\n');
    assert.equal((await sendJson(`${server.url}/api/skills/install`, 'POST', { path: dir })).status, 200);
    assert.equal((await sendJson(`${server.url}/api/skills/install`, 'POST', { path: dir })).status, 409);
    const skills = await entries('skills');
    assert.deepEqual(skills.map((e) => [e.action, e.target, e.outcome]), [
      ['skills.disable', 'browser', 'ok'],
      ['skills.enable', 'browser', 'ok'],
      ['skills.install', 'notes', 'ok'],
      ['skills.install', dir, 'refused'],
    ]);
    assert.deepEqual(skills[2]!.details, { path: dir, source: 'path' });
    assert.equal(skills[3]!.details.error, 'SKILL_EXISTS');
  });

  await t.test('orchestration: a human\'s approval of a gate, a rejection, a reset; the agent\'s refused approval and a dead credential', async () => {
    const session = (await call(server, 'POST', '/api/chat-sessions', { title: 'audited' })).body.session.id;
    const put = (phase: string, extra: object = {}, headers: Record<string, string> = {}) => call(server, 'PUT', '/api/orchestrate/state', { sessionId: session, phase, ...extra }, headers);
    assert.equal((await put('P')).status, 200);
    assert.equal((await put('A', { approve: true, reason: 'the plan is in my head' })).status, 200);
    assert.equal((await put('P', { reason: 'not like that' })).status, 200);
    assert.equal((await call(server, 'POST', '/api/orchestrate/reset', { sessionId: session, reason: 'start over' })).status, 200);
    const [approve] = await entries('orchestrate.approve');
    assert.deepEqual([approve!.actor, approve!.target, approve!.outcome], ['user', session, 'ok']);
    assert.deepEqual(approve!.details, { from: 'P', to: 'A', gates: ['plan'], reason: 'the plan is in my head' });
    const [reject] = await entries('orchestrate.reject');
    assert.deepEqual([reject!.actor, reject!.details], ['user', { from: 'A', to: 'P', reason: 'not like that' }]);
    const [reset] = await entries('orchestrate.reset');
    assert.deepEqual([reset!.actor, reset!.details], ['user', { from: 'P', reason: 'start over' }]);

    const { credentials } = server.app.services;
    const token = credentials.issue({ runId: 'tr_auditagent', sessionId: session }, 60_000);
    assert.equal((await put('P', {}, agentHeader(token))).status, 200);
    assert.equal((await put('A', { approve: true }, agentHeader(token))).status, 403);
    credentials.revoke('tr_auditagent');
    assert.equal((await put('I', {}, agentHeader(token))).status, 403);
    const approvals = await entries('orchestrate.approve');
    assert.deepEqual([approvals.at(-1)!.actor, approvals.at(-1)!.outcome, approvals.at(-1)!.details], ['agent:tr_auditagent', 'refused', { from: 'P', to: 'A' }]);
    assert.equal((await entries('orchestrate.reject')).length, 1, 'the agent\'s own moves are its work, not rejections');
    const [dead] = await entries('orchestrate.refused');
    assert.deepEqual([dead!.actor, dead!.outcome, dead!.details.reason], ['agent:none', 'refused', 'no running main-agent run']);
  });

  await t.test('dispatch: who works, with which provider and rights, never the task text', async () => {
    const session = (await call(server, 'POST', '/api/chat-sessions', { title: 'dispatching' })).body.session.id;
    const one = await call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, employee: 'tester', task: 'the secret plan scenario:text' });
    assert.equal(one.status, 202, JSON.stringify(one.body));
    const batch = await call(server, 'POST', '/api/orchestrate/dispatch/batch', { sessionId: session, runs: [{ employee: 'tester', task: 'a scenario:text' }, { employee: 'auditor', task: 'b scenario:text', phase: 'A' }] });
    assert.equal(batch.status, 202, JSON.stringify(batch.body));
    const dispatches = await entries('orchestrate.dispatch');
    assert.equal(dispatches.length, 2);
    assert.deepEqual([dispatches[0]!.actor, dispatches[0]!.target], ['user', session]);
    assert.deepEqual(dispatches[0]!.details, { runId: one.body.runId, employee: 'tester', provider: 'claude', capability: 'mutable' });
    assert.equal(dispatches[1]!.details.batchId, batch.body.batchId);
    assert.deepEqual(dispatches[1]!.details.runs.map((r: { employee: string; phase?: string }) => [r.employee, r.phase]), [['tester', undefined], ['auditor', 'A']]);
    assert.ok(!JSON.stringify(dispatches).includes('secret plan'));
    // the runs end before the server closes
    await waitFor(async () => (await call(server, 'GET', '/api/orchestrate/worker-runs?limit=10')).body.runs.every((r: { status: string }) => !['queued', 'running'].includes(r.status)) || undefined, 'the worker runs to end', 60_000);
  });

  assert.deepEqual((await getJson(`${server.url}/api/security-audit/verify`)).body.ok, true);
});
