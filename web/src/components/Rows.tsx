// The rows of the conversation: saved messages, live runs (streamed answer, steps, notices),
// messages being sent, command output and notices.
import { Component } from 'preact';
import { useState } from 'preact/hooks';
import type { Message } from '../api.ts';
import { dismissRow, retryLocal } from '../actions.ts';
import { copyText } from '../markdown.ts';
import { useStore, type Row, type Run, type Step } from '../store.ts';
import { Icon, stepIcon } from './icons.tsx';
import { Markdown } from './Markdown.tsx';
import { AttachmentList } from './Attachments.tsx';
import { splitAttachments, type AttachmentRef } from '../attachments.ts';

const time = (ts: number) => new Date(ts).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const fullTime = (ts: number) => new Date(ts).toLocaleString();

function CopyButton({ text, label = 'Copy message' }: { text: () => string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="icon-btn small"
      aria-label={label}
      title={done ? 'Copied' : label}
      onClick={async () => {
        if (await copyText(text())) {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        }
      }}
    >
      <Icon name={done ? 'check' : 'copy'} size={15} />
    </button>
  );
}

function UserBubble({ content, files = [], children, status }: { content: string; files?: AttachmentRef[]; children?: preact.ComponentChildren; status?: string }) {
  return (
    <div class="msg msg-user" data-role="user" data-status={status}>
      {content && <div class="bubble">{content}</div>}
      <AttachmentList files={files} />
      {children}
    </div>
  );
}

class MessageRow extends Component<{ message: Message; queued?: boolean }> {
  override shouldComponentUpdate(next: { message: Message; queued?: boolean }) {
    return next.message !== this.props.message || next.queued !== this.props.queued;
  }

  override render({ message, queued }: { message: Message; queued?: boolean }) {
    if (message.role === 'user') {
      const { text, files } = splitAttachments(message.content);
      return (
        <div class="row-wrap" data-message-id={message.id}>
          <UserBubble content={text} files={files} status={queued ? 'queued' : undefined}>
            <div class="msg-foot">
              {queued && <span class="badge">Queued</span>}
              <time dateTime={new Date(message.createdAt).toISOString()} title={fullTime(message.createdAt)}>
                {time(message.createdAt)}
              </time>
              <CopyButton text={() => message.content} />
            </div>
          </UserBubble>
        </div>
      );
    }
    if (message.role === 'system') {
      return (
        <div class="row-wrap" data-message-id={message.id}>
          <div class="msg msg-system" data-role="system">
            {message.content}
          </div>
        </div>
      );
    }
    const provider = typeof message.meta?.provider === 'string' ? message.meta.provider : undefined;
    return (
      <div class="row-wrap" data-message-id={message.id}>
        <article class="msg msg-assistant" data-role="assistant">
          <Markdown text={message.content} />
          <div class="msg-foot">
            {message.meta?.interrupted === true && <span class="badge">Interrupted</span>}
            {provider && <span>{provider}</span>}
            <time dateTime={new Date(message.createdAt).toISOString()} title={fullTime(message.createdAt)}>
              {time(message.createdAt)}
            </time>
            <CopyButton text={() => message.content} />
          </div>
        </article>
      </div>
    );
  }
}

const INPUT_KEYS = ['command', 'cmd', 'file_path', 'path', 'filePath', 'pattern', 'query', 'url', 'description', 'prompt'];

function inputSummary(input: Record<string, unknown>): string {
  for (const key of INPUT_KEYS) {
    const value = input[key];
    if (typeof value === 'string' && value) return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  }
  return '';
}

function StepStatus({ status }: { status: Step['status'] }) {
  if (status === 'running') return <span class="spinner" role="img" aria-label="running" />;
  if (status === 'error') return <span class="step-state error" role="img" aria-label="failed"><Icon name="x" size={14} /></span>;
  return <span class="step-state ok" role="img" aria-label="done"><Icon name="check" size={14} /></span>;
}

function StepBlock({ step }: { step: Step }) {
  const thinking = step.step === 'thinking';
  const summary = thinking ? (step.output ?? '').split('\n')[0]!.slice(0, 140) : inputSummary(step.input);
  const hasInput = Object.keys(step.input).length > 0;
  return (
    <details class={`step step-${step.step}`} data-step-id={step.stepId} data-status={step.status}>
      <summary>
        <Icon name={stepIcon(step.step)} size={15} class="step-icon" />
        <span class="step-name">{thinking ? 'Thinking' : step.name}</span>
        {summary && <span class="step-summary">{summary}</span>}
        <StepStatus status={step.status} />
      </summary>
      <div class="step-body">
        {thinking ? (
          <div class="thinking-text">{step.output}</div>
        ) : (
          <>
            {hasInput && (
              <>
                <div class="step-label">Input</div>
                <pre class="step-pre">{JSON.stringify(step.input, null, 2)}</pre>
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

function Steps({ steps, running }: { steps: Step[]; running: boolean }) {
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

const statusText = (run: Run) => (run.status === 'running' ? (run.evaluating ? 'Evaluating…' : 'Working…') : '');

function usageText(run: Run): string {
  const parts: string[] = [];
  if (run.durationMs !== undefined) parts.push(`${(run.durationMs / 1000).toFixed(1)} s`);
  const u = run.usage;
  if (u?.outputTokens !== undefined) parts.push(`${u.inputTokens ?? 0}→${u.outputTokens} tokens`);
  if (u?.costUsd !== undefined) parts.push(`$${u.costUsd.toFixed(4)}`);
  return parts.join(' · ');
}

function RunRow({ traceId }: { traceId: string }) {
  const run = useStore((s) => s.runs[traceId]);
  if (!run) return <div class="msg msg-system">This run is no longer in memory.</div>;
  const running = run.status === 'running';
  const text = run.final ?? run.text;
  return (
    <div class="row-wrap">
      <article class="msg msg-assistant run" data-role="assistant" data-trace-id={traceId} data-status={run.status} aria-busy={running}>
        {(running || run.provider) && (
          <div class="run-head">
            {running && <span class="pulse" aria-hidden="true" />}
            <span>{[run.provider, run.model].filter(Boolean).join(' · ') || 'agent'}</span>
            {statusText(run) && <span class="run-state">{statusText(run)}</span>}
          </div>
        )}
        {run.notices.map((n, i) => (
          <div key={i} class={`run-notice notice-${n.kind}`} role="status">
            <Icon name={n.kind === 'steer' ? 'steer' : n.kind === 'fallback' ? 'retry' : n.kind === 'info' ? 'chevron' : 'alert'} size={14} />
            <span>{n.kind === 'steer' ? <>Steered: <q>{n.text}</q></> : n.text}</span>
          </div>
        ))}
        {run.steps.length > 0 && <Steps steps={run.steps} running={running} />}
        {running && !text && <div class="typing" aria-label="The agent is working"><span /><span /><span /></div>}
        {text && <Markdown text={text} streaming={running} />}
        {run.error && (
          <div class="run-error" role="alert">
            <Icon name="alert" size={15} /> {run.error}
          </div>
        )}
        {!running && (
          <div class="msg-foot">
            {run.status === 'stopped' && <span class="badge">Stopped</span>}
            {usageText(run) && <span>{usageText(run)}</span>}
            {text && <CopyButton text={() => run.final ?? run.text} />}
          </div>
        )}
      </article>
    </div>
  );
}

function LocalRow({ row }: { row: Extract<Row, { kind: 'local' }> }) {
  return (
    <div class="row-wrap">
      <UserBubble content={row.content} files={row.attachments} status={row.state}>
        <div class="msg-foot">
          {row.state === 'sending' && <span class="muted">Sending…</span>}
          {row.state === 'failed' && (
            <>
              <span class="send-error" role="alert">
                <Icon name="alert" size={14} /> {row.error}
              </span>
              <button type="button" class="link-btn" onClick={() => retryLocal(row.key)}>
                Retry
              </button>
              <button type="button" class="link-btn" onClick={() => dismissRow(row.key)}>
                Dismiss
              </button>
            </>
          )}
        </div>
      </UserBubble>
    </div>
  );
}

function CommandRow({ row }: { row: Extract<Row, { kind: 'command' }> }) {
  return (
    <div class="row-wrap">
      <div class="msg msg-command" data-status={row.status}>
        <div class="command-head">
          <Icon name="command" size={15} />
          <code>{row.text}</code>
          {row.status === 'running' ? <span class="spinner" aria-label="running" /> : <span class="muted">{row.status === 'ok' ? '' : row.status}</span>}
          <button type="button" class="icon-btn small push" aria-label="Dismiss command output" onClick={() => dismissRow(row.key)}>
            <Icon name="x" size={14} />
          </button>
        </div>
        {row.output && <pre class="command-out">{row.output}</pre>}
      </div>
    </div>
  );
}

export function renderRow(row: Row) {
  switch (row.kind) {
    case 'message':
      return <MessageRow message={row.message} queued={row.queued} />;
    case 'run':
      return <RunRow traceId={row.traceId} />;
    case 'local':
      return <LocalRow row={row} />;
    case 'command':
      return <CommandRow row={row} />;
    case 'notice':
      return (
        <div class="row-wrap">
          <div class="msg msg-system">{row.text}</div>
        </div>
      );
  }
}

/** A guess of a row's height from its text, before it is measured. */
export function estimateRow(row: Row, width: number): number {
  const columns = Math.max(20, Math.min(width, 760) / 8.2);
  const lines = (text: string) => {
    let n = 0;
    let start = 0;
    // cap the work for huge texts: a rough figure is enough
    const limit = Math.min(text.length, 20_000);
    while (start < limit) {
      let end = text.indexOf('\n', start);
      if (end === -1 || end > limit) end = limit;
      n += Math.max(1, Math.ceil((end - start) / columns));
      start = end + 1;
    }
    return n + (text.length > limit ? (text.length - limit) / columns : 0);
  };
  switch (row.kind) {
    case 'message': {
      const m = row.message;
      if (m.role === 'user') return 64 + lines(m.content) * 24;
      if (m.role === 'system') return 48;
      const fences = (m.content.match(/```/g)?.length ?? 0) / 2;
      return 56 + lines(m.content) * 26 + fences * 48;
    }
    case 'local':
      return 64 + lines(row.content) * 24;
    case 'run':
      return 120;
    case 'command':
      return 72 + lines(row.output) * 20;
    case 'notice':
      return 48;
  }
}
