// The home's parts as the disk report names them, and the browser server's log kept bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { homePaths } from '../../../src/core/home.ts';
import { partOf } from '../../../src/modules/disk/usage.ts';
import { rotateLog } from '../../../src/modules/automation/browser/client.ts';

test('each top-level entry of the home is counted under its part; the rest is "other"', () => {
  const home = homePaths('/h');
  const cases: [string, string][] = [
    ['svc.db', 'database'], ['svc.db-wal', 'database'], ['svc.db-shm', 'database'], ['traces', 'traces'], ['media', 'media'],
    ['memory', 'memory'], ['runs', 'runs'], ['worktrees', 'worktrees'], ['skills', 'skills'], ['skills-npm', 'skills'], ['mcp', 'mcp'],
    ['browser-profile', 'browser'], ['pi-agent', 'pi'], ['browser-server.log', 'logs'], ['browser-server.log.1', 'logs'], ['token', 'other'], ['notes', 'other'],
  ];
  for (const [name, part] of cases) assert.equal(partOf(name, home), part, name);
});

test('the browser server log past its bound becomes <log>.1, replacing the one before', () => {
  const log = join(mkdtempSync(join(tmpdir(), 'svc-log-')), 'browser-server.log');
  writeFileSync(log, 'small');
  rotateLog(log, 10);
  assert.ok(existsSync(log) && !existsSync(`${log}.1`), 'under the bound: kept');
  writeFileSync(`${log}.1`, 'older');
  writeFileSync(log, 'more than ten bytes');
  rotateLog(log, 10);
  assert.equal(existsSync(log), false);
  assert.equal(readFileSync(`${log}.1`, 'utf8'), 'more than ten bytes');
});
