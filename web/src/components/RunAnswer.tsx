// A run's answer, rendered from its normalized fields (record.ts): the same component for a run
// going on or just ended (the live row) and for the message it saved (the history). Provider and
// model above; notices, steps, the answer or the record of why there is none (with the command that
// fixes it); a footer with the status, duration, tokens and cost.
import type { ComponentChildren } from 'preact';
import { useStore } from '../store.ts';
import { agentLabel, failureTitle, noticeText, providerName, usageText, type RunView, type StepView } from '../record.ts';
import { CommandChip, CopyButton } from '../../ui/Copy.tsx';
import { Icon, stepIcon } from '../../ui/icons.tsx';
import { Markdown } from './Markdown.tsx';

const time = (ts: number) => new Date(ts).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const fullTime = (ts: number) => new Date(ts).toLocaleString();

export function Time({ at }: { at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={fullTime(at)}>
      {time(at)}
    </time>
  );
}

function StepState({ status }: { status: StepView['status'] }) {
  if (status === 'running') return <span class="spinner" role="img" aria-label="running" />;
  if (status === 'error') return <span class="step-state error" role="img" aria-label="failed"><Icon name="x" size={14} /></span>;
  return <span class="step-state ok" role="img" aria-label="done"><Icon name="check" size={14} /></span>;
}

function StepBlock({ step }: { step: StepView }) {
  const thinking = step.step === 'thinking';
  const input = step.input ?? {};
  const hasInput = Object.keys(input).length > 0;
  const head = (
    <>
      <Icon name={stepIcon(step.step)} size={15} class="step-icon" />
      <span class="step-name">{thinking ? 'Thinking' : step.name}</span>
      {step.summary && <span class="step-summary">{step.summary}</span>}
      <StepState status={step.status} />
    </>
  );
  // a saved record keeps only the gist of a step: nothing to unfold
  if (!hasInput && step.output === undefined) {
    return (
      <div class={`step step-${step.step}`} data-step-id={step.stepId} data-status={step.status}>
        <div class="step-head">{head}</div>
      </div>
    );
  }
  return (
    <details class={`step step-${step.step}`} data-step-id={step.stepId} data-status={step.status}>
      <summary class="step-head">{head}</summary>
      <div class="step-body">
        {thinking ? (
          <div class="thinking-text">{step.output}</div>
        ) : (
          <>
            {hasInput && (
              <>
                <div class="step-label">Input</div>
                <pre class="step-pre">{JSON.stringify(input, null, 2)}</pre>
              </>
            )}
            {step.output !== undefined && (
              <>
                <div class="step-label">Output</div>
                <pre class="step-pre">{step.output || '(empty)'}</pre>
              </>
            )}
          </>
        )}
      </div>
    </details>
  );
}

function Steps({ steps, running }: { steps: StepView[]; running: boolean }) {
  const tools = steps.filter((s) => s.step !== 'thinking').length;
  const thoughts = steps.length - tools;
  const label = [tools && `${tools} step${tools === 1 ? '' : 's'}`, thoughts && `${thoughts} thought${thoughts === 1 ? '' : 's'}`]
    .filter(Boolean)
    .join(', ');
  return (
    <details class="steps" open={running}>
      <summary>
        <Icon name="chevron" size={14} class="chev" />
        {label}
        {running && steps.some((s) => s.status === 'running') && <span class="spinner" aria-hidden="true" />}
      </summary>
      <div class="steps-list">
        {steps.map((step) => (
          <StepBlock key={step.stepId} step={step} />
        ))}
      </div>
    </details>
  );
}

/** Why a run left no answer (or what cut it short), and the one command that fixes it. */
function RunRecord({ view, name }: { view: RunView; name: string }) {
  const failed = view.status === 'error';
  return (
    <div class={`run-record${failed ? ' failed' : ''}`} data-failure={view.failure}>
      {failed && (
        <p class="record-title">
          <Icon name="alert" size={15} /> {failureTitle(name, view.failure)}
        </p>
      )}
      <p class="record-text">{view.record}</p>
      {view.fix && (
        <div class="record-fix">
          <span>To fix it, run in a terminal:</span>
          <CommandChip command={view.fix} label="Copy the command that fixes it" />
        </div>
      )}
    </div>
  );
}

const BADGES: Partial<Record<RunView['status'], string>> = { error: 'Failed', stopped: 'Stopped' };

/** `children`: what a live run waits on (its permission requests), under its steps. */
export function RunAnswer({ view, children }: { view: RunView; children?: ComponentChildren }) {
  const providers = useStore((s) => s.registry?.providers);
  const running = view.status === 'running';
  const name = (id: string) => providerName(providers, id);
  const label = agentLabel(providers, view.provider, view.model);
  const usage = usageText(view.durationMs, view.usage);
  const badge = BADGES[view.status];
  return (
    <article
      class="msg msg-assistant run"
      data-role={view.text || running ? 'assistant' : 'system'}
      data-trace-id={view.traceId}
      data-status={view.status}
      aria-busy={running}
    >
      {(running || label) && (
        <div class="run-head">
          {running && <span class="pulse" aria-hidden="true" />}
          <span class="run-agent">{label || 'agent'}</span>
          {running && <span class="run-state">{view.evaluating ? 'Evaluating…' : 'Working…'}</span>}
        </div>
      )}
      {view.notices.map((n, i) => (
        <div key={n.kind === 'retry' ? 'retry' : i} class={`run-notice notice-${n.kind}`} role="status" data-attempt={n.kind === 'retry' ? n.attempt : undefined}>
          <Icon name={n.kind === 'steer' ? 'steer' : n.kind === 'fallback' ? 'retry' : 'alert'} size={14} />
          <span>{n.kind === 'steer' ? <>Steered: <q>{n.text}</q></> : noticeText(n, name)}</span>
        </div>
      ))}
      {view.steps.length > 0 && <Steps steps={view.steps} running={running} />}
      {children}
      {running && !view.text && <div class="typing" aria-label="The agent is working"><span /><span /><span /></div>}
      {view.text && <Markdown text={view.text} streaming={running} />}
      {view.record && <RunRecord view={view} name={view.provider ? name(view.provider) : ''} />}
      {!running && (
        <div class="msg-foot">
          {badge && <span class={`badge status-${view.status}`}>{badge}</span>}
          {usage && <span class="run-usage">{usage}</span>}
          {view.at !== undefined && <Time at={view.at} />}
          {view.text && <CopyButton text={() => view.text} />}
        </div>
      )}
    </article>
  );
}
