// Tool permissions answered by a person, end to end with the real Gemini CLI and OpenCode against the fake
// model (`scenario:write` asks to create hello-from-tool.txt): with auto-approve off and a person to ask, svc
// drives them over ACP (`gemini --acp`, `opencode acp`), their `session/request_permission` is held and
// becomes a permission request; a deny keeps the file from being written, an allow lets it land.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedWrite, deniedEnd, holdWrite, skipWithout, startPermissionRig, writtenFile, type PermissionRig } from './helpers.ts';

const CASES = [
  // the model of the recordings (without one, gemini asks a router model first)
  { cli: 'gemini', options: { model: 'gemini-2.5-flash' } },
  { cli: 'opencode', options: {} },
] as const;

for (const { cli, options } of CASES) {
  describe(`tool permissions with the real ${cli} (ACP)`, { skip: skipWithout(cli), timeout: 180_000 }, () => {
    let rig: PermissionRig;

    before(async () => {
      rig = await startPermissionRig(cli, options);
    });
    after(async () => {
      await rig?.close();
    });

    test('held, then denied by a person: nothing is written, the run ends', async () => {
      const held = await holdWrite(rig, 'deny');
      const { asked } = held;
      // ACP names no tool: its kind is the tool; the file and its content come from the CLI's own input
      assert.equal(asked.tool, 'edit');
      assert.equal(asked.provider, cli);
      assert.equal(asked.summary.title, 'Write hello-from-tool.txt');
      assert.equal(asked.summary.path, writtenFile(rig));
      assert.match(asked.summary.diff, /\+hello-from-tool/);
      assert.equal((await rig.decide(asked.id, { decision: 'deny', reason: 'not here' })).status, 200);
      await deniedEnd(rig, held, 'person');
    });

    test('allowed by a person: the file lands', () => allowedWrite(rig));
  });
}
