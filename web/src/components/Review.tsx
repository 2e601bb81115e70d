// The review of an isolated worker run: what changed (the files, then each file's diff drawn by
// diff2html with highlight.js), comments on lines, and Approve and merge / Request changes / Discard.
// The follow-up runs a review asked for are threaded under it, live from `worker_run` events. Keyboard
// first: every action is a button, a comment is a small form (file, line, text) that Escape closes,
// and a click on a line number in the diff fills that form in.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Diff2HtmlUI } from 'diff2html/lib-esm/ui/js/diff2html-ui-base.js';
import { ApiError, errorText } from '../api.ts';
import { hljs } from '../markdown.ts';
import { closeReview, reviewApi, thread, useReviewRunId, type ReviewComment, type WorktreeDiff } from '../review.ts';
import { onLiveEvent } from '../store.ts';
import type { WorkerRun } from '../orchestration.ts';
import { Badge, Button, ConfirmDialog } from '../../ui/components.tsx';
import { Icon } from '../../ui/icons.tsx';
import { PanelDialog } from './PanelDialog.tsx';
import 'diff2html/bundles/css/diff2html.min.css';
import './memory.css';
import './review.css';

export function ReviewPanel() {
  const runId = useReviewRunId();
  return (
    <PanelDialog open={runId !== null} onClose={closeReview} class="memory-panel review-panel" labelledBy="review-title">
      {() => <ReviewBody key={runId} runId={runId!} />}
    </PanelDialog>
  );
}

const STATUS_TONE = { added: 'ok', modified: 'accent', deleted: 'danger', renamed: 'neutral' } as const;
const RUN_TONE: Record<string, 'ok' | 'warn' | 'danger' | 'accent' | 'neutral'> = { running: 'accent', queued: 'neutral', succeeded: 'ok', failed: 'danger', timeout: 'danger', cancelled: 'warn', orphaned: 'warn' };
const short = (sha: string) => sha.slice(0, 8);
const wide = () => matchMedia('(min-width: 900px)').matches;

function ReviewBody({ runId }: { runId: string }) {
  const [run, setRun] = useState<WorkerRun | null>(null);
  const [runs, setRuns] = useState<WorkerRun[]>([]);
  const [diff, setDiff] = useState<WorktreeDiff | null>(null);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const [draft, setDraft] = useState<{ path: string; line: string; body: string } | null>(null);
  const [sideBySide, setSideBySide] = useState(false);
  const [busy, setBusy] = useState(false);
  const [discarding, setDiscarding] = useState(false);
  const [done, setDone] = useState('');

  useEffect(() => {
    let live = true;
    void reviewApi.run(runId).then(
      async (r) => {
        if (!live) return;
        setRun(r);
        const all = await reviewApi.followUps(r.sessionId).catch(() => ({ runs: [] as WorkerRun[] }));
        if (live) setRuns(all.runs);
        const settled = thread(runId, all.runs).every((t) => t.status !== 'running' && t.status !== 'queued');
        if (r.worktree?.state === 'open' && settled) {
          const d = await reviewApi.diff(runId).catch((err) => (setError(errorText(err)), null));
          if (live) setDiff(d);
        }
      },
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [runId, tick]);
  useEffect(() => onLiveEvent((event) => event.event === 'worker_run' && run && event.sessionId === run.sessionId && setTick((t) => t + 1)), [run?.sessionId]);

  const runsOfThread = thread(runId, runs.length ? runs : run ? [run] : []);
  const following = runsOfThread.filter((r) => r.runId !== runId);
  const going = runsOfThread.find((r) => r.status === 'running' || r.status === 'queued');
  const state = run?.worktree?.state;

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    setError('');
    try {
      setDone(await what());
      setTick((t) => t + 1);
    } catch (err) {
      setError(err instanceof ApiError && err.code === 'MERGE_CONFLICT' ? `${err.message}` : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const merge = () => act(async () => `Merged as ${short((await reviewApi.merge(runId)).commit)} on your current branch.`);
  const requestChanges = () =>
    act(async () => {
      const followUp = await reviewApi.requestChanges(runId, comments);
      setComments([]);
      return `Changes requested: follow-up run ${followUp.runId} works in the same worktree.`;
    });
  const discard = () => (setDiscarding(false), act(async () => (await reviewApi.discard(runId), 'Discarded: the worktree and its branch are gone.')));

  return (
    <div class="review">
      <header class="memory-head review-head">
        <h2 id="review-title">Review {run ? `· ${run.employee.name}` : ''}</h2>
        {run?.worktree && (
          <span class="memory-status">
            <code>{run.worktree.branch}</code> from <code>{short(run.worktree.base)}</code>
          </span>
        )}
        {state && <Badge tone={state === 'merged' ? 'ok' : state === 'discarded' ? 'warn' : 'accent'}>{state}</Badge>}
        <div class="memory-head-actions">
          <button type="button" class="icon-btn" aria-label="Close the review" title="Close" onClick={closeReview}>
            <Icon name="x" />
          </button>
        </div>
      </header>
      <div class="review-scroll">
        {run && <p class="review-task">{run.task.length > 400 ? `${run.task.slice(0, 400)}…` : run.task}</p>}
        {run?.worktree?.uncommittedLeftOut && <p class="muted review-note">Your uncommitted changes were not copied into this worktree: it started from your last commit.</p>}
        {error && (
          <p class="field-error review-error" role="alert">
            {error}
          </p>
        )}
        {done && (
          <p class="review-done" role="status">
            {done}
          </p>
        )}
        {run && !run.worktree && <p class="muted">This run wrote in your working directory (isolation "none"): there is nothing to review here.</p>}
        {state === 'merged' && run?.worktree?.mergedCommit && <p class="review-closed">Merged as <code>{short(run.worktree.mergedCommit)}</code>.</p>}
        {state === 'discarded' && <p class="review-closed">Discarded.</p>}
        {going && (
          <p class="review-progress" role="status">
            <span class="spinner" aria-hidden="true" /> {going.runId === runId ? 'This run' : `Follow-up ${going.runId}`} is {going.status} in the worktree; its changes show here when it ends.
          </p>
        )}
        {diff && state === 'open' && !going && (
          <>
            <FileList diff={diff} onComment={(path) => setDraft({ path, line: '', body: '' })} />
            {diff.truncated && <p class="muted review-note">{diff.note}</p>}
            <div class="review-view" role="group" aria-label="Diff layout">
              <Button small variant={sideBySide ? 'ghost' : 'secondary'} aria-pressed={!sideBySide} onClick={() => setSideBySide(false)}>
                Unified
              </Button>
              <Button small variant={sideBySide ? 'secondary' : 'ghost'} aria-pressed={sideBySide} onClick={() => setSideBySide(true)}>
                Side by side
              </Button>
            </div>
            <DiffView patch={diff.patch} sideBySide={sideBySide && wide()} onLine={(path, line) => setDraft({ path, line: String(line), body: '' })} />
          </>
        )}
        {diff && state === 'open' && !going && (
          <section class="review-comments" aria-label="Your comments">
            <h3>Comments {comments.length ? <Badge tone="neutral">{comments.length}</Badge> : null}</h3>
            {comments.length === 0 && !draft && <p class="muted">Add a comment on a file or a line (or click a line number in the diff); Request changes sends them to the worker.</p>}
            <ul class="review-comment-list">
              {comments.map((c, i) => (
                <li key={i}>
                  <code>{c.line ? `${c.path}:${c.line}` : c.path}</code> {c.body}
                  <Button small variant="ghost" aria-label={`Remove the comment on ${c.path}${c.line ? ` line ${c.line}` : ''}`} onClick={() => setComments(comments.filter((_, j) => j !== i))}>
                    Remove
                  </Button>
                </li>
              ))}
            </ul>
            {draft ? (
              <CommentForm
                files={diff.files.map((f) => f.path)}
                draft={draft}
                onChange={setDraft}
                onCancel={() => setDraft(null)}
                onAdd={(c) => (setComments([...comments, c]), setDraft(null))}
              />
            ) : (
              <Button small onClick={() => setDraft({ path: diff.files[0]?.path ?? '', line: '', body: '' })} disabled={!diff.files.length}>
                Add a comment
              </Button>
            )}
          </section>
        )}
        {following.length > 0 && (
          <section class="review-thread" aria-label="Follow-up runs">
            <h3>Follow-up runs</h3>
            <ol>
              {following.map((r) => (
                <li key={r.runId} data-run={r.runId}>
                  <code>{r.runId}</code> <Badge tone={RUN_TONE[r.status] ?? 'neutral'}>{r.status}</Badge>
                  {r.reason && r.status !== 'running' && <span class="muted"> {r.reason}</span>}
                </li>
              ))}
            </ol>
          </section>
        )}
      </div>
      {state === 'open' && (
        <footer class="review-actions">
          <Button variant="primary" disabled={busy || !!going || !diff} onClick={() => void merge()}>
            Approve and merge
          </Button>
          <Button disabled={busy || !!going || comments.length === 0} title={comments.length ? undefined : 'Add a comment first'} onClick={() => void requestChanges()}>
            Request changes{comments.length ? ` (${comments.length})` : ''}
          </Button>
          <Button variant="danger-outline" disabled={busy || !!going} onClick={() => setDiscarding(true)}>
            Discard…
          </Button>
        </footer>
      )}
      <ConfirmDialog open={discarding} title="Discard these changes?" confirmLabel="Discard the worktree and its branch" onCancel={() => setDiscarding(false)} onConfirm={() => void discard()}>
        <p>The worker's worktree and its branch {run?.worktree?.branch} are removed with everything in them. Your own tree is not touched.</p>
      </ConfirmDialog>
    </div>
  );
}

function FileList({ diff, onComment }: { diff: WorktreeDiff; onComment: (path: string) => void }) {
  if (!diff.files.length) return <p class="muted">The run changed no file.</p>;
  return (
    <ul class="review-files" aria-label="Changed files">
      {diff.files.map((f) => (
        <li key={f.path}>
          <Badge tone={STATUS_TONE[f.status]}>{f.status}</Badge>
          <span class="review-path" title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
            {f.oldPath ? `${f.oldPath} → ` : ''}
            {f.path}
          </span>
          <span class="review-counts">{f.binary ? 'binary' : <><span class="review-add">+{f.additions}</span> <span class="review-del">−{f.deletions}</span></>}</span>
          <Button small variant="ghost" aria-label={`Comment on ${f.path}`} onClick={() => onComment(f.path)}>
            Comment
          </Button>
        </li>
      ))}
    </ul>
  );
}

/** diff2html draws the patch into this element; a click on a new-side line number offers a comment there. */
function DiffView({ patch, sideBySide, onLine }: { patch: string; sideBySide: boolean; onLine: (path: string, line: number) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const target = ref.current;
    if (!target) return;
    const ui = new Diff2HtmlUI(target, patch, { outputFormat: sideBySide ? 'side-by-side' : 'line-by-line', drawFileList: false, matching: 'lines', highlight: true, fileContentToggle: false, stickyFileHeaders: false, synchronisedScroll: true, colorScheme: 'auto' as never }, hljs as never);
    ui.draw();
    ui.highlightCode();
  }, [patch, sideBySide]);
  const onClick = (event: MouseEvent) => {
    const cell = (event.target as HTMLElement).closest('.d2h-code-linenumber, .d2h-code-side-linenumber');
    const line = Number((cell?.querySelector('.line-num2')?.textContent ?? cell?.textContent ?? '').trim());
    const path = cell?.closest('.d2h-file-wrapper')?.querySelector('.d2h-file-name')?.textContent?.trim();
    if (path && Number.isInteger(line) && line > 0) onLine(path.split(' → ').pop()!, line);
  };
  return <div ref={ref} class="review-diff" onClick={onClick} />;
}

function CommentForm(props: { files: string[]; draft: { path: string; line: string; body: string }; onChange: (d: { path: string; line: string; body: string }) => void; onCancel: () => void; onAdd: (c: ReviewComment) => void }) {
  const { draft } = props;
  const bodyRef = useRef<HTMLTextAreaElement>(null);
  useEffect(() => bodyRef.current?.focus(), [draft.path, draft.line]);
  const line = Number(draft.line);
  const lineOk = draft.line === '' || (Number.isInteger(line) && line > 0);
  const submit = (event: Event) => {
    event.preventDefault();
    if (!draft.body.trim() || !lineOk) return;
    props.onAdd({ path: draft.path, ...(draft.line ? { line } : {}), body: draft.body.trim() });
  };
  return (
    <form class="review-comment-form" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), e.stopPropagation(), props.onCancel())} aria-label="New comment">
      <label class="ui-field">
        <span class="ui-field-label">File</span>
        <select class="control" value={draft.path} onChange={(e) => props.onChange({ ...draft, path: (e.target as HTMLSelectElement).value })}>
          {props.files.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      <label class="ui-field review-line">
        <span class="ui-field-label">Line (optional)</span>
        <input class="control" inputMode="numeric" value={draft.line} aria-invalid={!lineOk} onInput={(e) => props.onChange({ ...draft, line: (e.target as HTMLInputElement).value.trim() })} />
      </label>
      <label class="ui-field review-body">
        <span class="ui-field-label">Comment</span>
        <textarea ref={bodyRef} class="control" rows={3} maxLength={4000} value={draft.body} onInput={(e) => props.onChange({ ...draft, body: (e.target as HTMLTextAreaElement).value })} />
      </label>
      {!lineOk && <p class="field-error">A line is a whole number from 1, or nothing for the whole file.</p>}
      <div class="review-form-actions">
        <Button small variant="primary" type="submit" disabled={!draft.body.trim() || !lineOk}>
          Add comment
        </Button>
        <Button small variant="ghost" onClick={props.onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
