// The manager's registry of instances (table `instances` of dashboard.db).
import type { INSTANCE_ORIGINS } from '../../protocol/dashboard.ts';
import type { Db } from '../../store/db.ts';

export interface InstanceRecord {
  id: string;
  url: string;
  label: string;
  origin: (typeof INSTANCE_ORIGINS)[number];
  token: string | null;
  home: string | null;
  pid: number | null;
  createdAt: number;
  /** The fleet machine it runs on (origin 'fleet'). */
  machineId: string | null;
}

interface Row {
  id: string;
  url: string;
  label: string;
  origin: InstanceRecord['origin'];
  token: string | null;
  home: string | null;
  pid: number | null;
  created_at: number;
  machine_id: string | null;
}

const toRecord = (r: Row): InstanceRecord => ({ id: r.id, url: r.url, label: r.label, origin: r.origin, token: r.token, home: r.home, pid: r.pid, createdAt: r.created_at, machineId: r.machine_id });

export class InstancesRepo {
  constructor(private readonly db: Db) {}

  list(): InstanceRecord[] {
    return (this.db.prepare('SELECT * FROM instances ORDER BY created_at, id').all() as Row[]).map(toRecord);
  }

  get(id: string): InstanceRecord | undefined {
    const row = this.db.prepare('SELECT * FROM instances WHERE id = ?').get(id) as Row | undefined;
    return row && toRecord(row);
  }

  byUrl(url: string): InstanceRecord | undefined {
    const row = this.db.prepare('SELECT * FROM instances WHERE url = ?').get(url) as Row | undefined;
    return row && toRecord(row);
  }

  /** Inserts or replaces the row of this id (a URL held by another row moves to this one). */
  save(r: InstanceRecord): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM instances WHERE url = ? AND id <> ?').run(r.url, r.id);
      this.db
        .prepare(
          `INSERT INTO instances (id, url, label, origin, token, home, pid, created_at, machine_id) VALUES (@id, @url, @label, @origin, @token, @home, @pid, @createdAt, @machineId)
           ON CONFLICT(id) DO UPDATE SET url = excluded.url, label = excluded.label, origin = excluded.origin, token = excluded.token,
             home = excluded.home, pid = excluded.pid, machine_id = excluded.machine_id`,
        )
        .run(r);
    })();
  }

  /** The instances of a fleet machine. */
  ofMachine(machineId: string): InstanceRecord[] {
    return (this.db.prepare('SELECT * FROM instances WHERE machine_id = ? ORDER BY created_at, id').all(machineId) as Row[]).map(toRecord);
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM instances WHERE id = ?').run(id).changes > 0;
  }
}
