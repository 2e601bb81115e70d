// `svc orchestrate`, `svc dispatch` and `svc worker` through bin/svc.js against a real server (fake CLIs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../support/agent.ts';
import { runSvc } from '../support/cli.ts';


// the tests' own environment never passes for an agent's run
const svc = (args: string[], env: NodeJS.ProcessEnv = {}) => runSvc(args, { env: { SVC_RUN_TOKEN: '', ...env } });

test('svc orchestrate / dispatch / worker, with --json; a worker credential is refused', { timeout: 120_000 }, async () => {
  const server = await startAgentServer();
  try {
    const url = ['--url', server.url];
    const moved = await svc(['orchestrate', 'P', ...url]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /phase P \(waiting, waiting on the plan gate\); no plan/);
    const refused = await svc(['orchestrate', 'A', ...url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /needs the plan gate/);
    const status = JSON.parse((await svc(['orchestrate', 'status', '--json', ...url])).stdout);
    assert.equal(status.phase, 'P');
    assert.equal((await svc(['orchestrate', 'Z', ...url])).code, 2);

    const dispatched = await svc(['dispatch', '--employee', 'tester', '--wait', '--json', ...url, 'write', 'it', 'scenario:text']);
    assert.equal(dispatched.code, 0, dispatched.stderr);
    const run = JSON.parse(dispatched.stdout);
    assert.equal(run.status, 'succeeded');
    const list = await svc(['worker', 'list', ...url]);
    assert.match(list.stdout, new RegExp(`${run.runId}\\s+succeeded\\s+tester`));
    const output = await svc(['worker', 'output', run.runId, ...url]);
    assert.ok(output.stdout.trim().length > 0);
    const cancel = await svc(['worker', 'cancel', run.runId, ...url]);
    assert.equal(cancel.code, 1);
    assert.match(cancel.stderr, /already ended/);
    assert.match((await svc(['worker', 'employees', ...url])).stdout, /^auditor\s+read-only/m);

    // run with a credential the server never issued (what a worker has): refused
    const asWorker = await svc(['dispatch', '--employee', 'tester', ...url, 'recurse'], { SVC_RUN_TOKEN: 'svcworker_abc' });
    assert.equal(asWorker.code, 1);
    assert.match(asWorker.stderr, /belongs to no running main-agent run/);
  } finally {
    await server.close();
  }
});
