// Opens the service's SQLite database (WAL mode) and brings its schema up to date.
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { migrations, type Migration } from './migrations/index.ts';

/**
 * The SQLite addon, by its path (npm builds it into build/Release). Without it better-sqlite3 asks the
 * `bindings` package, which finds the calling package by parsing a stack trace (in the bundle, svc's own
 * directory, where it is not) and tries several paths, failing, before the right one.
 */
const addonPath = () => createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');

export type Db = Database.Database;

/**
 * A database opened only to read it (svc doctor on a home whose server may be stopped): a read-write
 * connection set to query_only, because a read-only one to a WAL database leaves its -wal and -shm files
 * behind, where the last read-write connection to close removes them. Read-only where writing is refused.
 */
export function openDatabaseToRead(path: string): Db {
  let db: Db | undefined;
  try {
    db = new Database(path, { fileMustExist: true, nativeBinding: addonPath() });
    db.pragma('query_only = ON');
    return db;
  } catch {
    db?.close();
    return new Database(path, { readonly: true, fileMustExist: true, nativeBinding: addonPath() });
  }
}

export interface OpenOptions {
  /** Run only the migrations up to this version (tests of upgrade paths). */
  targetVersion?: number;
  migrationList?: readonly Migration[];
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, { nativeBinding: addonPath() });
  try {
    // takes effect on a new database only (before its first table): freed pages can then be given back
    // without a VACUUM (src/store/vacuum.ts switches an older one, once, after a large deletion)
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL'); // safe with WAL: a crash loses at most the last transactions, never corrupts
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Search and paging read the FTS index and recent pages over and over: keep them in memory.
    db.pragma('cache_size = -16000'); // 16 MB
    db.pragma('mmap_size = 268435456'); // 256 MB of address space, not of memory
    migrate(db, options.migrationList ?? migrations, options.targetVersion);
    return db;
  } catch (err) {
    // nobody else holds the handle: a failed open (a migration that throws, a file that is not a
    // database) must not leave it, and its file, open
    db.close();
    throw err;
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies every migration newer than the database's `user_version`, all in one transaction: an upgrade
 * that fails leaves the database as it was, at its old version, never between two (and a new database's
 * twenty migrations commit once, not twenty times).
 */
export function migrate(db: Db, list: readonly Migration[], targetVersion = Infinity): number[] {
  const current = schemaVersion(db);
  const pending = [...list].sort((a, b) => a.version - b.version).filter((m) => m.version > current && m.version <= targetVersion);
  if (pending.length === 0) return [];
  db.transaction(() => {
    for (const migration of pending) migration.up(db);
    db.pragma(`user_version = ${pending.at(-1)!.version}`);
  })();
  return pending.map((m) => m.version);
}

/** Flushes the WAL into the main file and closes; used on shutdown so the data dir is self-contained. */
export function closeDatabase(db: Db): void {
  if (!db.open) return;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
