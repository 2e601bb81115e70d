// The phase stepper (I P A B C D in the header: the current phase highlighted, the gate it waits on,
// Approve / Reject where a human decides) and the workers panel (the session's worker runs with their
// tool steps and output, and a cancel button). Both follow the live events through useOrchestration.
import { useState } from 'preact/hooks';
import { errorText } from '../api.ts';
import { orcApi, useOrchestration, type OrcState, type Phase, type WorkerRun } from '../orchestration.ts';

const STEPS: Phase[] = ['I', 'P', 'A', 'B', 'C', 'D'];
const NAMES: Record<Phase, string> = { IDLE: 'idle', I: 'interview', P: 'plan', A: 'audit', B: 'build', C: 'check', D: 'done' };
/** The forward move each gated phase waits to make, and where a rejection sends it back. */
const NEXT: Partial<Record<Phase, Phase>> = { P: 'A', A: 'B', B: 'C', C: 'D' };
const BACK: Partial<Record<Phase, Phase>> = { P: 'I', A: 'P', B: 'I', C: 'B' };


export function PhaseStepper() {
  const { state, runs, refresh } = useOrchestration();
  const [error, setError] = useState<string | null>(null);
  const [showWorkers, setShowWorkers] = useState(false);
  if (!state || (state.phase === 'IDLE' && runs.length === 0)) return null;
  const act = async (phase: Phase, approve?: boolean) => {
    setError(null);
    try {
      await orcApi.move(state.sessionId, phase, approve);
    } catch (err) {
      setError(errorText(err));
    }
    refresh();
  };
  const next = NEXT[state.phase];
  const back = BACK[state.phase];
  const active = runs.filter((r) => r.status === 'running' || r.status === 'queued').length;
  return (
    <div class="orc">
      <ol class="orc-steps" aria-label="Orchestration phases">
        {STEPS.map((phase) => (
          <li key={phase} class="orc-step" data-phase={phase} aria-current={state.phase === phase ? 'step' : undefined} title={NAMES[phase]}>
            {phase}
          </li>
        ))}
      </ol>
      {state.waitingOn && <span class="orc-gate">waits on {state.waitingOn}</span>}
      {state.waitingOn && next && (
        <button type="button" class="orc-approve" onClick={() => void act(next, true)}>
          Approve
        </button>
      )}
      {state.waitingOn && back && (
        <button type="button" class="orc-reject" onClick={() => void act(back)}>
          Reject
        </button>
      )}
      <button type="button" class="orc-workers-btn" aria-expanded={showWorkers} onClick={() => setShowWorkers(!showWorkers)}>
        Workers{active ? ` (${active})` : ''}
      </button>
      {error && (
        <span class="orc-error" role="alert">
          {error}
        </span>
      )}
      {showWorkers && <WorkersPanel state={state} runs={runs} onChange={refresh} />}
    </div>
  );
}

function WorkersPanel({ runs, onChange }: { state: OrcState; runs: WorkerRun[]; onChange: () => void }) {
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

function WorkerItem({ run, onChange }: { run: WorkerRun; onChange: () => void }) {
  const [output, setOutput] = useState<string | null>(null);
  const live = run.status === 'running' || run.status === 'queued';
  return (
    <li class="orc-run" data-run={run.runId} data-status={run.status}>
      <div class="orc-run-head">
        <strong>{run.employee.name}</strong> <span class="orc-run-status">{run.status}</span>
        {run.verdict && <span class="orc-run-verdict"> verdict {run.verdict}</span>}
        <span class="muted"> {run.task.slice(0, 80)}</span>
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
        <button type="button" onClick={() => void orcApi.output(run.runId).then((o) => setOutput(o.text))}>
          Output
        </button>
        {live && (
          <button type="button" class="orc-cancel" onClick={() => void orcApi.cancel(run.runId).finally(onChange)}>
            Cancel
          </button>
        )}
      </div>
      {output !== null && <pre class="orc-run-output">{output || '(no output yet)'}</pre>}
    </li>
  );
}
