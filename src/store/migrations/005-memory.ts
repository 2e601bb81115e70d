import type { Migration } from './migration.ts';

// The memory store's index (the Markdown files under <home>/memory are the truth; all of this can be
// rebuilt from them with POST /api/memory/reindex).
// - memory_files: one row per indexed file, with what tells whether it changed (mtime, size, hash) and the
//   date its recency is measured from.
// - memory_chunks: one row per heading section. Ids only grow, and a changed file's sections get new ones,
//   so a higher id is a more recently written section (search windows rely on it).
// - memory_fts: words (unicode61) of the heading path and the text; external content on memory_chunks, kept
//   in sync by triggers (no prefix index: only words outside ASCII are prefix-matched, and it would
//   nearly double the cost of indexing).
// - memory_trigram: trigrams of `words`, the section's words that contain letters outside ASCII (Hangul,
//   CJK, …), so such text matches inside a word; external content too, and only for sections that have any.
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
        hash        TEXT NOT NULL,
        words       TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX memory_chunks_path ON memory_chunks(path);
      CREATE INDEX memory_chunks_hash ON memory_chunks(hash);

      CREATE VIRTUAL TABLE memory_fts USING fts5(
        heading, text, content='memory_chunks', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2'
      );
      CREATE VIRTUAL TABLE memory_trigram USING fts5(
        words, content='memory_chunks', content_rowid='id',
        tokenize='trigram remove_diacritics 1'
      );
      -- how many sections hold each word (search plans its queries with it)
      CREATE VIRTUAL TABLE memory_fts_terms USING fts5vocab(memory_fts, 'row');
      CREATE TRIGGER memory_chunks_insert AFTER INSERT ON memory_chunks BEGIN
        INSERT INTO memory_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
        INSERT INTO memory_trigram(rowid, words) SELECT new.id, new.words WHERE new.words <> '';
      END;
      CREATE TRIGGER memory_chunks_delete AFTER DELETE ON memory_chunks BEGIN
        INSERT INTO memory_fts(memory_fts, rowid, heading, text) VALUES ('delete', old.id, old.heading, old.text);
        INSERT INTO memory_trigram(memory_trigram, rowid, words) SELECT 'delete', old.id, old.words WHERE old.words <> '';
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
