import type { Migration } from './migration.ts';

// The memory store's index (the Markdown files under <home>/memory are the truth; all of this can be
// rebuilt from them with POST /api/memory/reindex).
// - memory_files: one row per indexed file, with what tells whether it changed (mtime, size, hash) and the
//   date its recency is measured from.
// - memory_chunks: one row per heading section. Ids only grow, and a changed file's sections get new ones,
//   so a higher id is a more recently written section (search windows rely on it).
// - memory_fts: words (unicode61), external content on memory_chunks, kept in sync by triggers.
// - memory_trigram: trigrams of the words that contain letters outside ASCII (Hangul, CJK, …), so such text
//   matches inside a word; contentless, written by the repository (only sections that have such words).
// - memory_vectors: embeddings keyed by the section's content hash and the model, so a reindex or a moved
//   section never asks the endpoint again for text it has embedded before.
// - memory_state: small counters that must survive a restart (the summariser's counter and watermark).
export const m005Memory: Migration = {
  version: 5,
  name: 'memory: files, sections (+FTS5 words and trigrams), vectors, state',
  up(db) {
    db.exec(`
      CREATE TABLE memory_files (
        path        TEXT PRIMARY KEY,
        kind        TEXT NOT NULL CHECK (kind IN ('profile', 'note', 'episode', 'procedure')),
        mtime_ms    INTEGER NOT NULL,
        size        INTEGER NOT NULL,
        hash        TEXT NOT NULL,
        dated_at    INTEGER NOT NULL,
        chunks      INTEGER NOT NULL,
        indexed_at  INTEGER NOT NULL
      );
      CREATE INDEX memory_files_kind ON memory_files(kind, path);

      CREATE TABLE memory_chunks (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        path        TEXT NOT NULL REFERENCES memory_files(path) ON DELETE CASCADE,
        kind        TEXT NOT NULL,
        heading     TEXT NOT NULL,
        start_line  INTEGER NOT NULL,
        end_line    INTEGER NOT NULL,
        text        TEXT NOT NULL,
        hash        TEXT NOT NULL
      );
      CREATE INDEX memory_chunks_path ON memory_chunks(path);
      CREATE INDEX memory_chunks_hash ON memory_chunks(hash);

      CREATE VIRTUAL TABLE memory_fts USING fts5(
        heading, text, content='memory_chunks', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2', prefix='2 3'
      );
      CREATE VIRTUAL TABLE memory_trigram USING fts5(
        words, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1'
      );
      CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_chunks BEGIN
        INSERT INTO memory_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
      END;
      CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_chunks BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
        DELETE FROM memory_trigram WHERE rowid = old.id;
      END;

      CREATE TABLE memory_vectors (
        hash    TEXT NOT NULL,
        model   TEXT NOT NULL,
        dims    INTEGER NOT NULL,
        vector  BLOB NOT NULL,
        PRIMARY KEY (hash, model)
      ) WITHOUT ROWID;

      CREATE TABLE memory_state (
        key    TEXT PRIMARY KEY,
        value  INTEGER NOT NULL
      );
    `);
  },
};
