// Pi's sessions in svc's Pi directory age out with the traces: files last written before maxAgeDays go,
// newer ones and other files stay, 0 keeps everything; and a server prunes them after it listens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prunePiSessions } from '../../../src/modules/pi/sessions.ts';
import { startServer, tempHome } from '../../support/server.ts';

function session(piDir: string, name: string, daysOld: number): string {
  const folder = join(piDir, 'sessions', '--tmp-project--');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, name);
  writeFileSync(file, '{"type":"session","id":"x"}\n');
  const at = new Date(Date.now() - daysOld * 86_400_000);
  utimesSync(file, at, at);
  return file;
}

test('session files older than the bound go; newer ones, other files and a bound of 0 keep them', async () => {
  const piDir = join(tempHome(), 'pi-agent');
  const old = session(piDir, '2020_old.jsonl', 40);
  const recent = session(piDir, '2026_new.jsonl', 2);
  const other = session(piDir, 'notes.txt', 40);
  assert.deepEqual(await prunePiSessions(piDir, 0), { count: 0, bytes: 0 });
  assert.equal(existsSync(old), true);
  const removed = await prunePiSessions(piDir, 30);
  assert.deepEqual([removed.count, existsSync(old), existsSync(recent), existsSync(other)], [1, false, true, true]);
  assert.deepEqual(await prunePiSessions(join(piDir, 'missing'), 30), { count: 0, bytes: 0 });
});

test('a server prunes them after it listens, by traces.maxAgeDays', async () => {
  const home = tempHome();
  const old = session(join(home, 'pi-agent'), '2020_old.jsonl', 400);
  const recent = session(join(home, 'pi-agent'), '2026_new.jsonl', 1);
  const server = await startServer({ home });
  try {
    for (let i = 0; i < 200 && existsSync(old); i++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual([existsSync(old), existsSync(recent)], [false, true]);
  } finally {
    await server.close();
  }
});
