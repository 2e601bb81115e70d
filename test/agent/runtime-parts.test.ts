import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundInput, clip, ToolLog, MAX_TOOL_LOG_ENTRIES } from '../../src/agent/tool-log.ts';
import { lineSplitter, reapOrphans } from '../../src/agent/process.ts';
import { CommandRegistry } from '../../src/agent/commands.ts';

test('tool log and fields are bounded', () => {
  assert.equal(clip('x'.repeat(10), 20), 'x'.repeat(10));
  assert.match(clip('x'.repeat(50), 20), /^x{20}… \[30 more characters\]$/);
  assert.deepEqual(boundInput({ a: 1 }), { a: 1 });
  assert.ok(JSON.stringify(boundInput({ content: 'y'.repeat(10_000) })).length < 4200);
  const log = new ToolLog();
  for (let i = 0; i < MAX_TOOL_LOG_ENTRIES + 5; i++) log.start({ stepId: `s${i}`, name: 'Bash', step: 'command', input: { i } });
  log.finish('s0', false, 'boom');
  const entries = log.toJSON();
  assert.equal(entries.length, MAX_TOOL_LOG_ENTRIES + 1);
  assert.deepEqual(entries[0], { stepId: 's0', name: 'Bash', step: 'command', status: 'error', input: { i: 0 }, output: 'boom' });
  assert.equal(entries.at(-1)!.name, '5 more steps not logged');
});

test('line splitter: partial lines, CRLF, the last unterminated line', () => {
  const lines: string[] = [];
  const split = lineSplitter((l) => lines.push(l));
  split.push('{"a":');
  assert.deepEqual(lines, []);
  split.push('1}\r\n{"b":2}\n{"c"');
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  split.end();
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c"']);
});

test('orphans recorded by a crashed server are reaped, unrelated pids are not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pids-'));
  const orphan = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  const unrelated = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  writeFileSync(join(dir, `${orphan.pid}.json`), JSON.stringify({ pid: orphan.pid, command: 'sleep' }));
  // a pid file whose process runs something else (pid reuse) must not be killed
  writeFileSync(join(dir, `${unrelated.pid}.json`), JSON.stringify({ pid: unrelated.pid, command: 'claude' }));
  const exited = new Promise((r) => orphan.once('exit', r));
  assert.equal(reapOrphans(dir), 1);
  await exited;
  assert.equal(orphan.signalCode, 'SIGKILL');
  assert.equal(unrelated.exitCode, null);
  assert.ok(!existsSync(join(dir, `${orphan.pid}.json`)));
  unrelated.kill();
});

test('command resolution', () => {
  const registry = new CommandRegistry();
  registry.register({ name: 'status', usage: '/status', description: 'd', run: () => 'ok' });
  assert.equal(registry.resolve('/status').command.name, 'status');
  assert.equal(registry.resolve('/STATUS  now please ').args, 'now please');
  assert.throws(() => registry.resolve('/nope'), /Unknown command \/nope. Commands: \/status/);
  assert.throws(() => registry.resolve('status'), /starts with "\/"/);
  assert.throws(() => registry.register({ name: 'status', usage: '', description: '', run: () => '' }), /twice/);
});
