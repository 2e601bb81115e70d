// Isolated workers in git worktrees, with real git and the fake CLIs (which write files named in their
// prompt: write:<path>=<text>): parallel writers, the user's tree untouched until a merge, a conflict
// that changes nothing, discard, review with comments, restart, a person only, and bad input.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { agentHeader, call, record, waitFor } from './support.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** A repository with two committed files, and the user's identity set as users have it. */
function makeRepo(): string {
  const repo = mkdtempSync(join(tmpdir(), 'svc-wt-repo-'));
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Ada');
  git(repo, 'config', 'user.email', 'ada@example.com');
  writeFileSync(join(repo, 'README.md'), '# project\n');
  writeFileSync(join(repo, 'shared.txt'), 'original\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'start');
  return repo;
}

/** What a merge must leave alone when it refuses: HEAD, the status, and every file's bytes. */
function snapshot(repo: string) {
  const files = git(repo, 'ls-files', '-co', '--exclude-standard').split('\n').filter(Boolean).sort();
  return { head: git(repo, 'rev-parse', 'HEAD'), status: git(repo, 'status', '--porcelain'), files: Object.fromEntries(files.map((f) => [f, readFileSync(join(repo, f), 'utf8')])) };
}

const writer = { name: 'writer', role: 'writes files', provider: 'claude', model: '', instructions: '', capability: 'mutable' };

describe('isolated workers in git worktrees (fake CLIs, real git)', () => {
  let server: AgentTestServer;
  let repo: string;
  let session: string;
  before(async () => {
    repo = makeRepo();
    server = await startAgentServer({ workingDir: repo });
    session = (await call(server, 'POST', '/api/chat-sessions', { title: 'worktrees' })).body.session.id;
  });
  after(async () => {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  });

  const dispatch = (task: string, extra: object = {}) => call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: writer, isolation: 'worktree', task, ...extra });
  const ended = (runId: string) =>
    waitFor(async () => {
      const r = (await call(server, 'GET', `/api/orchestrate/worker-runs/${runId}`)).body;
      return ['succeeded', 'failed', 'cancelled', 'timeout', 'orphaned'].includes(r.status) ? r : undefined;
    }, `run ${runId} to end`);
  const worktreeList = () => git(repo, 'worktree', 'list', '--porcelain');
  const branches = () => git(repo, 'branch', '--list', 'svc/*').split('\n').map((b) => b.replace(/^[*+ ]+/, '').trim()).filter(Boolean);

  test('two writers at once: the tree is untouched until a merge; the first merge lands, the second conflicts and changes nothing; discard removes worktree and branch', async () => {
    const events = record(server);
    const before = snapshot(repo);
    const [one, two] = await Promise.all([dispatch('first scenario:text write:one.txt=1 write:shared.txt=from-one'), dispatch('second scenario:text write:two.txt=2 write:shared.txt=from-two')]);
    assert.deepEqual([one.status, two.status], [202, 202], JSON.stringify([one.body, two.body]));
    const [runOne, runTwo] = await Promise.all([ended(one.body.runId), ended(two.body.runId)]);
    assert.deepEqual([runOne.status, runTwo.status], ['succeeded', 'succeeded'], JSON.stringify([runOne.reason, runTwo.reason]));
    for (const run of [runOne, runTwo]) {
      assert.equal(run.isolation, 'worktree');
      assert.deepEqual([run.worktree.branch, run.worktree.state, run.worktree.uncommittedLeftOut], [`svc/${run.runId}`, 'open', false]);
      assert.equal(run.worktree.base, before.head.trim());
    }
    // each CLI ran in its own worktree under svc's home, never in the user's tree
    const cwds = server.invocations().filter((i) => i.runToken?.startsWith('svcworker_')).map((i) => i.cwd);
    assert.deepEqual(cwds.sort(), [join(server.home, 'worktrees', runOne.runId), join(server.home, 'worktrees', runTwo.runId)].sort());
    assert.deepEqual(snapshot(repo), before, 'the user\'s tree is untouched until a merge');
    assert.equal(branches().length, 2);
    assert.match(worktreeList(), new RegExp(runOne.runId));

    const diff = (await call(server, 'GET', `/api/orchestrate/worker-runs/${runOne.runId}/diff`)).body;
    assert.deepEqual(diff.files, [
      { path: 'one.txt', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: 'shared.txt', status: 'modified', additions: 1, deletions: 1, binary: false },
    ]);
    assert.match(diff.patch, /^\+from-one$/m);
    assert.equal(diff.truncated, false);

    const merged = await call(server, 'POST', `/api/orchestrate/worker-runs/${runOne.runId}/merge`, {});
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(readFileSync(join(repo, 'one.txt'), 'utf8'), '1\n');
    assert.equal(readFileSync(join(repo, 'shared.txt'), 'utf8'), 'from-one\n');
    assert.equal(git(repo, 'rev-parse', 'HEAD').trim(), merged.body.commit);
    assert.match(git(repo, 'log', '-1', '--format=%s%n%an <%ae>'), new RegExp(`^svc: worker run ${runOne.runId} \\(virtual\\): first.*\\nAda <ada@example.com>`));
    assert.equal(git(repo, 'status', '--porcelain'), '', 'a merge commits; it leaves nothing uncommitted');
    assert.equal(existsSync(join(server.home, 'worktrees', runOne.runId)), false, 'a merged worktree is removed');
    assert.deepEqual(branches(), [`svc/${runTwo.runId}`]);

    const afterFirst = snapshot(repo);
    const refused = await call(server, 'POST', `/api/orchestrate/worker-runs/${runTwo.runId}/merge`, {});
    assert.deepEqual([refused.status, refused.body.error, refused.body.files], [409, 'MERGE_CONFLICT', ['shared.txt']]);
    assert.match(refused.body.message, /shared\.txt/);
    assert.deepEqual(snapshot(repo), afterFirst, 'a refused merge changes nothing');

    const discarded = await call(server, 'DELETE', `/api/orchestrate/worker-runs/${runTwo.runId}/worktree`);
    assert.deepEqual([discarded.status, discarded.body], [200, { runId: runTwo.runId, discarded: true }]);
    assert.doesNotMatch(worktreeList(), new RegExp(runTwo.runId));
    assert.deepEqual(branches(), []);
    assert.equal((await call(server, 'DELETE', `/api/orchestrate/worker-runs/${runTwo.runId}/worktree`)).body.error, 'NO_WORKTREE');
    assert.equal((await call(server, 'GET', `/api/orchestrate/worker-runs/${runTwo.runId}`)).body.worktree.state, 'discarded');
    assert.equal((await call(server, 'GET', `/api/orchestrate/worker-runs/${runOne.runId}`)).body.worktree.mergedCommit, merged.body.commit);

    // the events say where each run wrote and what became of it
    const states = (runId: string) => events.filter((e) => e.name === 'worker_run' && e.payload.runId === runId).map((e) => e.payload.mergeState);
    assert.equal(states(runOne.runId).at(-1), 'merged');
    assert.equal(states(runTwo.runId).at(-1), 'discarded');
    assert.ok(events.some((e) => e.name === 'worker_run' && e.payload.runId === runOne.runId && e.payload.isolation === 'worktree' && e.payload.branch === `svc/${runOne.runId}`));
    // and the security audit has the merge, the refusal and the discard
    const audit = (await call(server, 'GET', '/api/security-audit/entries?action=orchestrate&limit=50')).body.entries as { action: string; target: string; outcome: string }[];
    const mine = audit.filter((e) => [runOne.runId, runTwo.runId].includes(e.target)).map((e) => `${e.action}:${e.outcome}`).sort();
    assert.deepEqual(mine, ['orchestrate.discard:ok', 'orchestrate.merge:ok', 'orchestrate.merge:refused']);
  });

  test('a worker on the custom provider runs the command of the settings (agent.customCommand), in its own worktree', async () => {
    // the user's own CLI: writes the prompt it was given into a file of its working directory
    const script = 'printf "%s" "$1" > custom.txt; echo done';
    server.app.services.settings.update({ agent: { customCommand: ['sh', '-c', script, 'my-agent', '{prompt}'] } });
    try {
      const before = snapshot(repo);
      const dispatched = await call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: { ...writer, provider: 'custom' }, isolation: 'worktree', task: 'write the file the task names: custom-task-7' });
      assert.equal(dispatched.status, 202, JSON.stringify(dispatched.body));
      const run = await ended(dispatched.body.runId);
      assert.equal(run.status, 'succeeded', run.reason);
      assert.match(readFileSync(join(server.home, 'worktrees', run.runId, 'custom.txt'), 'utf8'), /write the file the task names: custom-task-7/);
      const diff = (await call(server, 'GET', `/api/orchestrate/worker-runs/${run.runId}/diff`)).body;
      assert.deepEqual(diff.files.map((f: { path: string; status: string }) => [f.path, f.status]), [['custom.txt', 'added']]);
      assert.deepEqual(snapshot(repo), before, "the user's tree is untouched until a merge");
      assert.equal((await call(server, 'DELETE', `/api/orchestrate/worker-runs/${run.runId}/worktree`)).status, 200);
    } finally {
      server.app.services.settings.update({ agent: { customCommand: [] } });
    }
  });

  test('an uncommitted change of the user in a file the merge writes refuses it; the user\'s other uncommitted changes are not copied into a worktree, and say so', async () => {
    writeFileSync(join(repo, 'README.md'), '# project, edited by the user\n');
    const accepted = await dispatch('edit the readme scenario:text write:README.md=worker');
    const run = await ended(accepted.body.runId);
    assert.equal(run.worktree.uncommittedLeftOut, true);
    const invocation = server.invocations().find((i) => i.prompt.includes('edit the readme'))!;
    assert.match(invocation.prompt, /uncommitted changes are not in it/);
    const before = snapshot(repo);
    const refused = await call(server, 'POST', `/api/orchestrate/worker-runs/${run.runId}/merge`, {});
    assert.deepEqual([refused.status, refused.body.error, refused.body.files, refused.body.reason], [409, 'MERGE_CONFLICT', ['README.md'], 'uncommitted']);
    assert.deepEqual(snapshot(repo), before);
    git(repo, 'checkout', '--', 'README.md');
    assert.equal((await call(server, 'POST', `/api/orchestrate/worker-runs/${run.runId}/merge`, {})).status, 200);
    assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), 'worker\n');
  });

  test('changes requested: a follow-up of the same worker in the same worktree, told the comments; approve merges both', async () => {
    const first = await ended((await dispatch('greet scenario:text write:greeting.txt=hello')).body.runId);
    const review = await call(server, 'POST', `/api/orchestrate/worker-runs/${first.runId}/review`, {
      decision: 'changes_requested',
      comments: [{ path: 'greeting.txt', line: 1, body: 'Say it louder write:greeting.txt=HELLO' }, { path: 'greeting.txt', body: 'and add a second file write:more.txt=more' }],
    });
    assert.equal(review.status, 202, JSON.stringify(review.body));
    assert.equal(review.body.reviewOf, first.runId);
    const followUp = await ended(review.body.runId);
    assert.deepEqual([followUp.status, followUp.reviewOf, followUp.worktree.branch], ['succeeded', first.runId, `svc/${first.runId}`]);
    const invocation = server.invocations().find((i) => i.prompt.includes('Say it louder'))!;
    assert.equal(invocation.cwd, join(server.home, 'worktrees', first.runId), 'the follow-up works in the first run\'s worktree');
    assert.match(invocation.prompt, /greeting\.txt:1: Say it louder/);
    assert.match(invocation.prompt, new RegExp(`earlier run ${first.runId}`));
    const diff = (await call(server, 'GET', `/api/orchestrate/worker-runs/${followUp.runId}/diff`)).body;
    assert.deepEqual(diff.files.map((f: { path: string }) => f.path), ['greeting.txt', 'more.txt']);
    assert.match(diff.patch, /^\+HELLO$/m);
    assert.equal(git(repo, 'log', '--format=%s', `${first.worktree.base}..svc/${first.runId}`).split('\n').filter(Boolean).length, 2, 'one commit per run on the branch');
    const approved = await call(server, 'POST', `/api/orchestrate/worker-runs/${first.runId}/review`, { decision: 'approve' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(readFileSync(join(repo, 'greeting.txt'), 'utf8'), 'HELLO\n');
    assert.equal(readFileSync(join(repo, 'more.txt'), 'utf8'), 'more\n');
    assert.equal((await call(server, 'GET', `/api/orchestrate/worker-runs/${followUp.runId}`)).body.worktree.state, 'merged');
  });

  test('the check (C → D) runs against the tree: it waits until every open worktree of the session is merged or discarded', async () => {
    const run = await ended((await dispatch('checked scenario:text write:c.txt=c')).body.runId);
    server.app.services.settings.update({ orchestration: { checkCommand: 'test -f c.txt' } });
    const { orchestration } = server.app.services;
    await assert.rejects(orchestration.check(session), (err: { code: string; details: { runIds: string[] } }) => err.code === 'UNMERGED_WORKTREES' && err.details.runIds.includes(run.runId));
    assert.equal((await call(server, 'POST', `/api/orchestrate/worker-runs/${run.runId}/merge`, {})).status, 200);
    const state = await orchestration.check(session);
    assert.equal(state.check?.exitCode, 0, 'the check saw the merged file');
    // a goal's evidence may name the merged run
    const { checkFiles } = await import('../../../src/modules/goals/evidence.ts');
    const merged = (id: string) => server.app.services.workers.get(id)?.worktree?.state === 'merged';
    assert.deepEqual(checkFiles(repo, [`run:${run.runId}`, 'run:tr_nevermerged'], merged), [{ path: `run:${run.runId}`, exists: true }, { path: 'run:tr_nevermerged', exists: false }]);
  });

  test('binary files are named, not inlined; a large patch is cut with a note; the file list stays whole', async () => {
    const run = await ended((await dispatch('blob scenario:text write:small.txt=s')).body.runId);
    const dir = join(server.home, 'worktrees', run.runId);
    writeFileSync(join(dir, 'image.bin'), Buffer.from([0, 1, 2, 0, 255, 0, 3]));
    writeFileSync(join(dir, 'zbig.txt'), 'x'.repeat(100).concat('\n').repeat(12_000));
    const diff = (await call(server, 'GET', `/api/orchestrate/worker-runs/${run.runId}/diff`)).body;
    assert.deepEqual(diff.files.map((f: { path: string; binary: boolean }) => [f.path, f.binary]), [['image.bin', true], ['small.txt', false], ['zbig.txt', false]]);
    assert.match(diff.patch, /Binary files \/dev\/null and b\/image\.bin differ/);
    assert.doesNotMatch(diff.patch, /\u0000/);
    assert.equal(diff.truncated, true);
    assert.ok(Buffer.byteLength(diff.patch) <= 1024 * 1024);
    assert.match(diff.note, /cut at 1 MiB/);
    assert.equal((await call(server, 'DELETE', `/api/orchestrate/worker-runs/${run.runId}/worktree`)).status, 200);
  });

  test('a person only: an agent credential cannot merge, discard or review; bad input and unknown runs are clear 4xx', async () => {
    const run = await ended((await dispatch('guarded scenario:text write:g.txt=g')).body.runId);
    const token = server.app.services.credentials.issue({ runId: 'tr_mainrun01', sessionId: session }, 60_000);
    for (const [method, path, body] of [
      ['POST', 'merge', {}],
      ['DELETE', 'worktree', undefined],
      ['POST', 'review', { decision: 'approve' }],
      ['POST', 'review', { decision: 'changes_requested', comments: [{ path: 'g.txt', body: 'no' }] }],
    ] as const) {
      const answer = await call(server, method, `/api/orchestrate/worker-runs/${run.runId}/${path}`, body, agentHeader(token));
      assert.deepEqual([answer.status, answer.body.error], [403, 'PERSON_REQUIRED'], `${method} ${path}`);
    }
    assert.equal((await call(server, 'GET', `/api/orchestrate/worker-runs/${run.runId}`)).body.worktree.state, 'open');
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `/api/orchestrate/worker-runs/${run.runId}/review`, { decision: 'maybe' }, 400, 'VALIDATION_FAILED'],
      ['POST', `/api/orchestrate/worker-runs/${run.runId}/review`, { decision: 'changes_requested', comments: [] }, 400, 'VALIDATION_FAILED'],
      ['POST', `/api/orchestrate/worker-runs/${run.runId}/review`, { decision: 'changes_requested', comments: [{ path: 'g.txt', line: 0, body: 'x' }] }, 400, 'VALIDATION_FAILED'],
      ['POST', `/api/orchestrate/worker-runs/${run.runId}/merge`, { mode: 'squash' }, 400, 'VALIDATION_FAILED'],
      ['GET', '/api/orchestrate/worker-runs/tr_doesnotexist/diff', undefined, 404, 'NOT_FOUND'],
      ['POST', '/api/orchestrate/worker-runs/tr_doesnotexist/merge', {}, 404, 'NOT_FOUND'],
      ['GET', '/api/orchestrate/worker-runs/..%2F..%2Fetc/diff', undefined, 400, 'BAD_URL'],
      ['GET', '/api/orchestrate/worker-runs/tr_x%00y/diff', undefined, 400, 'BAD_URL'],
      ['POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: writer, isolation: 'sandbox', task: 't' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const answer = await call(server, method, path, body);
      assert.deepEqual([answer.status, answer.body.error], [status, code], `${method} ${path} ${JSON.stringify(body)}`);
    }
    // a run without a worktree has nothing to review
    const plain = await ended((await dispatch('plain scenario:text', { isolation: 'none' })).body.runId);
    assert.deepEqual([plain.isolation, plain.worktree], ['none', undefined]);
    assert.equal((await call(server, 'GET', `/api/orchestrate/worker-runs/${plain.runId}/diff`)).body.error, 'NO_WORKTREE');
    // a working directory that is no git repository: 400 naming it, nothing queued
    const elsewhere = mkdtempSync(join(tmpdir(), 'svc-not-git-'));
    try {
      server.app.services.settings.update({ agent: { workingDir: elsewhere } });
      const refused = await dispatch('anywhere');
      assert.deepEqual([refused.status, refused.body.error], [400, 'NOT_A_GIT_REPOSITORY']);
      assert.match(refused.body.message, new RegExp(elsewhere));
      // unasked, a builder there simply writes in place
      const inPlace = await call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: writer, phase: 'B', task: 'build scenario:text', wait: true });
      assert.equal(inPlace.body.isolation, 'none');
    } finally {
      server.app.services.settings.update({ agent: { workingDir: repo } });
      rmSync(elsewhere, { recursive: true, force: true });
    }
    // in the repository, a mutable builder is isolated by default
    const built = await call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: writer, phase: 'B', task: 'build scenario:text', wait: true });
    assert.equal(built.body.isolation, 'worktree');
    const readOnly = await call(server, 'POST', '/api/orchestrate/dispatch', { sessionId: session, virtual: { ...writer, capability: 'read-only' }, isolation: 'worktree', task: 'look scenario:text', wait: true });
    assert.equal(readOnly.body.isolation, 'none', 'a read-only worker writes nothing and gets no worktree');
    for (const id of [run.runId, built.body.runId]) await call(server, 'DELETE', `/api/orchestrate/worker-runs/${id}/worktree`);
  });
});

test('after a restart an open worktree is listed, its diff served, and it can be discarded', async () => {
  const repo = makeRepo();
  const first = await startAgentServer({ workingDir: repo });
  let second: AgentTestServer | undefined;
  try {
    const accepted = await call(first, 'POST', '/api/orchestrate/dispatch', { virtual: writer, isolation: 'worktree', task: 'keep scenario:text write:kept.txt=kept', wait: true });
    assert.equal(accepted.body.status, 'succeeded');
    const runId = accepted.body.runId as string;
    await first.close({ removeHome: false });
    second = await startAgentServer({ workingDir: repo }, { home: first.home });
    const listed = (await call(second, 'GET', '/api/orchestrate/worktrees')).body.worktrees;
    assert.deepEqual(listed.map((w: { runId: string; branch: string; orphaned: boolean }) => [w.runId, w.branch, w.orphaned]), [[runId, `svc/${runId}`, false]]);
    const diff = (await call(second, 'GET', `/api/orchestrate/worker-runs/${runId}/diff`)).body;
    assert.deepEqual(diff.files.map((f: { path: string }) => f.path), ['kept.txt']);
    assert.equal((await call(second, 'DELETE', `/api/orchestrate/worker-runs/${runId}/worktree`)).status, 200);
    assert.deepEqual((await call(second, 'GET', '/api/orchestrate/worktrees')).body.worktrees, []);
    assert.equal(git(repo, 'branch', '--list', 'svc/*'), '');
    assert.equal(existsSync(join(first.home, 'worktrees', runId)), false);
  } finally {
    await (second ?? first).close();
    rmSync(repo, { recursive: true, force: true });
  }
});
