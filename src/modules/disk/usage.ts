// What the data directory holds, by part: one asynchronous walk of the home (a directory at a time,
// its entries stat'ed in small batches, so a large traces or media directory never holds the event
// loop for long), each top-level entry counted under the part it belongs to. The parts add up to the
// total by construction: what no part names is "other".
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HomePaths } from '../../core/home.ts';
import { DISK_PARTS, type DiskPart } from '../../protocol/disk.ts';

const STAT_BATCH = 64;

/** The part a top-level entry of the home belongs to (pure). */
export function partOf(name: string, home: HomePaths): DiskPart {
  const base = (path: string) => path.slice(home.root.length + 1);
  const parts: [DiskPart, string[]][] = [
    ['database', [base(home.database), `${base(home.database)}-wal`, `${base(home.database)}-shm`]],
    ['traces', [base(home.traces)]],
    ['media', [base(home.media)]],
    ['memory', [base(home.memory)]],
    ['runs', [base(home.runs)]],
    ['worktrees', [base(home.worktrees)]],
    ['skills', [base(home.skills), base(home.skillsNpm)]],
    ['mcp', [base(home.mcp)]],
    ['browser', [base(home.browserProfile)]],
    ['pi', [base(home.piAgent)]],
  ];
  for (const [part, names] of parts) if (names.includes(name)) return part;
  return name.endsWith('.log') || /\.log\.\d+$/.test(name) ? 'logs' : 'other';
}

/** Bytes under `path` (a file's own size; links are not followed). */
export async function bytesUnder(path: string): Promise<number> {
  const facts = await lstat(path).catch(() => undefined);
  if (!facts) return 0;
  if (!facts.isDirectory()) return facts.size;
  const names = await readdir(path).catch(() => [] as string[]);
  let total = 0;
  for (let i = 0; i < names.length; i += STAT_BATCH) {
    const sizes = await Promise.all(names.slice(i, i + STAT_BATCH).map((name) => bytesUnder(join(path, name))));
    total += sizes.reduce((a, b) => a + b, 0);
  }
  return total;
}

/** The home's bytes by part, and their total. */
export async function measureHome(home: HomePaths): Promise<{ total: number; parts: Record<DiskPart, number> }> {
  const parts = Object.fromEntries(DISK_PARTS.map((p) => [p, 0])) as Record<DiskPart, number>;
  for (const name of await readdir(home.root).catch(() => [] as string[])) parts[partOf(name, home)] += await bytesUnder(join(home.root, name));
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}
