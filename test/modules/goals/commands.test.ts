// /goal and /task from a chat: a person acting on the active chat's goal and the task list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../support/server.ts';
import { goalStateText } from '../../../src/protocol/goals-text.ts';
import type { Goal } from '../../../src/protocol/goals.ts';

test('/goal and /task', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  // a command answers with text lines and `done`, or, refused, with one JSON error
  const say = async (text: string): Promise<{ status: string; text: string }> => {
    const response = await fetch(`${server.url}/api/command`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    const body = await response.text();
    if (response.status !== 200) return { status: 'error', text: String(JSON.parse(body).message) };
    const lines = body.trim().split('\n').map((l) => JSON.parse(l));
    return { status: lines.at(-1).status, text: lines.filter((l) => l.type === 'text').map((l) => l.content).join('') };
  };
  const root = mkdtempSync(join(tmpdir(), 'svc-goal-cmd-'));
  writeFileSync(join(root, 'out.txt'), 'x');

  assert.match((await say('/goal')).text, /no goal/);
  const set = await say(`/goal set "Build the thing" --root ${root} --turns 5 --minutes 30`);
  assert.equal(set.status, 'ok');
  assert.match(set.text, /goal set;[\s\S]*\[active, assist\] Build the thing\nused: 0\/5 turns, 0\.0\/30 min, 0 dispatches/);
  assert.match((await say('/goal done')).text, /not complete: no checkpoint yet/);
  assert.match((await say('/goal update built it --evidence out.txt --next "ship"')).text, /last checkpoint: built it → next: ship\nevidence: out\.txt/);
  assert.match((await say('/goal run preflight --mode bounded')).text, /goal-run goal_\S+: bounded[\s\S]*pass active-goal/);
  assert.equal((await say('/goal run launch')).status, 'error');
  assert.match((await say('/goal done')).text, /^goal complete/);
  assert.match((await say('/goal history')).text, /\[complete\] Build the thing/);
  assert.equal((await say('/goal set --turns x y')).status, 'error');

  const added = await say('/task add write docs --owner worker-1');
  const id = /added (\S+)/.exec(added.text)![1]!;
  assert.match((await say('/task')).text, new RegExp(`${id} \\[pending\\] write docs \\(worker-1\\)`));
  assert.match((await say(`/task start ${id}`)).text, /\[in_progress\]/);
  assert.match((await say(`/task done ${id}`)).text, /\[done\]/);
  assert.equal((await say('/task')).text, 'no open tasks');
  assert.equal((await say('/task clear')).text, 'removed 1 finished task(s)');
});

test('a goal\'s state reads the same everywhere, and an ended goal has no run going', () => {
  const goal = (status: Goal['status'], runStatus: Goal['runStatus'], mode: Goal['mode'] = 'bounded') => ({ status, runStatus, mode });
  assert.equal(goalStateText(goal('active', 'running', 'assist')), 'active, assist');
  assert.equal(goalStateText(goal('active', 'awaiting_approval', 'supervised')), 'active, supervised: waiting for your approval of the next turn');
  assert.equal(goalStateText(goal('active', 'stopped')), 'active, bounded: its run is stopped');
  assert.equal(goalStateText(goal('paused', 'running')), 'paused');
  // the contradictions a user saw: [cancelled, assist running], a complete goal "running"
  assert.equal(goalStateText(goal('cancelled', 'running', 'assist')), 'cancelled');
  assert.equal(goalStateText(goal('complete', 'running')), 'complete');
});
