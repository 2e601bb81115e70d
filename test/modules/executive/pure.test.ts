// The pure parts of the executive: the read-only query check, the Markdown edits and the realtime protocol.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capOutput, planQuery, refusedOption, splitWords } from '../../../src/modules/executive/query.ts';
import { appendSection, applyUnifiedDiff, docsPathRefusal, replaceSection } from '../../../src/modules/executive/docs-edit.ts';
import { callIdOf, functionCalls, realtimeUrls, spokenText } from '../../../src/modules/executive/realtime.ts';
import { lostRequests } from '../../../src/modules/executive/fleet.ts';

const root = '/work/project';
const refused = (line: string) => {
  const plan = planQuery(root, line);
  assert.equal(plan.ok, false, `${line} must be refused`);
  return (plan as { reason: string }).reason;
};

test('query: the read-only commands pass, as argument lists', () => {
  assert.deepEqual(planQuery(root, 'git status'), { ok: true, kind: 'exec', command: 'git', args: ['status'] });
  const safe = ['--no-ext-diff', '--no-textconv'];
  assert.deepEqual(planQuery(root, 'git log -5 --oneline'), { ok: true, kind: 'exec', command: 'git', args: ['log', ...safe, '-5', '--oneline'] });
  assert.deepEqual(planQuery(root, 'git diff --stat -- docs/a.md'), { ok: true, kind: 'exec', command: 'git', args: ['diff', ...safe, '--stat', '--', 'docs/a.md'] });
  assert.deepEqual(planQuery(root, 'git diff --text'), { ok: true, kind: 'exec', command: 'git', args: ['diff', ...safe, '--text'] });
  assert.deepEqual(planQuery(root, 'rg -n "two words" src'), { ok: true, kind: 'exec', command: 'rg', args: ['--no-config', '-n', 'two words', 'src'] });
  assert.deepEqual(planQuery(root, 'ls -la docs'), { ok: true, kind: 'exec', command: 'ls', args: ['-la', 'docs'] });
  assert.deepEqual(planQuery(root, 'cat README.md'), { ok: true, kind: 'read', path: 'README.md' });
});

test('query: writes, other programs, shell syntax and paths outside the root are refused', () => {
  assert.match(refused('sed -i s/a/b/ README.md'), /not a read-only command/);
  assert.match(refused('git diff --output=/tmp/x'), /--output=\/tmp\/x is refused/);
  assert.match(refused('git diff --outp=/tmp/x'), /refused/, 'git accepts abbreviated long options');
  assert.match(refused('git log --output /tmp/x'), /refused/);
  assert.match(refused('git diff --ext-diff'), /refused/);
  assert.match(refused('git diff --no-index /etc/passwd a'), /refused/);
  assert.match(refused('git -c core.pager=sh status'), /git takes status/);
  assert.match(refused('git commit -m x'), /git takes status/);
  assert.match(refused('git push'), /git takes status/);
  assert.match(refused('rg --pre cat x'), /runs a program/);
  assert.match(refused('rg -iz x'), /runs a program/, 'a refused short option inside a cluster');
  for (const line of ['ls; rm -rf /', 'git status && touch x', 'ls | sh', 'cat `whoami`', 'cat $(id)', 'ls > out', 'cat < x', 'ls\nrm x']) {
    assert.match(refused(line), /shell metacharacters/, line);
  }
  assert.match(refused('cat ../secret'), /inside the project root/);
  assert.match(refused('cat /etc/passwd'), /inside the project root/);
  assert.match(refused('ls ../..'), /inside the project root/);
  assert.match(refused('git diff -- ../x'), /inside the project root/);
  assert.match(refused('rg x /etc'), /inside the project root/);
  assert.match(refused('cat a b'), /one file/);
  assert.match(refused('rm -rf x'), /not a read-only command/);
  assert.match(refused('ls "unbalanced'), /give one command/);
});

test('query helpers: words, option matching, output cap', () => {
  assert.deepEqual(splitWords(`a 'b c' "d"`), ['a', 'b c', 'd']);
  assert.equal(splitWords('a"b"'), null, 'a quote glued to a word is ambiguous');
  assert.equal(refusedOption('--output=x', ['--output'], ''), '--output');
  assert.equal(refusedOption('--stat', ['--output'], ''), undefined);
  assert.equal(refusedOption('-n', [], 'z'), undefined);
  assert.deepEqual(capOutput('héllo', 2), { text: 'h', truncated: true }, 'never half a character');
  assert.deepEqual(capOutput('abc', 3), { text: 'abc', truncated: false });
});

test('docs: only Markdown in README.md and docs/ of a project, any Markdown in the notes', () => {
  assert.equal(docsPathRefusal('README.md', 'project'), null);
  assert.equal(docsPathRefusal('docs/guide/intro.md', 'project'), null);
  assert.equal(docsPathRefusal('ideas.md', 'notes'), null);
  assert.match(docsPathRefusal('src/index.ts', 'project')!, /only Markdown/);
  assert.match(docsPathRefusal('docs/build.sh', 'project')!, /only Markdown/);
  assert.match(docsPathRefusal('package.json', 'project')!, /only Markdown/);
  assert.match(docsPathRefusal('CHANGELOG.md', 'project')!, /only README.md and files under docs/);
  assert.match(docsPathRefusal('docs/../src/x.md', 'project')!, /only README.md/);
  assert.match(docsPathRefusal('../other/README.md', 'project')!, /leave its root/);
  assert.match(docsPathRefusal('/etc/x.md', 'project')!, /relative path/);
  assert.match(docsPathRefusal('docs/.hidden/x.md', 'project')!, /hidden/);
});

test('docs: append and replace a section', () => {
  assert.equal(appendSection('# T\n\ntext\n\n\n', '## New\n\nbody\n'), '# T\n\ntext\n\n## New\n\nbody\n');
  assert.equal(appendSection('', '## New'), '## New\n');
  const doc = '# T\n\n## Usage\n\nold\n\n### Detail\n\nold detail\n\n## Other\n\nkeep\n';
  const replaced = replaceSection(doc, '## Usage\n\nnew\n');
  assert.deepEqual(replaced, { ok: true, text: '# T\n\n## Usage\n\nnew\n\n## Other\n\nkeep\n' });
  assert.deepEqual(replaceSection('# T\n\n## Last\n\nold\n', '## Last\n\nnew'), { ok: true, text: '# T\n\n## Last\n\nnew' });
  assert.equal(replaceSection(doc, '## Missing\n\nx').ok, false);
  assert.equal(replaceSection(doc, 'no heading').ok, false);
  assert.equal(replaceSection('## A\n\n## A\n', '## A\nx').ok, false, 'an ambiguous heading is refused');
});

test('docs: a unified diff applies exactly or not at all', () => {
  const doc = 'one\ntwo\nthree\nfour\nfive\n';
  const patch = '--- a/docs/x.md\n+++ b/docs/x.md\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n';
  assert.deepEqual(applyUnifiedDiff(doc, patch), { ok: true, text: 'one\ntwo\nTHREE\nfour\nfive\n' });
  // the same hunk still applies when lines moved
  assert.deepEqual(applyUnifiedDiff(`zero\n${doc}`, patch), { ok: true, text: 'zero\none\ntwo\nTHREE\nfour\nfive\n' });
  // two hunks, one an insertion
  const two = '@@ -1,1 +1,2 @@\n one\n+one and a half\n@@ -5,0 +6,1 @@\n+six\n';
  assert.deepEqual(applyUnifiedDiff(doc, two), { ok: true, text: 'one\none and a half\ntwo\nthree\nfour\nfive\nsix\n' });
  const stale = '@@ -2,2 +2,2 @@\n two\n-THREE\n+3\n';
  assert.match((applyUnifiedDiff(doc, stale) as { reason: string }).reason, /does not match the file/);
  assert.match((applyUnifiedDiff(doc, '@@ -1,2 +1,2 @@\n one\n-two\n') as { reason: string }).reason, /header counts/);
  assert.match((applyUnifiedDiff(doc, 'just text') as { reason: string }).reason, /unexpected line/);
  assert.match((applyUnifiedDiff(doc, '') as { reason: string }).reason, /no hunk/);
  // a second hunk that fails undoes the first: nothing is applied
  const half = '@@ -1,1 +1,1 @@\n-one\n+ONE\n@@ -4,1 +4,1 @@\n-nope\n+x\n';
  assert.equal(applyUnifiedDiff(doc, half).ok, false);
});

test('realtime: the call\'s URLs, its id from Location, function calls and spoken lines from events', () => {
  const urls = realtimeUrls('https://api.openai.com/v1/');
  assert.equal(urls.calls, 'https://api.openai.com/v1/realtime/calls');
  assert.equal(urls.sideband('rtc_1'), 'wss://api.openai.com/v1/realtime?call_id=rtc_1');
  assert.equal(urls.hangup('rtc_1'), 'https://api.openai.com/v1/realtime/calls/rtc_1/hangup');
  assert.equal(realtimeUrls('http://127.0.0.1:9/v1').sideband('x'), 'ws://127.0.0.1:9/v1/realtime?call_id=x');
  assert.equal(callIdOf('/v1/realtime/calls/rtc_u1_9c65'), 'rtc_u1_9c65');
  assert.equal(callIdOf('https://api.openai.com/v1/realtime/calls/rtc_abc?x=1'), 'rtc_abc');
  assert.equal(callIdOf(null), null);
  assert.equal(callIdOf('/v1/realtime/calls/a b'), null);
  const done = { type: 'response.done', response: { output: [{ type: 'message' }, { type: 'function_call', call_id: 'c1', name: 'list_instances', arguments: '{}' }, { type: 'function_call', call_id: 'c2', name: 'query' }] } };
  assert.deepEqual(functionCalls(done), [{ callId: 'c1', name: 'list_instances', arguments: '{}' }, { callId: 'c2', name: 'query', arguments: '{}' }]);
  assert.deepEqual(functionCalls({ ...done, type: 'response.created' }), []);
  assert.deepEqual(functionCalls({ type: 'response.done' }), []);
  assert.deepEqual(spokenText({ type: 'response.output_audio_transcript.done', transcript: ' 네 ' }), { role: 'executive', text: '네' });
  assert.deepEqual(spokenText({ type: 'conversation.item.input_audio_transcription.completed', transcript: 'stop A' }), { role: 'user', text: 'stop A' });
  assert.equal(spokenText({ type: 'response.output_audio_transcript.delta', transcript: 'x' }), null);
});

test('lost requests: watched before the instance\'s current boot, not its run now, still active', () => {
  const w = (id: string, over: Record<string, unknown>) => ({ id, instanceId: 'a', requestId: `req-${id}`, reason: 'dispatch' as const, status: 'active' as const, createdAt: 100, endedAt: null, ...over });
  const watches = [
    w('old', {}),
    w('running', {}),
    w('after', { createdAt: 300 }),
    w('other', { instanceId: 'b' }),
    w('manual', { requestId: null, reason: 'manual' }),
    w('done', { status: 'completed' }),
  ];
  assert.deepEqual(lostRequests(watches, 'a', { startedAt: 200, activeRequestId: 'req-running' }).map((x) => x.id), ['old']);
  assert.deepEqual(lostRequests(watches, 'a', { startedAt: 50, activeRequestId: null }), [], 'no restart since: nothing lost');
});
