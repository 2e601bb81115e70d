// The canonical MCP list in SQLite: replaced as a whole (PUT /api/mcp) or one entry at a time (install).
import type { Db } from '../../store/db.ts';
import type { McpServer } from '../../protocol/mcp.ts';

export class McpRepo {
  constructor(private readonly db: Db) {}

  list(): McpServer[] {
    const rows = this.db.prepare('SELECT server FROM mcp_servers ORDER BY position').all() as { server: string }[];
    return rows.map((row) => JSON.parse(row.server) as McpServer);
  }

  replaceAll(servers: readonly McpServer[]): void {
    const insert = this.db.prepare('INSERT INTO mcp_servers (name, position, server, updated_at) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM mcp_servers').run();
      servers.forEach((server, i) => insert.run(server.name, i, JSON.stringify(server), Date.now()));
    })();
  }
}
