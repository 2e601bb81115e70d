// The executive agent itself: the real claude CLI against the fake model, scripted (mcp64 tokens) to
// call the executive's tools on the svc-ceo MCP server the manager serves for the run. "Ask A to run X
// and tell me when done": it sends, the completion is detected once from A's own events, and the next
// turn reports it; instance text reaches it fenced as untrusted data; a lifecycle call without a
// confirmation is refused by the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, scriptToken } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';

const call = (tool: string, args: Record<string, unknown>) => scriptToken('mcp64', JSON.stringify({ tool, args }));

test('the executive (real claude) sends to an instance through its MCP tools and reports the completion', { skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh', timeout: 180_000 }, async (t) => {
  const fake = await startFakeModel();
  const instances: AgentTestServer[] = [];
  let manager: TestManager | undefined;
  t.after(async () => {
    await manager?.close();
    for (const i of instances) await i.close();
    await fake.close();
  });
  for (let i = 0; i < 2; i++) instances.push(await startAgentServer({}, { classifyPeer: () => 'remote' as const }));
  manager = await startManager();
  const ids: string[] = [];
  for (const inst of instances) ids.push((await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: inst.url, token: inst.app.services.token })).body.id);
  const [a] = ids as [string];
  for (const id of ids) await until(async () => ((await getJson(`${manager!.url}/api/dashboard/instances/${id}`)).body.stream === 'connected' ? true : undefined), `bridge of ${id}`);

  const { env } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-ceo-claude-')));
  const put = await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { provider: 'claude', executable: realCliPath('claude'), env });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.env.ANTHROPIC_API_KEY, '***', 'env values are write-only');

  const turn = async (text: string) => {
    const lines = await (await postNdjson(`${manager!.url}/api/svc-ceo/message`, { text, responseMode: 'text' })).done;
    const done = lines.at(-1);
    assert.equal(done.type, 'done', JSON.stringify(lines));
    return { lines, done };
  };

  // turn 1: ask A to run X
  const first = await turn(`Ask instance A to run X and tell me when done. ${call('send_message', { instanceId: a, text: 'run X scenario:text' })}`);
  assert.equal(first.done.status, "ok", JSON.stringify(first.lines));
  const tools = first.lines.filter((l) => l.type === 'tool');
  assert.ok(tools.some((l) => /svc-ceo.*send_message$/.test(l.name) && l.status === 'ok'), JSON.stringify(tools));
  assert.match(first.done.text, /<untrusted-data>/, 'the tool result came fenced as untrusted data');
  const offered = fake.requests.flatMap((r) => r.tools ?? []);
  assert.ok(offered.some((n) => n.endsWith('lifecycle')), 'the executive\'s tools are offered');
  for (const builtin of ['Bash', 'Write', 'Edit', 'WebFetch']) assert.ok(!offered.includes(builtin), `no ${builtin}: ${offered.join(' ')}`);
  const instanceMessages = (await getJson(`${instances[0]!.url}/api/messages?limit=5`, { headers: { authorization: `Bearer ${instances[0]!.app.services.token}` } })).body.messages;
  assert.ok(instanceMessages.some((m: any) => m.role === 'user' && m.content === 'run X scenario:text'), 'A got the message');

  const completion = await until(async () => (await getJson(`${manager!.url}/api/svc-ceo/pending`)).body.pending[0], 'the completion of X');
  assert.equal(completion.instanceId, a);
  const watch = (await getJson(`${manager.url}/api/svc-ceo/watches?all=1`)).body.watches.find((w: any) => w.id === completion.watchId);
  assert.equal(watch.status, 'completed');
  assert.equal(watch.requestId, completion.requestId);

  // turn 2: the executive reports it (the pending completion is in its prompt and its tool's answer)
  const second = await turn(`What finished? ${call('list_pending', {})}`);
  assert.equal(second.done.status, "ok", JSON.stringify(second.done));
  assert.ok(second.done.text.includes(completion.requestId), second.done.text);
  const secondPrompt = fake.requests.filter((r) => r.lastUser?.includes('What finished?')).at(-1);
  assert.ok(secondPrompt, 'the second turn reached the model');
  assert.equal((await getJson(`${manager.url}/api/svc-ceo/pending`)).body.pending.length, 1, 'detected once');

  // turn 3: a stop without a confirmation is refused by the server, and audited as policy
  const third = await turn(`Stop A. ${call('lifecycle', { action: 'stop', instanceId: a })}`);
  assert.match(third.done.text, /Refused \((403|409)\)/);
  const policy = (await getJson(`${manager.url}/api/svc-ceo/audit?kind=policy`)).body.audit;
  assert.ok(policy.some((r: any) => r.action === 'stop' && !r.ok));

  const state = (await getJson(`${manager.url}/api/svc-ceo/state`)).body;
  assert.equal(state.session.provider, 'claude');
  assert.match(state.session.providerSessionId, /\S/, 'its own provider session, kept for the next turn');
  assert.equal(state.session.busy, false);
  const roles = state.transcript.map((e: any) => e.role);
  assert.deepEqual(roles.filter((r: string) => r !== 'system'), ['user', 'executive', 'user', 'executive', 'user', 'executive']);
});
