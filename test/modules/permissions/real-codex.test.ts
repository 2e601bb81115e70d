// Tool permissions answered by a person, end to end with the real Codex CLI over its app server against
// the fake model: with auto-approve off, codex runs as `codex app-server` in an asking thread (approval
// policy untrusted, read-only sandbox, over the test config's "never" and "danger-full-access"), and each
// approval request is held as a permission request. A denied write leaves no file and the model reads
// the refusal; an allowed one lands; a shell command is asked too; nobody answering denies it by itself;
// an allow remembered for the session answers the same call again without asking.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedWrite, deniedEnd, holdWrite, rememberedForSession, skipWithout, startPermissionRig, WRITTEN_FILE, writtenFile, type PermissionRig } from './helpers.ts';

describe('tool permissions with the real Codex CLI (app server)', { skip: skipWithout('codex'), timeout: 240_000 }, () => {
  let rig: PermissionRig;

  before(async () => {
    rig = await startPermissionRig('codex');
  });
  after(async () => {
    await rig?.close();
  });

  test('held, then denied by a person: nothing is written, the model reads the refusal', async () => {
    const held = await holdWrite(rig, 'deny');
    const { asked } = held;
    assert.equal(asked.tool, 'file_change');
    assert.equal(asked.provider, 'codex');
    assert.equal(asked.summary.title, `Write ${WRITTEN_FILE}`);
    assert.equal(asked.summary.path, writtenFile(rig));
    assert.equal((await rig.decide(asked.id, { decision: 'deny', reason: 'not in this folder, please' })).status, 200);
    const answer = await deniedEnd(rig, held, 'person');
    assert.match(answer.text, /patch rejected by user/);
  });

  test('allowed by a person: the file lands', () => allowedWrite(rig));

  test('a shell command is held too; denied, it does not run', async () => {
    const { asked, done } = await holdWrite(rig, 'command', 'Run the greeting. scenario:tool');
    assert.equal(asked.tool, 'command_execution');
    assert.equal(asked.summary.command, "/bin/bash -lc 'echo hello-from-tool'");
    assert.equal((await rig.decide(asked.id, { decision: 'deny' })).status, 200);
    const answer = await done;
    assert.equal(answer.status, 'ok');
    assert.match(answer.text, /rejected by user/);
  });

  test('nobody answers: denied by the timeout, nothing is written', async () => {
    await rig.nobodyAnswersWithin(1500, async () => deniedEnd(rig, await holdWrite(rig, 'timeout'), 'timeout'));
  });

  test('allowed for the session: the same call is answered again without asking', async () => {
    const { rules } = await rememberedForSession(rig);
    assert.deepEqual(rules.map((r) => [r.label, r.scope]), [[`file_change(${writtenFile(rig)})`, 'session']]);
  });
});
