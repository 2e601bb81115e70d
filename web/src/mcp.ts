// The MCP panel's side of the API (GET/PUT /api/mcp, POST /api/mcp/sync, POST /api/mcp/install) and
// whether the panel is open. Wire types come from src/protocol (mcp.ts by type only; mcp-sync.ts is zod-free).
import { get, post, put } from './api.ts';
import { createPanel } from './panel.ts';
import type { McpServer, McpServerInput } from '../../src/protocol/mcp.ts';
import { MCP_SYNC_TARGETS, type McpSyncReport, type McpSyncTarget } from '../../src/protocol/mcp-sync.ts';

export type { McpServer, McpServerInput, McpSyncReport, McpSyncTarget };
export { MCP_SYNC_TARGETS };

export interface McpInstallRequest {
  package: string;
  name?: string;
  args?: string[];
  env?: Record<string, string>;
}

export const mcpApi = {
  list: () => get<{ servers: McpServer[] }>('/api/mcp'),
  /** Replaces the whole list; an env or header value sent as *** keeps the stored one. */
  save: (servers: McpServerInput[]) => put<{ servers: McpServer[] }>('/api/mcp', { servers }),
  sync: (targets: McpSyncTarget[], dryRun: boolean) => post<{ results: McpSyncReport[] }>('/api/mcp/sync', { targets, dryRun }),
  install: (request: McpInstallRequest) => post<{ installId: string; server: McpServer; log: string[] }>('/api/mcp/install', request),
};

/** A failure of PUT /api/mcp names the entry and its field: `servers[2].env.API_KEY` → index 2, path ['env', 'API_KEY']. */
export function parseServerField(field: unknown): { index: number; path: string[] } | undefined {
  if (typeof field !== 'string') return undefined;
  const m = /^servers\[(\d+)\](?:\.(.+))?$/.exec(field);
  return m ? { index: Number(m[1]), path: m[2] ? m[2].split('.') : [] } : undefined;
}

const panel = createPanel();
export const openMcp = panel.open;
export const closeMcp = panel.close;
export const useMcpOpen = panel.useOpen;
