// POST /api/mcp/sync: the explicit, opt-in export of svc's MCP servers into the user-level config
// files of the CLIs the user names. Each file is backed up into <home>/mcp-backups before it is
// written (atomically); which entries svc wrote is recorded per file in <home>/mcp-sync.json, so a
// later sync replaces or removes only those. Runs never need this: they get the servers per run.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../../core/errors.ts';
import type { RunMcpServer } from '../../protocol/mcp.ts';
import type { McpSyncReport, McpSyncTarget } from '../../protocol/mcp-sync.ts';
import {
  claudeMcpServers,
  codexMcpServers,
  copilotMcpServers,
  geminiMcpServers,
  opencodeMcp,
} from '../../agent/providers/mcp-config.ts';
import { mergeCodexToml, mergeJsonConfig, type MergeResult } from './sync-merge.ts';

type Json = Record<string, unknown>;

interface Target {
  /** The user-level file, relative to the user's home directory. */
  file: string[];
  merge(text: string | undefined, owned: readonly string[], servers: readonly RunMcpServer[]): MergeResult;
}

const json = (key: string, entries: (s: readonly RunMcpServer[]) => Json) => (text: string | undefined, owned: readonly string[], servers: readonly RunMcpServer[]) =>
  mergeJsonConfig(text, key, owned, entries(servers));

/** Where each CLI keeps its user-scope MCP servers. */
export const SYNC_TARGETS = {
  claude: { file: ['.claude.json'], merge: json('mcpServers', claudeMcpServers) },
  codex: { file: ['.codex', 'config.toml'], merge: (text, owned, servers) => mergeCodexToml(text, owned, codexMcpServers(servers)) },
  gemini: { file: ['.gemini', 'settings.json'], merge: json('mcpServers', (s) => geminiMcpServers(s, false)) },
  opencode: { file: ['.config', 'opencode', 'opencode.json'], merge: json('mcp', opencodeMcp) },
  copilot: { file: ['.copilot', 'mcp-config.json'], merge: json('mcpServers', copilotMcpServers) },
} as const satisfies Record<McpSyncTarget, Target>;

export type SyncTarget = keyof typeof SYNC_TARGETS;
export const SYNC_TARGET_IDS = Object.keys(SYNC_TARGETS) as [SyncTarget, ...SyncTarget[]];

export type SyncReport = McpSyncReport;

export interface SyncDeps {
  /** The user's home directory (where the CLIs' user-level configs live). */
  userHome(): string;
  /** svc's data directory: the ownership record and the backups. */
  svcHome: string;
  /** The servers a CLI would get for a run (enabled and meant for it). */
  serversFor(target: SyncTarget): readonly RunMcpServer[];
}

type Owned = Record<string, string[]>;

export function syncMcp(deps: SyncDeps, targets: readonly SyncTarget[], dryRun: boolean): SyncReport[] {
  const recordPath = join(deps.svcHome, 'mcp-sync.json');
  const owned: Owned = existsSync(recordPath) ? (JSON.parse(readFileSync(recordPath, 'utf8')) as { files: Owned }).files : {};
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const reports = [...new Set(targets)].map((target) => {
    const file = join(deps.userHome(), ...SYNC_TARGETS[target].file);
    const empty = { target, file, added: [], updated: [], removed: [], kept: [], skipped: [] };
    try {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      const result = SYNC_TARGETS[target].merge(text, owned[file] ?? [], deps.serversFor(target));
      const { text: next, owned: nowOwned, ...changes } = result;
      const report: SyncReport = { target, file, status: 'unchanged', ...changes };
      if (next === (text ?? '') || dryRun) {
        if (next !== (text ?? '')) report.status = 'would-write';
        return report;
      }
      if (text !== undefined) {
        report.backup = join(deps.svcHome, 'mcp-backups', stamp, `${target}-${basename(file)}`);
        mkdirSync(dirname(report.backup), { recursive: true, mode: 0o700 });
        copyFileSync(file, report.backup);
      }
      writeAtomically(file, next, text === undefined ? 0o600 : statSync(file).mode & 0o777);
      owned[file] = nowOwned;
      report.status = 'written';
      return report;
    } catch (err) {
      const message = err instanceof AppError ? err.message : `could not update it: ${(err as Error).message}`;
      return { ...empty, status: 'error' as const, message };
    }
  });
  if (!dryRun) writeAtomically(recordPath, `${JSON.stringify({ files: owned }, null, 2)}\n`, 0o600);
  return reports;
}

function writeAtomically(path: string, text: string, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.svc-${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}
