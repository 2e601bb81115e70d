// Pi's sessions in svc's own Pi directory (<home>/pi-agent/sessions/<cwd>/<time>_<id>.jsonl) grow with
// every Pi run, like traces: the files older than `traces.maxAgeDays` go, checked after the server
// listens and hourly. Resuming such a session then starts a new one (Pi's stale-session answer, which
// the runtime already handles), as it would after Pi lost it.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const DAY_MS = 86_400_000;

/** Removes the session files last written before `maxAgeDays` ago (0: keeps all); what it removed. */
export async function prunePiSessions(piDir: string, maxAgeDays: number, now = Date.now()): Promise<{ count: number; bytes: number }> {
  const removed = { count: 0, bytes: 0 };
  if (maxAgeDays <= 0) return removed;
  const cutoff = now - maxAgeDays * DAY_MS;
  const root = join(piDir, 'sessions');
  for (const folder of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, folder)).catch(() => [] as string[])) {
      if (!name.endsWith('.jsonl')) continue;
      const file = join(root, folder, name);
      const facts = await stat(file).catch(() => undefined);
      if (!facts?.isFile() || facts.mtimeMs >= cutoff) continue;
      await rm(file, { force: true });
      removed.count++;
      removed.bytes += facts.size;
    }
  }
  return removed;
}
