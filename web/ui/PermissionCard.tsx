// A tool call held for a person (a permission request), and its three answers: Allow once, Allow for
// this session, Deny with a reason. The chat shows one in the run that asked, the dashboard one per
// request of every instance; each passes how an answer is sent. Once decided it shrinks to one line
// saying how (and the focus, if it was on the card, goes to that line, not to the page's top).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DecisionBody, PermissionRequest } from '../../src/protocol/permissions.ts';
import { decidedText, decisionBody, expiryText, type PermissionAnswer } from '../../src/protocol/permissions-text.ts';
import { Badge, Button, Field } from './components.tsx';
import { Icon } from './icons.tsx';

/** Seconds tick while something counts down. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/** A change as added and removed lines, each marked for the eye and for a screen reader. */
function Diff({ text, label }: { text: string; label: string }) {
  return (
    <pre class="perm-diff" aria-label={label} tabIndex={0}>
      {text.split('\n').map((line, i) => (
        <span key={i} class={line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : undefined}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

export interface PermissionCardProps {
  request: PermissionRequest;
  /** Where it was asked, when the page shows more than one place (the dashboard: the instance). */
  where?: string;
  /** Sends an answer; rejects with the server's error (one with `status` 409: decided elsewhere first). */
  onAnswer: (body: DecisionBody) => Promise<unknown>;
}

export function PermissionCard({ request, where, onAnswer }: PermissionCardProps) {
  const pending = request.status === 'pending';
  const now = useNow(pending);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const root = useRef<HTMLElement>(null);
  const outcome = useRef<HTMLParagraphElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  /** The focus was on the card when it got decided (here, or elsewhere while a person was on it). */
  const hadFocus = useRef(false);
  const answering = useRef(false);
  const wasDenying = useRef(false);
  const id = `perm-${request.id}`;

  // the reason field takes the focus; going back gives it to Deny… again
  useEffect(() => {
    if (denying) reasonInput.current?.focus();
    else if (wasDenying.current) root.current?.querySelector<HTMLButtonElement>('[data-answer="deny"]')?.focus();
    wasDenying.current = denying;
  }, [denying]);
  // decided here or elsewhere while a person was on its buttons: keep them where they were
  useEffect(() => {
    if (!pending && (hadFocus.current || answering.current)) outcome.current?.focus();
  }, [pending]);

  const answer = async (kind: PermissionAnswer) => {
    // (the buttons are aria-disabled meanwhile, not disabled: a disabled button would drop the focus)
    if (busy) return;
    setBusy(true);
    setProblem(null);
    answering.current = Boolean(root.current?.contains(document.activeElement));
    try {
      await onAnswer(decisionBody(kind, reason));
    } catch (err) {
      answering.current = false;
      const status = (err as { status?: number }).status;
      setProblem(status === 409 ? 'This request was already answered somewhere else.' : status === 404 ? 'This request is no longer known: it was answered or the server restarted.' : `Could not send the answer: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const { summary } = request;
  if (!pending) {
    return (
      <section ref={root} class="card perm-card decided" data-permission-id={request.id} data-status={request.status} aria-labelledby={`${id}-title`}>
        <p ref={outcome} id={`${id}-title`} class="perm-outcome" tabIndex={-1} role="status">
          <Badge tone={request.status === 'allowed' ? 'ok' : 'danger'}>{request.decidedBy ? decidedText(request.status === 'allowed' ? 'allow' : 'deny', request.decidedBy) : request.status}</Badge>{' '}
          <span>{summary.title}</span>
          {request.status === 'denied' && request.reason && <span class="muted"> — {request.reason}</span>}
        </p>
      </section>
    );
  }
  return (
    <section
      ref={root}
      class="card perm-card"
      data-permission-id={request.id}
      data-status="pending"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-what`}
      onFocusIn={() => (hadFocus.current = true)}
      onFocusOut={(e) => (hadFocus.current = Boolean(root.current?.contains(e.relatedTarget as Node | null)))}
    >
      <div class="card-head">
        <h2 id={`${id}-title`}>
          <Icon name="alert" size={16} /> <span>Allow {request.tool}?</span>
        </h2>
        <span class="perm-expiry muted">
          <time dateTime={new Date(request.expiresAt).toISOString()} title={new Date(request.expiresAt).toLocaleString()}>
            {expiryText(request.expiresAt, now)}
          </time>
        </span>
      </div>
      <p id={`${id}-what`} class="perm-what">
        {summary.title}
        {where && <span class="muted"> · {where}</span>}
      </p>
      {summary.command && <pre class="perm-code" aria-label="Command">{summary.command}</pre>}
      {summary.path && (
        <p class="perm-path">
          <Icon name="file" size={14} /> <code>{summary.path}</code>
        </p>
      )}
      {summary.diff && <Diff text={summary.diff} label={`Change to ${summary.path ?? 'the file'}`} />}
      {summary.detail && <pre class="perm-code" aria-label="Input">{summary.detail}</pre>}
      {denying ? (
        <form
          class="perm-deny"
          onSubmit={(e) => {
            e.preventDefault();
            void answer('deny');
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setDenying(false);
          }}
        >
          <Field id={`${id}-reason`} label="Why (the agent reads it)" help="Optional. Escape goes back.">
            {(control) => <input {...control} ref={reasonInput} value={reason} maxLength={2000} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />}
          </Field>
          <div class="perm-actions">
            <Button type="submit" variant="danger" aria-disabled={busy}>
              Deny
            </Button>
            <Button variant="ghost" onClick={() => setDenying(false)} aria-disabled={busy}>
              Back
            </Button>
          </div>
        </form>
      ) : (
        <div class="perm-actions" role="group" aria-label={`Answer: ${summary.title}`}>
          <Button variant="primary" aria-disabled={busy} onClick={() => void answer('once')}>
            Allow once
          </Button>
          <Button aria-disabled={busy} onClick={() => void answer('session')}>
            Allow for this session
          </Button>
          <Button data-answer="deny" variant="danger-outline" aria-disabled={busy} onClick={() => setDenying(true)}>
            Deny…
          </Button>
        </div>
      )}
      {problem && (
        <p class="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
