// The CLIs svc runs without a permission channel (docs/approvals.md), with auto-approve off, against the fake
// model's `write` scenario: nothing is held for a person, nothing is written, and the run ends by itself.
// Gemini headless leaves the tools that need approval out; OpenCode rejects them itself (svc asks it to
// ask). (Pi, given its reading tools only, is checked by its adapter's test and docs/protocols/permissions.md.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { skipWithout, startPermissionRig, WRITE_PROMPT, WRITTEN_FILE, type PermissionRig } from './helpers.ts';

const CASES = [
  // the rig's folder is new to gemini: svc trusts the working directory it was given (--skip-trust)
  { cli: 'gemini', options: { model: 'gemini-2.5-flash' } },
  { cli: 'opencode', options: {} },
] as const;

for (const { cli, options } of CASES) {
  describe(`auto-approve off with the real ${cli}: refused, never held`, { skip: skipWithout(cli), timeout: 120_000 }, () => {
    let rig: PermissionRig;

    before(async () => {
      rig = await startPermissionRig(cli, options);
    });
    after(async () => {
      await rig?.close();
    });

    test('the write does not happen and the run ends', async () => {
      await rig.newChat('refused');
      const mark = rig.seen.length;
      assert.equal((await rig.send(WRITE_PROMPT)).status, 'ok');
      assert.equal(existsSync(join(rig.cwd, WRITTEN_FILE)), false);
      assert.equal(rig.seen.slice(mark).filter((s) => s.name === 'permission_request').length, 0);
    });
  });
}
