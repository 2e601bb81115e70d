// The opt-in export of svc's MCP servers into the CLIs' own user-level config files (POST /api/mcp/sync):
// which CLIs it writes and what it reports per file. Zod-free, so the web UI takes the list from here;
// where each CLI keeps the file is src/modules/mcp/sync.ts.

/** The CLIs whose user-level config files a sync can write, in the order the panel offers them. */
export const MCP_SYNC_TARGETS = ['claude', 'codex', 'gemini', 'opencode', 'copilot'] as const;
export type McpSyncTarget = (typeof MCP_SYNC_TARGETS)[number];

/** One file's outcome: `would-write` only in a dry run; `backup` is where the file was copied before it was written. */
export interface McpSyncReport {
  target: McpSyncTarget;
  file: string;
  status: 'written' | 'unchanged' | 'would-write' | 'error';
  backup?: string;
  added: string[];
  updated: string[];
  removed: string[];
  /** Entries in the file svc did not write (left as they are). */
  kept: string[];
  /** svc's servers not written, and why (e.g. the user has an entry of that name). */
  skipped: { name: string; reason: string }[];
  message?: string;
}
