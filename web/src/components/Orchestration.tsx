// The orchestration bar under the header: the phases I P A B C D with the current one marked and the
// passed ones checked, what the next move waits on in words, Approve and Send back (each asks first,
// saying exactly what it does), and the workers panel (the session's worker runs with their tool
// steps and output, a cancel button, and Review changes for an isolated run's worktree). It follows
// the live events through useOrchestration.
import { useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { orcApi, useOrchestration, type OrcState, type Phase, type WorkerRun } from '../orchestration.ts';
import { GATE_TEXT, NEXT_PHASE, PHASE_NAMES, SEND_BACK } from '../../../src/protocol/orchestration-text.ts';
import { Badge, Button, ConfirmDialog } from '../../ui/components.tsx';
import { openReview } from '../review.ts';
import './orchestration.css';

const STEPS: Phase[] = ['I', 'P', 'A', 'B', 'C', 'D'];
const named = (phase: Phase) => `${phase} (${PHASE_NAMES[phase]})`;

/** What the bar says about where the cycle stands. */
function standing(state: OrcState): preact.ComponentChild {
  if (state.waitingOn) {
    return (
      <>
        Waiting on the <strong>{state.waitingOn}</strong> gate: {GATE_TEXT[state.waitingOn].record}.
      </>
    );
  }
  if (state.phase === 'D') return 'Done: the check passed.';
  if (state.phase === 'IDLE') return 'Not orchestrating.';
  const next = NEXT_PHASE[state.phase];
  return next ? `In ${PHASE_NAMES[state.phase]}; the agent moves on to ${named(next)}.` : `In ${PHASE_NAMES[state.phase]}.`;
}

export function PhaseStepper() {
  const { state, runs, refresh } = useOrchestration();
  const [error, setError] = useState<string | null>(null);
  const [showWorkers, setShowWorkers] = useState(false);
  const [asking, setAsking] = useState<'approve' | 'back' | null>(null);
  const [reason, setReason] = useState('');
  if (!state || (state.phase === 'IDLE' && runs.length === 0)) return null;
  const gate = state.waitingOn;
  const next = gate ? NEXT_PHASE[state.phase] : undefined;
  const back = gate ? SEND_BACK[state.phase] : undefined;
  const move = async (phase: Phase, options: { approve?: boolean; reason?: string } = {}) => {
    setAsking(null);
    setError(null);
    try {
      await orcApi.move(state.sessionId, phase, options);
    } catch (err) {
      setError(errorText(err));
    }
    refresh();
  };
  const active = runs.filter((r) => r.status === 'running' || r.status === 'queued').length;
  const at = STEPS.indexOf(state.phase);
  return (
    <section class="orc" aria-label="Orchestration">
      <ol class="orc-steps" aria-label="Orchestration phases">
        {STEPS.map((phase, i) => (
          <li key={phase} class="orc-step" data-phase={phase} data-passed={at > i || state.phase === 'D' ? '' : undefined} aria-current={state.phase === phase ? 'step' : undefined} title={PHASE_NAMES[phase]}>
            <span class="orc-letter">{phase}</span>
            <span class="orc-name">{PHASE_NAMES[phase]}</span>
          </li>
        ))}
      </ol>
      <p class="orc-gate" data-gate={gate ?? ''}>
        {standing(state)}
      </p>
      <div class="orc-actions">
        {gate && next && (
          <Button small variant="primary" class="orc-approve" onClick={() => setAsking('approve')}>
            Approve…
          </Button>
        )}
        {gate && back && (
          <Button small class="orc-reject" onClick={() => (setReason(''), setAsking('back'))}>
            Send back…
          </Button>
        )}
        <Button small variant="ghost" class="orc-workers-btn" aria-expanded={showWorkers} onClick={() => setShowWorkers(!showWorkers)}>
          Workers{active ? <Badge tone="accent">{active}</Badge> : null}
        </Button>
      </div>
      {error && (
        <p class="orc-error field-error" role="alert">
          {error}
        </p>
      )}
      {gate && next && (
        <ConfirmDialog open={asking === 'approve'} title={`Approve the ${gate} gate?`} confirmLabel={`Approve and move to ${next}`} onCancel={() => setAsking(null)} onConfirm={() => void move(next, { approve: true })}>
          <p>
            This moves the chat from {named(state.phase)} to {named(next)} without {GATE_TEXT[gate].record}, which the gate normally waits for.
          </p>
          <p>The approval is recorded as yours, in the orchestration history and the security audit log.</p>
        </ConfirmDialog>
      )}
      {gate && back && (
        <ConfirmDialog open={asking === 'back'} title={`Send the chat back to ${named(back)}?`} confirmLabel={`Send back to ${back}`} onCancel={() => setAsking(null)} onConfirm={() => void move(back, reason.trim() ? { reason: reason.trim() } : {})}>
          <p>
            {named(state.phase)} ends here and the agent picks up from {named(back)}.
          </p>
          <label class="ui-field">
            <span class="ui-field-label">Why (the agent reads it)</span>
            <textarea class="control" rows={2} value={reason} maxLength={2000} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
          </label>
        </ConfirmDialog>
      )}
      {showWorkers && <WorkersPanel runs={runs} onChange={refresh} />}
    </section>
  );
}

function WorkersPanel({ runs, onChange }: { runs: WorkerRun[]; onChange: () => void }) {
  return (
    <section class="orc-workers" aria-label="Workers">
      {runs.length === 0 && <p class="muted">No worker runs in this chat.</p>}
      <ul>
        {runs.map((run) => (
          <WorkerItem key={run.runId} run={run} onChange={onChange} />
        ))}
      </ul>
    </section>
  );
}

const STATUS_TONE: Record<string, 'ok' | 'warn' | 'danger' | 'accent' | 'neutral'> = { running: 'accent', queued: 'neutral', succeeded: 'ok', failed: 'danger', timeout: 'danger', cancelled: 'warn' };

function WorkerItem({ run, onChange }: { run: WorkerRun; onChange: () => void }) {
  const [output, setOutput] = useState<string | null>(null);
  const live = run.status === 'running' || run.status === 'queued';
  return (
    <li class="orc-run" data-run={run.runId} data-status={run.status}>
      <div class="orc-run-head">
        <strong>{run.employee.name}</strong> <Badge tone={STATUS_TONE[run.status] ?? 'neutral'}>{run.status}</Badge>
        {run.verdict && <Badge tone={run.verdict === 'pass' || run.verdict === 'done' ? 'ok' : 'warn'}>verdict {run.verdict}</Badge>}
        {run.worktree && <Badge tone={run.worktree.state === 'merged' ? 'ok' : run.worktree.state === 'discarded' ? 'warn' : 'neutral'} title={`branch ${run.worktree.branch}`}>worktree {run.worktree.state}</Badge>}
        {run.reviewOf && <span class="muted">follow-up of {run.reviewOf}</span>}
        <span class="muted orc-run-task">{run.task.slice(0, 120)}</span>
      </div>
      {run.steps.length > 0 && (
        <ol class="orc-run-steps">
          {run.steps.map((step) => (
            <li key={step.stepId} data-status={step.status}>
              {step.name}
            </li>
          ))}
        </ol>
      )}
      {run.reason && !live && <div class="muted orc-run-reason">{run.reason}</div>}
      <div class="orc-run-actions">
        <Button small onClick={() => void orcApi.output(run.runId).then((o) => setOutput(o.text))}>
          Output
        </Button>
        {live && (
          <Button small variant="danger-outline" class="orc-cancel" onClick={() => void orcApi.cancel(run.runId).finally(onChange)}>
            Cancel
          </Button>
        )}
        {run.worktree?.state === 'open' && !live && (
          <Button small variant="primary" class="orc-review" onClick={() => openReview(run.runId)}>
            Review changes
          </Button>
        )}
      </div>
      {output !== null && <pre class="orc-run-output">{output || '(no output yet)'}</pre>}
    </li>
  );
}
