// Giving the disk back after large deletions (a chat session deleted or cleared). SQLite keeps freed
// pages for reuse; with auto_vacuum=INCREMENTAL, `PRAGMA incremental_vacuum` hands them back to the
// file system without rewriting the database. New databases are made that way (src/store/db.ts); an
// older one is switched by one VACUUM, done here the first time a deletion leaves enough free pages —
// never on start-up, where it would hold the server for as long as the file takes to rewrite.
import type { Db } from './db.ts';

/** Free pages worth giving back: at least this many bytes (smaller freelists are reused soon anyway). */
export const RECLAIM_MIN_BYTES = 1024 * 1024;

export interface DbPages {
  pageSize: number;
  pages: number;
  freePages: number;
  /** 0 none, 1 full, 2 incremental. */
  autoVacuum: number;
}

export function dbPages(db: Db): DbPages {
  const n = (pragma: string) => db.pragma(pragma, { simple: true }) as number;
  return { pageSize: n('page_size'), pages: n('page_count'), freePages: n('freelist_count'), autoVacuum: n('auto_vacuum') };
}

/** Gives free pages back when there are enough of them; returns the pages before and after (undefined: nothing to do). */
export function reclaimFreePages(db: Db, minBytes = RECLAIM_MIN_BYTES): { before: DbPages; after: DbPages } | undefined {
  const before = dbPages(db);
  if (before.freePages * before.pageSize < minBytes) return undefined;
  if (before.autoVacuum === 2) db.pragma('incremental_vacuum');
  else {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  }
  // the pages leave the WAL for the main file, which then shrinks
  db.pragma('wal_checkpoint(TRUNCATE)');
  return { before, after: dbPages(db) };
}
