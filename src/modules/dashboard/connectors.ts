// Connectors: the agent inside an instance may write to the manager (board items, notes) only with
// a credential the manager issued to that instance. The credential is shown once and kept as a hash;
// every write made with it is audited as made by the agent of that instance.
import { createHash, randomBytes } from 'node:crypto';
import { unauthorized } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { BoardItem, Note } from '../../protocol/dashboard.ts';
import type { BoardService } from './board.service.ts';
import type { NotesRepo } from './notes.repo.ts';

export interface AuditEntry {
  id: number;
  instanceId: string;
  actor: 'agent';
  action: string;
  targetId: string | null;
  summary: string;
  createdAt: number;
}

const hashOf = (credential: string) => createHash('sha256').update(credential).digest('hex');

export class Connectors {
  constructor(
    private readonly db: Db,
    private readonly board: BoardService,
    private readonly notes: NotesRepo,
    private readonly requireInstance: (id: string) => void,
    private readonly onNote: (note: Note) => void,
  ) {}

  /** Issues (or replaces) the instance's credential; the old one stops working. */
  issue(instanceId: string): { instanceId: string; credential: string } {
    this.requireInstance(instanceId);
    const credential = `svcc_${randomBytes(24).toString('base64url')}`;
    this.db
      .prepare('INSERT INTO connector_credentials (instance_id, hash, created_at) VALUES (?, ?, ?) ON CONFLICT(instance_id) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at')
      .run(instanceId, hashOf(credential), Date.now());
    return { instanceId, credential };
  }

  revoke(instanceId: string): void {
    this.db.prepare('DELETE FROM connector_credentials WHERE instance_id = ?').run(instanceId);
  }

  /** The instance a presented credential was issued to, or a 401. */
  authenticate(credential: string | undefined): string {
    const row = credential ? (this.db.prepare('SELECT instance_id FROM connector_credentials WHERE hash = ?').get(hashOf(credential)) as { instance_id: string } | undefined) : undefined;
    if (!row) throw unauthorized('This connector needs the credential the manager issued to your instance (header X-Svc-Connector).');
    return row.instance_id;
  }

  addBoardItem(credential: string | undefined, input: { title: string; detail?: string; lane?: BoardItem['lane'] }): BoardItem {
    const instanceId = this.authenticate(credential);
    const item = this.board.create({ ...input, instanceId }, 'connector');
    this.audit(instanceId, 'board.create', item.id, `created '${item.title}' in ${item.lane}`);
    return item;
  }

  moveBoardItem(credential: string | undefined, id: string, lane: BoardItem['lane']): BoardItem {
    const instanceId = this.authenticate(credential);
    const item = this.board.update(id, { lane });
    this.audit(instanceId, 'board.move', item.id, `moved '${item.title}' to ${lane}`);
    return item;
  }

  /** An agent's note; without a title, its first line (cut at 100 characters) is the title. */
  addNote(credential: string | undefined, input: { body: string; title?: string; boardItemId?: string }): Note {
    const instanceId = this.authenticate(credential);
    if (input.boardItemId) this.board.get(input.boardItemId);
    const title = input.title ?? (input.body.trim().split('\n')[0]!.slice(0, 100) || 'Note');
    const note = this.notes.add({ instanceId, title, body: input.body, boardItemId: input.boardItemId ?? null });
    this.audit(instanceId, 'note.create', String(note.id), `noted '${note.title}'`);
    this.onNote(note);
    return note;
  }

  listNotes(opts: { instanceId?: string; limit: number }): Note[] {
    return this.notes.list(opts);
  }

  auditLog(limit = 100): AuditEntry[] {
    const rows = this.db.prepare('SELECT * FROM connector_audit ORDER BY id DESC LIMIT ?').all(limit) as { id: number; instance_id: string; action: string; target_id: string | null; summary: string; created_at: number }[];
    return rows.map((r) => ({ id: r.id, instanceId: r.instance_id, actor: 'agent', action: r.action, targetId: r.target_id, summary: r.summary, createdAt: r.created_at }));
  }

  private audit(instanceId: string, action: string, targetId: string, summary: string): void {
    this.db.prepare('INSERT INTO connector_audit (instance_id, action, target_id, summary, created_at) VALUES (?, ?, ?, ?, ?)').run(instanceId, action, targetId, summary, Date.now());
  }
}
