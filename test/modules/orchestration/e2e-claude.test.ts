// A whole P → A → B → C → D cycle driven by the real claude CLI as the main agent, against the fake
// model scripted to run `svc orchestrate` and `svc dispatch` from its shell tool, with real audit and
// verification worker runs (real claude too) whose structured verdicts open the gates.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, scriptToken, type FakeModel } from '../../support/fake-model.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { startServer, type TestServer } from '../../support/server.ts';
import { call, record, waitFor } from './support.ts';

const verdict = (json: object) => scriptToken('say64', `Checked.\n\n\`\`\`json\n${JSON.stringify(json)}\n\`\`\`\n`);

describe('a full cycle driven by the real claude CLI', { skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh' }, () => {
  let fake: FakeModel;
  let server: TestServer;
  let runDir: string;
  before(async () => {
    fake = await startFakeModel();
    server = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
    runDir = mkdtempSync(join(tmpdir(), 'svc-orc-e2e-'));
    const { env, cwd } = prepareRealCliEnv('claude', fake.url, runDir);
    writeFileSync(join(cwd, 'plan.md'), '# Plan\n1. Add the greeting.\n2. Check it.\n');
    server.app.services.settings.update({
      agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0 },
      orchestration: { checkCommand: 'test -f plan.md && echo check-passed' },
    });
  });
  after(async () => {
    await server.close();
    await fake.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  test('P → A → B → C → D on records only; the agent cannot approve', { timeout: 600_000 }, async () => {
    const events = record(server);
    const session = server.app.services.chat.activeSession().id;
    const turn = async (command: string) => {
      const lines = await (await postNdjson(`${server.url}/api/message`, { prompt: `Do this. ${scriptToken('sh64', command)}`, sessionId: session })).done;
      const done = lines.at(-1);
      assert.equal(done.status, 'ok', JSON.stringify(done));
      return lines.filter((l: { type: string }) => l.type === 'tool').map((l: { output?: string }) => l.output ?? '').join('\n');
    };
    const state = async () => (await call(server, 'GET', `/api/orchestrate/state?sessionId=${session}`)).body;

    const first = await turn(
      'svc orchestrate P && svc orchestrate plan --file plan.md && svc orchestrate A; ' +
        'svc orchestrate B --approve; echo approve-exit=$?; ' +
        `svc dispatch --employee auditor --phase A --wait "Audit the plan. ${verdict({ verdict: 'pass', findings: ['fine'] })}"`,
    );
    assert.match(first, /approve-exit=1/, first);
    let now = await state();
    assert.deepEqual([now.phase, now.plan.version, now.plan.by, now.audit.verdict, now.audit.planVersion], ['A', 1, 'agent', 'pass', 1]);
    assert.equal(now.audit.error, undefined);
    // the refused approval left no trace but its event-less 403
    assert.ok(now.history.every((h: { actor: string; approved?: unknown }) => h.actor === 'agent' && !h.approved));

    await turn(
      'svc orchestrate B && ' +
        `svc dispatch --employee verifier --phase B --wait "Verify the build. ${verdict({ verdict: 'done', findings: [] })}" && ` +
        'svc orchestrate C && svc orchestrate D',
    );
    now = await state();
    assert.deepEqual([now.phase, now.status, now.verification.verdict, now.check.exitCode], ['D', 'complete', 'done', 0]);
    assert.match(now.check.outputTail, /check-passed/);
    assert.deepEqual(now.history.map((h: { from: string; to: string }) => `${h.from}>${h.to}`), ['IDLE>P', 'P>A', 'A>B', 'B>C', 'C>D']);
    assert.ok(now.history.every((h: { actor: string; runId?: string }) => h.actor === 'agent' && /^tr_/.test(h.runId ?? '')));
    assert.ok(events.some((e) => e.name === 'orchestrate_done' && e.payload.kind === 'cycle'));

    // both worker results came back to the session, once each
    const runs = (await call(server, 'GET', `/api/orchestrate/worker-runs?sessionId=${session}`)).body.runs;
    assert.deepEqual(runs.map((r: { employeeId: string; status: string }) => `${r.employeeId}:${r.status}`).sort(), ['auditor:succeeded', 'verifier:succeeded']);
    const messages = await waitFor(async () => {
      const all = (await call(server, 'GET', `/api/messages?sessionId=${session}&limit=200`)).body.messages as { content: string }[];
      const results = all.filter((m) => m.content.startsWith('[worker result]'));
      return results.length === 2 ? results : undefined;
    }, 'both results delivered');
    assert.equal(messages.length, 2);
  });
});
