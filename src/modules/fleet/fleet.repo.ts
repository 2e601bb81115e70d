// The fleet's tables of dashboard.db: invites (hashes of their codes) and machines.
import type { Db } from '../../store/db.ts';
import type { Heartbeat } from '../../protocol/fleet.ts';

export interface InviteRow {
  id: string;
  expiresAt: number;
  usedAt: number | null;
}

export interface MachineRow {
  id: string;
  name: string;
  publicKey: string;
  joinedAt: number;
  lastSeen: number | null;
  info: Partial<Heartbeat>;
  revokedAt: number | null;
}

interface MachineRecord {
  id: string;
  name: string;
  public_key: string;
  joined_at: number;
  last_seen: number | null;
  info: string;
  revoked_at: number | null;
}

const toMachine = (r: MachineRecord): MachineRow => ({
  id: r.id,
  name: r.name,
  publicKey: r.public_key,
  joinedAt: r.joined_at,
  lastSeen: r.last_seen,
  info: JSON.parse(r.info) as Partial<Heartbeat>,
  revokedAt: r.revoked_at,
});

export class FleetRepo {
  constructor(private readonly db: Db) {}

  addInvite(id: string, codeHash: string, createdAt: number, expiresAt: number): void {
    this.db.prepare('INSERT INTO fleet_invites (id, code_hash, created_at, expires_at) VALUES (?, ?, ?, ?)').run(id, codeHash, createdAt, expiresAt);
  }

  inviteByHash(codeHash: string): InviteRow | undefined {
    const row = this.db.prepare('SELECT id, expires_at, used_at FROM fleet_invites WHERE code_hash = ?').get(codeHash) as
      | { id: string; expires_at: number; used_at: number | null }
      | undefined;
    return row && { id: row.id, expiresAt: row.expires_at, usedAt: row.used_at };
  }

  /** Spends an invite on a new machine, at most once (false: it was used meanwhile). */
  join(inviteId: string, machine: { id: string; name: string; publicKey: string }, at: number): boolean {
    return this.db.transaction(() => {
      const used = this.db.prepare('UPDATE fleet_invites SET used_at = ?, machine_id = ? WHERE id = ? AND used_at IS NULL').run(at, machine.id, inviteId);
      if (used.changes !== 1) return false;
      this.db.prepare('INSERT INTO fleet_machines (id, name, public_key, joined_at) VALUES (?, ?, ?, ?)').run(machine.id, machine.name, machine.publicKey, at);
      return true;
    })();
  }

  /** Machines not revoked, oldest first. */
  machines(): MachineRow[] {
    return (this.db.prepare('SELECT * FROM fleet_machines WHERE revoked_at IS NULL ORDER BY joined_at, id').all() as MachineRecord[]).map(toMachine);
  }

  machine(id: string): MachineRow | undefined {
    const row = this.db.prepare('SELECT * FROM fleet_machines WHERE id = ? AND revoked_at IS NULL').get(id) as MachineRecord | undefined;
    return row && toMachine(row);
  }

  /** Whether a machine of this id ever joined, revoked or not (a revoked key never joins again). */
  everJoined(id: string): 'member' | 'revoked' | undefined {
    const row = this.db.prepare('SELECT revoked_at FROM fleet_machines WHERE id = ?').get(id) as { revoked_at: number | null } | undefined;
    return row ? (row.revoked_at === null ? 'member' : 'revoked') : undefined;
  }

  seen(id: string, at: number, info: Heartbeat): void {
    this.db.prepare('UPDATE fleet_machines SET last_seen = ?, info = ?, name = ? WHERE id = ? AND revoked_at IS NULL').run(at, JSON.stringify(info), info.name, id);
  }

  revoke(id: string, at: number): boolean {
    return this.db.prepare('UPDATE fleet_machines SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
  }
}
