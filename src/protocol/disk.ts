// The disk report (GET /api/disk) as its readers see it: the server, `svc status` and the settings
// page. Types and constants only, without zod: the web UI and the quick-loading CLI import it.

/** The parts of the data directory the report names; "other" is what none of them holds. */
export const DISK_PARTS = ['database', 'traces', 'media', 'memory', 'runs', 'worktrees', 'skills', 'mcp', 'browser', 'pi', 'logs', 'other'] as const;
export type DiskPart = (typeof DISK_PARTS)[number];

export interface DiskReport {
  home: string;
  measuredAt: number;
  totalBytes: number;
  /** Every part, in DISK_PARTS order; they add up to totalBytes. */
  parts: { part: DiskPart; bytes: number }[];
  database: { freeBytes: number; autoVacuum: 'none' | 'full' | 'incremental'; auditBytes: number; auditEntries: number };
  traces: {
    count: number;
    bytes: number;
    pinned: number;
    /** False until the start-up scan of the traces directory has finished. */
    scanned: boolean;
    /** What trace retention's last pass removed. */
    lastPrune: { at: number; count: number; bytes: number } | null;
    maxBytes: number;
    maxAgeDays: number;
  };
}
