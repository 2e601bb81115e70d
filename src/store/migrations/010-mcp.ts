import type { Migration } from './migration.ts';

// The canonical list of MCP servers (src/modules/mcp): one row per server, in the order the user
// gave them, each its whole validated entry as JSON (secrets included: the database file is the
// user's own, like the settings table).
export const m010Mcp: Migration = {
  version: 10,
  name: 'mcp: the canonical list of MCP servers',
  up(db) {
    db.exec(`
      CREATE TABLE mcp_servers (
        name        TEXT PRIMARY KEY,
        position    INTEGER NOT NULL,
        server      TEXT NOT NULL CHECK (json_valid(server)),
        updated_at  INTEGER NOT NULL
      );
    `);
  },
};
