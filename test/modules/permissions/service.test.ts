// The permissions service on a real database and bus, without a CLI: rules answer without asking, the
// first decision wins, a timeout, a run's end and a restart each deny what they leave pending (said
// with a reason the agent reads), and summaries read the way a person decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/store/db.ts';
import { EventBus } from '../../../src/events/bus.ts';
import { SecurityAudit } from '../../../src/modules/security-audit/index.ts';
import { PermissionsRepo, PermissionsService, summarize } from '../../../src/modules/permissions/index.ts';

function setup(timeoutSec = 60) {
  const db = openDatabase(':memory:');
  const bus = new EventBus();
  const events: { name: string; payload: any }[] = [];
  bus.subscribe((e) => events.push({ name: e.name, payload: e.payload }));
  const repo = new PermissionsRepo(db);
  const make = () => new PermissionsService({ repo, bus, audit: new SecurityAudit(db), timeoutMs: () => timeoutSec * 1000 });
  return { db, events, repo, make };
}

const run = { sessionId: 'ses_a', runId: 'tr_1', provider: 'claude' };
const bash = (command: string) => ({ tool: 'Bash', input: { command } });
const pendingId = (events: { name: string; payload: any }[]) => events.filter((e) => e.name === 'permission_request').at(-1)!.payload.id as string;

test('a person\'s allow answers the CLI; the first decision stands', async () => {
  const { events, make } = setup();
  const service = make();
  const answer = service.ask(run, bash('npm test'));
  const id = pendingId(events);
  service.decide(id, { decision: 'allow' }, 'person', 'local');
  assert.deepEqual(await answer, { allow: true });
  assert.throws(() => service.decide(id, { decision: 'deny' }, 'telegram', 'chat'), /already allowed \(by person\)/);
  assert.throws(() => service.decide('perm_nope', { decision: 'deny' }, 'person', 'local'), /not found/);
});

test('a deny carries the person\'s reason, or says a person denied it', async () => {
  const { events, make } = setup();
  const service = make();
  const withReason = service.ask(run, bash('rm -rf build'));
  service.decide(pendingId(events), { decision: 'deny', reason: 'keep the build' }, 'person', 'local');
  assert.deepEqual(await withReason, { allow: false, reason: 'keep the build' });
  const plain = service.ask(run, bash('rm -rf dist'));
  service.decide(pendingId(events), { decision: 'deny' }, 'person', 'local');
  assert.deepEqual(await plain, { allow: false, reason: 'The user denied this tool call.' });
});

test('remembered: a session rule answers its session only, an always rule every session, a deny rule denies', async () => {
  const { events, make } = setup();
  const service = make();
  const first = service.ask(run, bash('npm test'));
  service.decide(pendingId(events), { decision: 'allow', remember: 'session' }, 'person', 'local');
  await first;
  const asked = events.filter((e) => e.name === 'permission_request').length;
  assert.deepEqual(await service.ask(run, bash('npm test')), { allow: true }, 'the same call, the same session: not asked');
  assert.equal(events.filter((e) => e.name === 'permission_request').length, asked);
  void service.ask({ ...run, sessionId: 'ses_b' }, bash('npm test'));
  assert.equal(events.filter((e) => e.name === 'permission_request').length, asked + 1, 'another session is asked');
  void service.ask(run, bash('npm run lint'));
  assert.equal(events.filter((e) => e.name === 'permission_request').length, asked + 2, 'another command is asked');

  const never = service.ask({ ...run, sessionId: 'ses_c' }, { tool: 'Write', input: { file_path: '/etc/hosts', content: 'x' } });
  service.decide(pendingId(events), { decision: 'deny', remember: 'always' }, 'person', 'local');
  await never;
  const again = await service.ask({ ...run, sessionId: 'ses_d' }, { tool: 'Write', input: { file_path: '/etc/hosts', content: 'y' } });
  assert.equal(again.allow, false);
  assert.match((again as { reason: string }).reason, /a remembered rule: Write\(\/etc\/hosts\)/);
  assert.deepEqual(service.rules().map((r) => [r.label, r.decision, r.scope]), [['Bash(npm test)', 'allow', 'session'], ['Write(/etc/hosts)', 'deny', 'always']]);
  service.close();
});

test('nobody answers in time: denied by timeout, published, and the CLI is told why', async () => {
  const { events, make } = setup(0.05);
  const service = make();
  const answer = await service.ask(run, bash('npm test'));
  assert.deepEqual(answer, { allow: false, reason: 'Nobody answered this permission request within 0.05 s, so it was denied.' });
  const resolved = events.find((e) => e.name === 'permission_resolved')!.payload;
  assert.deepEqual([resolved.decision, resolved.by], ['deny', 'timeout']);
  assert.deepEqual(service.pending(), []);
});

test('a run that ends denies what it left pending; a restart denies what the last process left', async () => {
  const { events, make, repo } = setup();
  const service = make();
  const left = service.ask(run, bash('sleep 1'));
  const other = service.ask({ ...run, runId: 'tr_2' }, bash('sleep 2'));
  service.endRun('tr_1');
  assert.deepEqual(await left, { allow: false, reason: 'The run ended before anyone answered this permission request.' });
  assert.deepEqual(service.pending().map((r) => r.runId), ['tr_2'], 'another run\'s request stays');
  service.close();
  void other;
  // a new process: the request has no CLI behind it
  const next = make();
  next.start();
  assert.deepEqual(next.pending(), []);
  const restart = events.filter((e) => e.name === 'permission_resolved').at(-1)!.payload;
  assert.deepEqual([restart.runId, restart.decision, restart.by], ['tr_2', 'deny', 'restart']);
  assert.equal(repo.get(restart.id)!.status, 'denied');
});

test('summaries: a command, a written file with its content, an edit as a diff, any other tool\'s input', () => {
  assert.deepEqual(summarize('Bash', { command: 'npm   test\n' }), { title: 'Run npm test ', command: 'npm   test\n' });
  assert.deepEqual(summarize('run_shell_command', { command: 'ls' }).title, 'Run ls');
  assert.deepEqual(summarize('Write', { file_path: '/p/notes.md', content: 'a\nb' }), { title: 'Write notes.md', path: '/p/notes.md', diff: '+a\n+b' });
  assert.deepEqual(summarize('Edit', { file_path: '/p/a.ts', old_string: 'x = 1', new_string: 'x = 2' }), { title: 'Edit a.ts', path: '/p/a.ts', diff: '-x = 1\n+x = 2' });
  assert.deepEqual(summarize('mcp__files__read', { uri: 'file:///x' }), { title: 'Use mcp__files__read', detail: '{\n  "uri": "file:///x"\n}' });
  assert.equal(summarize('WebFetch', {}, 'fetch example.com').title, 'WebFetch: fetch example.com');
  assert.match(summarize('Write', { file_path: 'big.txt', content: 'x'.repeat(5000) }).diff!, /more characters\)$/);});

test('summaries of Copilot\'s ACP requests: a file with its unified diff, created or edited', () => {
  const created = '\ndiff --git a/p/x.txt b/p/x.txt\ncreate file mode 100644\n--- a/dev/null\n+++ b/p/x.txt\n@@ -1,0 +1,1 @@\n+hi\n';
  assert.deepEqual(summarize('edit', { fileName: '/p/x.txt', diff: created }), { title: 'Write x.txt', path: '/p/x.txt', diff: created.trim() });
  const edited = 'diff --git a/p/x.txt b/p/x.txt\n--- a/p/x.txt\n+++ b/p/x.txt\n@@ -1 +1 @@\n-hi\n+ho';
  assert.equal(summarize('edit', { fileName: '/p/x.txt', diff: edited }).title, 'Edit x.txt');
  assert.deepEqual(summarize('execute', { command: 'echo hi', commands: ['echo hi'] }), { title: 'Run echo hi', command: 'echo hi' });
});
