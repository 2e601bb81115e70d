// Runs the REAL vendor CLIs (scripts/install-real-clis.sh) against test/support/fake-model.ts with the
// command lines of the recordings in shared/protocols, and checks that what they print has the recordings'
// shape (test/support/cli-protocols.ts): this proves the fake model is faithful enough for the adapters'
// tests. Only the CLIs that svc runs another way are run here: Claude Code (svc writes stream-json to its
// stdin, which makes it echo the prompt as a `user` line) and Copilot (svc speaks ACP to it). svc runs the
// others in the JSON mode of their recordings, and test/agent/real-clis.test.ts checks their protocol on what
// svc ran (the run's raw lines and exit): one run of each scenario serves both. A CLI that is not installed is skipped.
//
//   node scripts/test.mjs real-cli-protocols
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../../support/fake-model.ts';
import { checkResumed, checkScenario, sessionIdOf } from '../../support/cli-protocols.ts';
import { prepareRealCliEnv, realCliPath, runRealCli, type RealCliName } from '../../support/real-clis.ts';

/** The CLIs svc does not run with their recorded command line. */
const CLIS: RealCliName[] = ['claude', 'copilot'];

const TIMEOUT_MS = 60_000;
const prompt = (scenario: string) => `Acceptance test prompt. scenario:${scenario}`;

// Both at a time: each has its own fake model and directories, and a CLI spends much of a run waiting on its
// model or its retries (Copilot's error run retries five times).
describe('the real CLIs with their recorded command lines, side by side', { concurrency: 2 }, () => {
  for (const cli of CLIS) {
    describe(`real ${cli} CLI against the fake model`, { concurrency: 1 }, () => {
      let root = '';
      before(() => {
        root = mkdtempSync(join(tmpdir(), `svc-real-${cli}-`));
      });
      after(() => {
        if (root) rmSync(root, { recursive: true, force: true });
      });

      const withFake = async (t: TestContext, fn: (fake: FakeModel, runDir: string) => Promise<void>) => {
        if (!realCliPath(cli)) {
          t.skip(`${cli} not installed: run scripts/install-real-clis.sh`);
          return;
        }
        const log: string[] = [];
        const fake = await startFakeModel({ log: (l) => log.push(l) });
        try {
          await fn(fake, mkdtempSync(join(root, 'run-')));
        } catch (err) {
          t.diagnostic(`fake model log:\n${log.join('\n')}`);
          throw err;
        } finally {
          await fake.close();
        }
      };

      for (const scenario of ['tool', 'error'] as const) {
        test(scenario, { timeout: TIMEOUT_MS + 30_000 }, (t) =>
          withFake(t, async (fake, runDir) => {
            const env = prepareRealCliEnv(cli, fake.url, runDir);
            checkScenario(cli, scenario, await runRealCli(cli, prompt(scenario), env, { timeoutMs: TIMEOUT_MS }), fake.modelRequests(), t);
          }),
        );
      }

      // The text scenario's run is the first turn of the resume (one CLI run fewer: ~5 s of CPU for OpenCode).
      test('text, then resume', { timeout: 2 * TIMEOUT_MS + 30_000 }, (t) =>
        withFake(t, async (fake, runDir) => {
          const env = prepareRealCliEnv(cli, fake.url, runDir);
          const r1 = await runRealCli(cli, 'Remember the secret word pineapple. scenario:text', env, { timeoutMs: TIMEOUT_MS });
          checkScenario(cli, 'text', r1, fake.modelRequests(), t);
          const id = sessionIdOf(r1.lines);
          assert.ok(id, 'turn 1 printed a session id');
          checkResumed(cli, r1, await runRealCli(cli, 'What was the secret word? scenario:text', env, { resume: id, timeoutMs: TIMEOUT_MS }));
        }),
      );
    });
  }
});
