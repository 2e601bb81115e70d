// The live tool-step status: its text, and the throttle (one send, edits at most every `everyMs`, the
// last state shown, deleted on finish, failures dropped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusText, ToolStatus, type StatusChannel, type ToolLine } from '../../../src/modules/channels/status.ts';

const step = (stepId: string, name: string, status: ToolLine['status'], input: Record<string, unknown> = {}): ToolLine => ({ type: 'tool', stepId, name, input, status, traceId: 't' });

test('the text: the last five steps, their telling input, an icon per state', () => {
  assert.equal(statusText([step('1', 'Bash', 'ok', { command: 'npm  test\n--watch', description: 'Run' }), step('2', 'Read', 'running', { file_path: '/a/b.ts' }), step('3', 'Think', 'error')]), 'Working…\n✓ Bash: npm test --watch\n⏳ Read: /a/b.ts\n✗ Think');
  const many = Array.from({ length: 7 }, (_, i) => step(String(i), `T${i}`, 'ok', { other: 'x'.repeat(100) }));
  const text = statusText(many).split('\n');
  assert.deepEqual(text.slice(0, 3), ['Working…', '(2 earlier steps)', `✓ T2: ${'x'.repeat(79)}…`]);
  assert.equal(text.length, 7);
});

function recorder(failSends = 0) {
  const calls: { op: string; text?: string; at: number }[] = [];
  let failures = failSends;
  const channel: StatusChannel = {
    async send(text) {
      if (failures-- > 0) throw new Error('flood');
      calls.push({ op: 'send', text, at: Date.now() });
      return '77';
    },
    async edit(id, text) {
      calls.push({ op: `edit ${id}`, text, at: Date.now() });
    },
    async remove(id) {
      calls.push({ op: `remove ${id}`, at: Date.now() });
    },
  };
  return { calls, channel };
}

// The throttle runs on setTimeout and Date.now: mocked, time moves only when the test says, so "no edit
// yet" and "nothing after finish" are checked at exact moments instead of after a sleep that a loaded
// machine may outlast. `settled` lets the status's promise chain (the fake channel's calls) run out.
const settled = () => new Promise((r) => setImmediate(r));

test('sent at once, edits throttled to the latest state, removed on finish, nothing after', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_700_000_000_000 });
  const { calls, channel } = recorder();
  const status = new ToolStatus(channel, 150);
  status.step(step('1', 'Bash', 'running', { command: 'ls' }));
  await settled();
  assert.deepEqual(calls.map((c) => c.op), ['send']);
  status.step(step('1', 'Bash', 'ok'));
  status.step(step('2', 'Read', 'running', { file_path: 'x' }));
  t.mock.timers.tick(149);
  await settled();
  assert.deepEqual(calls.map((c) => c.op), ['send'], 'no edit before the throttle interval is up');
  t.mock.timers.tick(1);
  await settled();
  assert.deepEqual(calls.map((c) => c.op), ['send', 'edit 77']);
  assert.equal(calls[0]!.text, 'Working…\n⏳ Bash: ls');
  assert.equal(calls[1]!.text, 'Working…\n✓ Bash: ls\n⏳ Read: x', 'one edit with the latest state, the input kept');
  assert.equal(calls[1]!.at - calls[0]!.at, 150);
  // a step whose edit is pending, then finish: the pending edit is dropped
  status.step(step('2', 'Read', 'ok'));
  await status.finish();
  status.step(step('3', 'Bash', 'running'));
  // well past any throttle interval: whatever was still scheduled would have run by now
  t.mock.timers.tick(10 * 150);
  await settled();
  assert.deepEqual(calls.map((c) => c.op), ['send', 'edit 77', 'remove 77'], 'the pending edit was dropped, nothing after finish');
});

test('a failed send is dropped and tried again at the next step; no message, nothing to remove', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_700_000_000_000 });
  const { calls, channel } = recorder(1);
  const status = new ToolStatus(channel, 50);
  status.step(step('1', 'Bash', 'running'));
  status.step(step('1', 'Bash', 'ok'));
  await settled();
  assert.equal(calls.length, 0, 'the first send failed');
  t.mock.timers.tick(50);
  await settled();
  assert.deepEqual(calls.map((c) => [c.op, c.text]), [['send', 'Working…\n✓ Bash']]);
  await status.finish();
  assert.equal(calls.at(-1)!.op, 'remove 77');

  const quiet = recorder();
  await new ToolStatus(quiet.channel).finish();
  assert.deepEqual(quiet.calls, []);
});
