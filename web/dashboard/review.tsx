// The changes to review: every online instance's worker worktrees still open (GET /api/dashboard/
// worktrees), each a link to its review in the instance's own chat page (/i/<id>/#review=<runId>),
// where it is diffed, commented, merged or discarded. Read again when an instance's worker run changes
// (the page forwards it: worktreeEvents).
import { useEffect, useState } from 'preact/hooks';
import type { WorktreeListItem } from '../../src/protocol/orchestration.ts';
import { Badge, Card, EmptyState } from '../ui/components.tsx';
import { count } from '../ui/text.ts';
import { api, messageOf } from './api.ts';
import { relative } from './format.ts';

type InstanceWorktree = WorktreeListItem & { instanceId: string; instanceLabel: string };

interface Open {
  worktrees: InstanceWorktree[];
  asked: number;
  errors: { instanceId: string; instanceLabel: string; message: string }[];
}

/** Where the page tells the card that an instance's worker run changed (dispatch a plain Event). */
export const worktreeEvents = new EventTarget();

export function ChangesToReview() {
  const [open, setOpen] = useState<Open | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    const reload = () =>
      api<Open>('/api/dashboard/worktrees').then(
        (answer) => (setOpen(answer), setFailure(null)),
        (err) => setFailure(messageOf(err)),
      );
    void reload();
    worktreeEvents.addEventListener('change', reload);
    return () => worktreeEvents.removeEventListener('change', reload);
  }, []);
  return (
    <Card title="Changes to review" titleId="changes-review-title" class="review-section">
      <p class="card-note muted">Workers that ran in a git worktree of their own. Their changes land in an instance's tree only when a person merges them there.</p>
      {failure && (
        <p class="form-error" role="alert">
          Could not read the worktrees: {failure}
        </p>
      )}
      {open?.errors.map((e) => (
        <p key={e.instanceId} class="form-error" data-instance-error={e.instanceId}>
          {e.instanceLabel} did not list its worktrees: {e.message}
        </p>
      ))}
      {open && !open.worktrees.length && (
        <EmptyState title="Nothing to review">
          <span>{open.asked ? `${count(open.asked, 'online instance')} asked.` : 'No instance is online.'}</span>
        </EmptyState>
      )}
      {open && open.worktrees.length > 0 && (
        <ul class="review-list">
          {open.worktrees.map((w) => (
            <li key={`${w.instanceId}/${w.runId}`} data-run={w.runId}>
              <span class="review-where">{w.instanceLabel}</span>
              <code class="review-branch">{w.branch}</code>
              {w.orphaned && <Badge tone="warn">orphaned</Badge>}
              <span class="muted">{relative(w.createdAt)}</span>
              <a class="btn small" href={`/i/${encodeURIComponent(w.instanceId)}/#review=${encodeURIComponent(w.runId)}`} target="_blank" rel="noreferrer" aria-label={`Review ${w.branch} on ${w.instanceLabel} (new tab)`}>
                Review
              </a>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
