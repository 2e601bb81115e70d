// Giving free pages back after a large deletion: an older database (auto_vacuum none) is switched by
// one VACUUM the first time; from then on an incremental vacuum does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/db.ts';
import { dbPages, reclaimFreePages } from '../../src/store/vacuum.ts';

function fillAndDelete(db: Database.Database) {
  db.exec('CREATE TABLE IF NOT EXISTS blob (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO blob (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 1000; i++) insert.run('z'.repeat(4000) + i);
  })();
  db.exec('DELETE FROM blob');
}

test('an older database is switched to incremental vacuum once, then given back incrementally', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-vacuum-')), 'old.db');
  // made the way databases were before: no auto_vacuum
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE keep (x)');
  old.close();
  const db = openDatabase(path);
  assert.equal(dbPages(db).autoVacuum, 0, 'opening does not rewrite an existing database');
  fillAndDelete(db);
  assert.ok(dbPages(db).freePages > 900);
  assert.equal(reclaimFreePages(db, 1024 * 1024 * 1024), undefined, 'below the threshold: nothing done');
  const first = reclaimFreePages(db)!;
  assert.equal(first.after.autoVacuum, 2);
  assert.ok(first.after.freePages < 10 && first.after.pages < first.before.pages - 900);
  fillAndDelete(db);
  const size = statSync(path).size;
  const second = reclaimFreePages(db)!;
  assert.equal(second.before.autoVacuum, 2);
  assert.ok(second.after.freePages < 10);
  assert.ok(statSync(path).size < size - 900 * 4096, 'the file shrank');
  db.close();
});
