import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, migrate, schemaVersion, closeDatabase } from '../../src/store/db.ts';
import { migrations, type Migration } from '../../src/store/migrations/index.ts';
import { tempHome } from '../support/server.ts';

const latest = Math.max(...migrations.map((m) => m.version));

/** This process's open file descriptors on `path` (Linux: /proc/self/fd). */
const openHandlesOf = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (the directory's own descriptor)
    }
  });

test('versions are unique and increasing, starting at 1', () => {
  const versions = migrations.map((m) => m.version);
  assert.deepEqual(versions, [...new Set(versions)].sort((a, b) => a - b));
  assert.equal(versions[0], 1);
});

test('an empty database is brought to the latest version, in WAL mode', () => {
  const db = openDatabase(join(tempHome(), 'a.db'));
  assert.equal(schemaVersion(db), latest);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  closeDatabase(db);
});

test('opening an up-to-date database again applies nothing and keeps the data', () => {
  const path = join(tempHome(), 'b.db');
  const db = openDatabase(path);
  db.prepare("INSERT INTO chat_sessions (id, title, active, created_at, updated_at) VALUES ('s', 't', 1, 1, 1)").run();
  closeDatabase(db);
  const again = new Database(path);
  assert.deepEqual(migrate(again, migrations), []);
  assert.equal((again.prepare('SELECT title FROM chat_sessions').get() as { title: string }).title, 't');
  again.close();
});

test('an existing database at an older version is upgraded with its rows intact', () => {
  const path = join(tempHome(), 'c.db');
  const extra: Migration = {
    version: latest + 1,
    name: 'test: add a column',
    up: (db) => db.exec("ALTER TABLE chat_sessions ADD COLUMN note TEXT NOT NULL DEFAULT 'n'"),
  };
  const old = openDatabase(path);
  old.prepare("INSERT INTO chat_sessions (id, title, active, created_at, updated_at) VALUES ('s', 'kept', 1, 1, 1)").run();
  closeDatabase(old);
  const upgraded = openDatabase(path, { migrationList: [...migrations, extra] });
  assert.equal(schemaVersion(upgraded), latest + 1);
  assert.deepEqual(upgraded.prepare('SELECT title, note FROM chat_sessions').get(), { title: 'kept', note: 'n' });
  closeDatabase(upgraded);
});

test('a failing migration rolls back completely and leaves the version unchanged', () => {
  const db = new Database(':memory:');
  const broken: Migration = {
    version: 1,
    name: 'broken',
    up: (d) => {
      d.exec('CREATE TABLE t (x)');
      d.exec('THIS IS NOT SQL');
    },
  };
  assert.throws(() => migrate(db, [broken]));
  assert.equal(schemaVersion(db), 0);
  assert.equal((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get() as { n: number }).n, 0);
});

test('an upgrade is all or nothing: a later migration that fails takes the earlier pending ones back with it', () => {
  const path = join(tempHome(), 'd.db');
  closeDatabase(openDatabase(path));
  const added: Migration = { version: latest + 1, name: 'test: a table', up: (d) => d.exec('CREATE TABLE upgrade_one (x)') };
  const broken: Migration = { version: latest + 2, name: 'test: broken', up: (d) => d.exec('THIS IS NOT SQL') };
  assert.throws(() => openDatabase(path, { migrationList: [...migrations, added, broken] }));
  if (process.platform === 'linux') assert.deepEqual(openHandlesOf(path), [], 'the failed open closed its database');
  const db = new Database(path);
  assert.equal(schemaVersion(db), latest);
  assert.equal((db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'upgrade_one'").get() as { n: number }).n, 0);
  assert.deepEqual(migrate(db, [...migrations, added]), [latest + 1]);
  db.close();
});

test('migration 1: roles constrained, one active session, FTS kept in sync', () => {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO chat_sessions (id, title, active, created_at, updated_at) VALUES ('a', 'A', 1, 1, 1), ('b', 'B', 0, 1, 1)").run();
  assert.throws(() => db.prepare("UPDATE chat_sessions SET active = 1 WHERE id = 'b'").run(), /UNIQUE/);
  assert.throws(() => db.prepare("INSERT INTO messages (session_id, role, content, created_at) VALUES ('a', 'robot', 'x', 1)").run(), /CHECK/);
  assert.throws(() => db.prepare("INSERT INTO messages (session_id, role, content, created_at) VALUES ('nope', 'user', 'x', 1)").run(), /FOREIGN KEY/);
  const id = db.prepare("INSERT INTO messages (session_id, role, content, created_at) VALUES ('a', 'user', 'pineapple pizza', 1)").run().lastInsertRowid;
  const match = (q: string) => db.prepare('SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?').all(q).length;
  assert.equal(match('pineapple'), 1);
  db.prepare("UPDATE messages SET content = 'mango' WHERE id = ?").run(id);
  assert.equal(match('pineapple'), 0);
  assert.equal(match('mango'), 1);
  db.prepare('DELETE FROM messages WHERE id = ?').run(id);
  assert.equal(match('mango'), 0);
  db.close();
});

test('migration 5: memory sections kept in both text indexes, gone with their file; kinds constrained', () => {
  const db = openDatabase(':memory:');
  assert.throws(() => db.prepare("INSERT INTO memory_files VALUES ('a.md', 'diary', 1, 1, 'h', 1, 0, 1)").run(), /CHECK/);
  db.prepare("INSERT INTO memory_files VALUES ('notes/a.md', 'note', 1, 1, 'h', 1, 1, 1)").run();
  db.prepare("INSERT INTO memory_chunks (path, kind, heading, start_line, end_line, text, hash, words) VALUES ('notes/a.md', 'note', 'Plans', 1, 2, 'pineapple 마이그레이션', 'x', '마이그레이션')").run();
  db.prepare("INSERT INTO memory_chunks (path, kind, heading, start_line, end_line, text, hash) VALUES ('notes/a.md', 'note', 'Other', 3, 3, 'english only', 'y')").run();
  const words = (q: string) => db.prepare('SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?').all(q).length;
  const trigrams = (q: string) => db.prepare('SELECT rowid FROM memory_trigram WHERE memory_trigram MATCH ?').all(q).length;
  assert.equal(words('pineapple'), 1);
  assert.equal(words('plans'), 1, 'the heading is indexed');
  assert.equal(trigrams('그레이'), 1, 'inside a word');
  assert.equal((db.prepare('SELECT count(*) AS n FROM memory_trigram_docsize').get() as { n: number }).n, 1, 'only sections with such words');
  assert.throws(() => db.prepare("INSERT INTO memory_chunks (path, kind, heading, start_line, end_line, text, hash) VALUES ('none.md', 'note', '', 1, 1, 'x', 'y')").run(), /FOREIGN KEY/);
  db.prepare("DELETE FROM memory_files WHERE path = 'notes/a.md'").run();
  assert.equal(words('pineapple'), 0);
  assert.equal(trigrams('그레이'), 0);
  assert.equal((db.prepare('SELECT count(*) AS n FROM memory_chunks').get() as { n: number }).n, 0);
  db.close();
});
