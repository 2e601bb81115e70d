// Tool permissions answered by a person, end to end with the real GitHub Copilot CLI over ACP against the
// fake model (`scenario:write` asks to create hello-from-tool.txt): with auto-approve off, copilot's
// `session/request_permission` is held and becomes a permission request; a deny keeps the file from being
// written (copilot ends its turn: ACP carries no reason to the agent), an allow lets it land, nobody
// answering denies it by itself, and an allow remembered for the session answers the same call again
// without asking.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sendJson } from '../../support/server.ts';
import { resolvedOf, skipWithout, startPermissionRig, WRITE_PROMPT, WRITTEN_FILE, type PermissionRig } from './helpers.ts';

describe('tool permissions with the real Copilot CLI (ACP)', { skip: skipWithout('copilot'), timeout: 240_000 }, () => {
  let rig: PermissionRig;
  const file = () => join(rig.cwd, WRITTEN_FILE);

  before(async () => {
    rig = await startPermissionRig('copilot');
  });
  after(async () => {
    await rig?.close();
  });

  test('held, then denied by a person: nothing is written, the run ends', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('deny');
    const mark = rig.seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    // ACP names no tool: its kind is the tool, its title the description; the input is copilot's {fileName, diff}
    assert.equal(asked.tool, 'edit');
    assert.equal(asked.provider, 'copilot');
    assert.equal(asked.summary.title, 'Write hello-from-tool.txt');
    assert.equal(asked.summary.path, file());
    assert.match(asked.summary.diff, /^diff --git .*\n[\s\S]*\n\+hello-from-tool$/);
    assert.equal(existsSync(file()), false, 'held: the tool has not run');

    assert.equal((await rig.decide(asked.id, { decision: 'deny', reason: 'not in this folder, please' })).status, 200);
    const answer = await done;
    assert.equal(answer.status, 'ok');
    assert.equal(existsSync(file()), false);
    const resolved = resolvedOf(rig.seen, asked.id);
    assert.deepEqual([resolved.decision, resolved.by], ['deny', 'person']);
  });

  test('allowed by a person: the file lands', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('allow');
    const mark = rig.seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal((await rig.decide(asked.id, { decision: 'allow' })).status, 200);
    assert.equal((await done).status, 'ok');
    assert.equal(existsSync(file()), true, 'the tool ran');
  });

  test('nobody answers: denied by the timeout, nothing is written', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('timeout');
    const mark = rig.seen.length;
    const done = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal((await done).status, 'ok');
    assert.equal(existsSync(file()), false);
    const resolved = resolvedOf(rig.seen, asked.id);
    assert.deepEqual([resolved.decision, resolved.by], ['deny', 'timeout']);
  });

  test('allowed for the session: the same call is answered again without asking', async () => {
    rmSync(file(), { force: true });
    await rig.newChat('remember');
    let mark = rig.seen.length;
    const first = rig.send(WRITE_PROMPT);
    const asked = await rig.nextRequest(mark);
    assert.equal((await rig.decide(asked.id, { decision: 'allow', remember: 'session' })).status, 200);
    await first;
    const rules = await rig.rules();
    assert.deepEqual(rules.map((r) => [r.label, r.scope]), [[`edit(${file()})`, 'session']]);

    rmSync(file(), { force: true });
    // the same chat session, a fresh conversation with the CLI (so the model calls the tool again)
    assert.equal((await sendJson(`${rig.server.url}/api/session/reset`, 'POST', {})).status, 200);
    mark = rig.seen.length;
    assert.equal((await rig.send('Write the greeting file again. scenario:write')).status, 'ok');
    assert.equal(existsSync(file()), true, 'written again');
    assert.equal(rig.seen.slice(mark).filter((s) => s.name === 'permission_request').length, 0, 'not asked a second time');
  });
});
