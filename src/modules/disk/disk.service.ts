// The disk report (GET /api/disk): the home's use by part, the database's own figures (free pages,
// the audit log's share), the traces' retention state. Measured in the background and kept a few
// seconds, so a page that polls it (or several clients at once) walks the home once.
import type { HomePaths } from '../../core/home.ts';
import type { Db } from '../../store/db.ts';
import { dbPages } from '../../store/vacuum.ts';
import type { DiskPart, DiskReport } from '../../protocol/disk.ts';
import type { RetentionStats, TraceSettings } from '../traces/index.ts';
import { measureHome } from './usage.ts';

const FRESH_MS = 5000;

export interface DiskDeps {
  home: HomePaths;
  db: Db;
  traces(): RetentionStats;
  traceSettings(): TraceSettings;
  now?: () => number;
}

export class DiskUsage {
  private last?: { at: number; report: Promise<DiskReport> };

  constructor(private readonly deps: DiskDeps) {}

  /** The last report when it is a few seconds old at most (and one walk for callers at the same time), unless `fresh`. */
  report(fresh = false): Promise<DiskReport> {
    const now = (this.deps.now ?? Date.now)();
    if (!fresh && this.last && now - this.last.at < FRESH_MS) return this.last.report;
    const report = this.measure(now);
    this.last = { at: now, report };
    report.catch(() => (this.last = undefined));
    return report;
  }

  private async measure(now: number): Promise<DiskReport> {
    const { total, parts } = await measureHome(this.deps.home);
    const pages = dbPages(this.deps.db);
    return {
      home: this.deps.home.root,
      measuredAt: now,
      totalBytes: total,
      parts: Object.entries(parts).map(([part, bytes]) => ({ part: part as DiskPart, bytes })),
      database: {
        freeBytes: pages.freePages * pages.pageSize,
        autoVacuum: (['none', 'full', 'incremental'] as const)[pages.autoVacuum] ?? 'none',
        ...this.audit(),
      },
      traces: { ...this.deps.traces(), ...this.deps.traceSettings() },
    };
  }

  /** The security audit log's pages (its table and index) and entries: it lives in the database and only grows. */
  private audit(): { auditBytes: number; auditEntries: number } {
    const { db } = this.deps;
    // dbstat in aggregate mode reads only the named b-trees' pages
    const bytes = db.prepare("SELECT coalesce(sum(pgsize), 0) AS b FROM dbstat('main', 1) WHERE name IN ('security_audit', 'security_audit_action')").get() as { b: number };
    const entries = db.prepare('SELECT count(*) AS n FROM security_audit').get() as { n: number };
    return { auditBytes: bytes.b, auditEntries: entries.n };
  }
}
