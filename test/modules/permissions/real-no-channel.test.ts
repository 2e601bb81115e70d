// Runs of Gemini CLI and OpenCode with auto-approve off and nobody to ask (one-shot runs such as the memory's
// summaries: no askPermissions), against the fake model's `write` scenario: svc runs them headless, where
// nothing can be held, so nothing is written and the run ends by itself. Gemini headless leaves the tools that
// need approval out; OpenCode rejects them itself (svc asks it to ask). With a person to ask they run over ACP
// and hold the call (real-acp.test.ts). (Pi, given its reading tools only, is checked by its adapter's test and
// docs/protocols/permissions.md.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attempt } from '../../../src/agent/attempt.ts';
import { adapterOf } from '../../../src/agent/providers/registry.ts';
import type { NormalizedEvent } from '../../../src/agent/providers/types.ts';
import { startFakeModel, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { skipWithout, WRITE_PROMPT, WRITTEN_FILE } from './helpers.ts';

const CASES = [
  // a fresh folder is new to gemini: svc trusts the working directory it was given (--skip-trust)
  { cli: 'gemini', model: 'gemini-2.5-flash' },
  { cli: 'opencode', model: undefined },
] as const;

for (const { cli, model } of CASES) {
  describe(`auto-approve off with the real ${cli} and nobody to ask: refused, never held`, { skip: skipWithout(cli), timeout: 120_000 }, () => {
    let fake: FakeModel;

    before(async () => {
      fake = await startFakeModel();
    });
    after(async () => {
      await fake?.close();
    });

    test('the write does not happen and the run ends', async () => {
      const runDir = mkdtempSync(join(tmpdir(), `svc-nochannel-${cli}-`));
      const prepared = prepareRealCliEnv(cli, fake.url, runDir);
      const pidDir = join(runDir, 'pids');
      mkdirSync(pidDir);
      const events: NormalizedEvent[] = [];
      const attempt = new Attempt(
        {
          adapter: adapterOf(cli),
          request: { prompt: WRITE_PROMPT, cwd: prepared.cwd, executable: realCliPath(cli)!, model, autoApprove: false },
          env: prepared.env,
          pidDir,
          idleTimeoutMs: 60_000,
          maxRunMs: 90_000,
        },
        { onEvent: (event) => events.push(event), onRawLine: () => undefined },
      );
      assert.equal((await attempt.done).status, 'ok');
      assert.equal(existsSync(join(prepared.cwd, WRITTEN_FILE)), false);
      assert.equal(events.filter((e) => e.kind === 'permission_request').length, 0);
    });
  });
}
