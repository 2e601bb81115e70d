// Tool permissions answered by a person, end to end with the real GitHub Copilot CLI over ACP against the
// fake model (`scenario:write` asks to create hello-from-tool.txt): with auto-approve off, copilot's
// `session/request_permission` is held and becomes a permission request; a deny keeps the file from being
// written (copilot ends its turn: ACP carries no reason to the agent), an allow lets it land, nobody
// answering denies it by itself, and an allow remembered for the session answers the same call again
// without asking.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedWrite, deniedEnd, holdWrite, rememberedForSession, skipWithout, startPermissionRig, writtenFile, type PermissionRig } from './helpers.ts';

describe('tool permissions with the real Copilot CLI (ACP)', { skip: skipWithout('copilot'), timeout: 240_000 }, () => {
  let rig: PermissionRig;

  before(async () => {
    rig = await startPermissionRig('copilot');
  });
  after(async () => {
    await rig?.close();
  });

  test('held, then denied by a person: nothing is written, the run ends', async () => {
    const held = await holdWrite(rig, 'deny');
    const { asked } = held;
    // ACP names no tool: its kind is the tool, its title the description; the input is copilot's {fileName, diff}
    assert.equal(asked.tool, 'edit');
    assert.equal(asked.provider, 'copilot');
    assert.equal(asked.summary.title, 'Write hello-from-tool.txt');
    assert.equal(asked.summary.path, writtenFile(rig));
    assert.match(asked.summary.diff, /^diff --git .*\n[\s\S]*\n\+hello-from-tool$/);
    assert.equal((await rig.decide(asked.id, { decision: 'deny', reason: 'not in this folder, please' })).status, 200);
    await deniedEnd(rig, held, 'person');
  });

  test('allowed by a person: the file lands', () => allowedWrite(rig));

  test('nobody answers: denied by the timeout, nothing is written', async () => {
    await rig.nobodyAnswersWithin(1500, async () => deniedEnd(rig, await holdWrite(rig, 'timeout'), 'timeout'));
  });

  test('allowed for the session: the same call is answered again without asking', async () => {
    const { rules } = await rememberedForSession(rig);
    assert.deepEqual(rules.map((r) => [r.label, r.scope]), [[`edit(${writtenFile(rig)})`, 'session']]);
  });
});
