// The executive console: transcript, composer (with push-to-talk), a failed turn as what failed, why
// and the command that fixes it, pending completions with their actions, watches, confirmation prompts
// for lifecycle actions, and the audit tail. It follows the executive's own event stream
// (/api/svc-ceo/events) and reloads its state on each event.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CeoAudit, Completion, Confirmation, TranscriptEntry, Watch } from '../../src/protocol/executive.ts';
import type { ModelOption } from '../../src/protocol/providers.ts';
import { Badge, Button, Card, EmptyState, Field, IconButton } from '../ui/components.tsx';
import { FailureCard } from '../ui/Failure.tsx';
import { Icon } from '../ui/icons.tsx';
import { api, ApiError, messageOf, type Instance } from './api.ts';
import { failed, toast } from './feedback.tsx';
import { Time } from './parts.tsx';

interface VoiceSession {
  id: string;
  model: string;
  voice: string;
  startedAt: number;
}

export interface CeoProvider {
  id: string;
  displayName: string;
  models: ModelOption[];
}

export interface CeoState {
  session: { provider: string; model: string; busy: boolean };
  voice: { pushToTalk: boolean; realtime: { configured: boolean; session: VoiceSession | null } };
  transcript: TranscriptEntry[];
  watches: Watch[];
  pending: Completion[];
  auditTail: CeoAudit[];
  confirmations: Confirmation[];
  providers: CeoProvider[];
}

type Mode = 'text' | 'voice';

/** How a turn ended, from its done line. */
interface TurnEnd {
  status: string;
  text: string;
  reason?: string;
  failure?: string;
  fix?: string;
}

/** The kind of failure in a few words (the heading of the failure card). */
const FAILURES: Record<string, string> = {
  auth: 'not logged in',
  cli_missing: 'not installed',
  rate_limit: 'usage limit reached',
  overloaded: 'service overloaded',
  server_error: 'service error',
  network: 'no network',
  timeout: 'timed out',
  stale_session: 'conversation no longer known',
  invalid_request: 'request refused',
  crash: 'stopped unexpectedly',
};

/** Speaks an answer with the browser's own synthesis, in Korean when it is written in Hangul. */
function speak(text: string): void {
  if (!('speechSynthesis' in window) || !text) return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = /[\uac00-\ud7a3]/.test(text) ? 'ko-KR' : 'en-US';
  speechSynthesis.speak(utterance);
}

/** Sends a turn and reads its NDJSON lines; `onText` gets the answer as it grows. */
async function sendTurn(text: string, instanceId: string, mode: Mode, onText: (t: string) => void): Promise<TurnEnd> {
  const response = await fetch('/api/svc-ceo/message', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-console': '1' },
    body: JSON.stringify({ text, responseMode: mode, ...(instanceId ? { instanceId } : {}) }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
    throw new ApiError(body.message ?? `HTTP ${response.status}`, response.status, body.error ?? 'HTTP');
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let live = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, nl)) as { type: string; content?: string } & Partial<TurnEnd>;
      buffer = buffer.slice(nl + 1);
      if (line.type === 'text') onText((live += line.content ?? ''));
      if (line.type === 'done') return { status: line.status ?? 'error', text: line.text ?? live, reason: line.reason, failure: line.failure, fix: line.fix };
    }
  }
  return { status: 'error', text: live, reason: 'The answer ended without a done line (the connection was cut?).' };
}

function Composer({ instances, pushToTalk, busy: executiveBusy, onEnd }: { instances: Instance[]; pushToTalk: boolean; busy: boolean; onEnd: (end: TurnEnd | null) => void }) {
  const [text, setText] = useState('');
  const [instanceId, setInstanceId] = useState('');
  const [live, setLive] = useState('');
  const [busy, setBusy] = useState(false);
  const [talking, setTalking] = useState(false);
  const recorder = useRef<MediaRecorder | null>(null);

  const submit = async (value: string, mode: Mode) => {
    if (!value.trim()) return;
    setBusy(true);
    setLive('');
    onEnd(null);
    try {
      const done = await sendTurn(value, instanceId, mode, setLive);
      if (done.status !== 'ok') onEnd(done);
      else if (mode === 'voice') speak(done.text);
      setText('');
    } catch (e) {
      toast(`The executive did not take the message: ${messageOf(e)}`, 'error');
    } finally {
      setBusy(false);
      setLive('');
    }
  };

  // push-to-talk: record while the button is held (pointer, or Space/Enter), transcribe, then send as a voice turn
  const startTalk = async () => {
    if (recorder.current) return;
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks: Blob[] = [];
      const rec = new MediaRecorder(stream);
      rec.ondataavailable = (e) => chunks.push(e.data);
      rec.onstop = async () => {
        stream.getTracks().forEach((t) => t.stop());
        const blob = new Blob(chunks, { type: 'audio/webm' });
        const response = await fetch('/api/svc-ceo/voice/transcribe', { method: 'POST', headers: { 'content-type': 'audio/webm', 'x-svc-console': '1' }, body: blob });
        const body = (await response.json()) as { text?: string; message?: string };
        if (!response.ok || !body.text) return void toast(`Transcription failed: ${body.message ?? `HTTP ${response.status}`}`, 'error');
        await submit(body.text, 'voice');
      };
      rec.start();
      recorder.current = rec;
      setTalking(true);
    } catch (e) {
      toast(`The microphone is not available: ${messageOf(e)}`, 'error');
    }
  };
  const stopTalk = () => {
    recorder.current?.stop();
    recorder.current = null;
    setTalking(false);
  };
  const disabled = busy || executiveBusy;

  return (
    <form
      class="ceo-composer"
      aria-label="Message the executive"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(text, 'text');
      }}
    >
      {live && (
        <p class="ceo-live" aria-live="polite">
          {live}
        </p>
      )}
      <Field id="ceo-message" label="Message to the executive" help="Ctrl+Enter sends.">
        {(c) => (
          <textarea
            {...c}
            rows={3}
            value={text}
            placeholder="Ask the executive… (e.g. what is every instance working on?)"
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void submit(text, 'text');
              }
            }}
          />
        )}
      </Field>
      <div class="composer-row">
        <Field id="ceo-instance" label="About" class="composer-about">
          {(c) => (
            <select {...c} value={instanceId} onChange={(e) => setInstanceId((e.target as HTMLSelectElement).value)}>
              <option value="">the whole fleet</option>
              {instances.map((i) => (
                <option key={i.id} value={i.id}>
                  {i.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div class="composer-buttons">
          {pushToTalk && (
            <Button
              class={talking ? 'talking' : ''}
              aria-pressed={talking}
              disabled={disabled}
              onPointerDown={() => void startTalk()}
              onPointerUp={stopTalk}
              onPointerLeave={() => talking && stopTalk()}
              onKeyDown={(e) => {
                if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) {
                  e.preventDefault();
                  void startTalk();
                }
              }}
              onKeyUp={(e) => {
                if (e.key === ' ' || e.key === 'Enter') stopTalk();
              }}
            >
              <Icon name="mic" size={16} /> {talking ? 'Listening…' : 'Hold to talk'}
            </Button>
          )}
          <Button type="submit" variant="primary" disabled={disabled || !text.trim()}>
            <Icon name="send" size={16} /> {busy ? 'Answering…' : 'Send'}
          </Button>
        </div>
      </div>
    </form>
  );
}

interface LiveCall {
  id: string;
  pc: RTCPeerConnection;
  mic: MediaStream;
}

/**
 * Realtime voice over WebRTC: the microphone and an `oai-events` data channel go to the realtime
 * endpoint through svc (POST voice/connect answers the offer; svc holds the key and runs the tools);
 * the model's voice plays from the remote track.
 */
function LiveVoice({ session }: { session: VoiceSession | null }) {
  const call = useRef<LiveCall | null>(null);
  const [status, setStatus] = useState('');
  const hangUp = async () => {
    const live = call.current;
    call.current = null;
    live?.mic.getTracks().forEach((t) => t.stop());
    live?.pc.close();
    setStatus('');
    const id = live?.id ?? session?.id;
    if (id) await api(`/api/svc-ceo/voice/${encodeURIComponent(id)}/close`, { method: 'POST', body: {} }).catch(failed('Hanging up failed'));
  };
  const talk = async () => {
    setStatus('connecting');
    let pc: RTCPeerConnection | undefined;
    let mic: MediaStream | undefined;
    try {
      pc = new RTCPeerConnection();
      mic = await navigator.mediaDevices.getUserMedia({ audio: true });
      for (const track of mic.getTracks()) pc.addTrack(track, mic);
      const speaker = new Audio();
      speaker.autoplay = true;
      pc.ontrack = (e) => (speaker.srcObject = e.streams[0] ?? null);
      const channel = pc.createDataChannel('oai-events');
      const peer = pc;
      const show = () => setStatus(`${peer.connectionState}${channel.readyState === 'open' ? ', events open' : ''}`);
      pc.onconnectionstatechange = show;
      channel.onopen = show;
      await pc.setLocalDescription(await pc.createOffer());
      const answer = await api<{ id: string; sdp: string }>('/api/svc-ceo/voice/connect', { method: 'POST', body: { sdp: pc.localDescription!.sdp } });
      call.current = { id: answer.id, pc, mic };
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
    } catch (e) {
      mic?.getTracks().forEach((t) => t.stop());
      pc?.close();
      setStatus('');
      toast(`Live voice: ${messageOf(e)}`, 'error');
    }
  };
  const live = call.current !== null || session !== null;
  return (
    <div class="ceo-live-voice">
      {live ? (
        <Button variant="danger" onClick={() => void hangUp()}>
          Hang up
        </Button>
      ) : (
        <Button onClick={() => void talk()} disabled={status === 'connecting'}>
          <Icon name="mic" size={16} /> Talk live
        </Button>
      )}
      {status && (
        <span class="ceo-voice-status muted" data-state={status}>
          live voice: {status}
        </span>
      )}
    </div>
  );
}

function Confirmations({ instances, confirmations }: { instances: Instance[]; confirmations: Confirmation[] }) {
  const owned = instances.filter((i) => i.owner === 'manager');
  const [action, setAction] = useState<'start' | 'stop' | 'restart'>('stop');
  const [target, setTarget] = useState('');
  const call = (what: string, path: string, body: unknown = {}) => void api(path, { method: 'POST', body }).catch(failed(what));
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  return (
    <section class="ceo-confirmations ceo-block" aria-labelledby="ceo-lifecycle-title">
      <h3 id="ceo-lifecycle-title">Lifecycle</h3>
      {owned.length === 0 ? (
        <p class="muted small">Start, stop and restart go through a confirmation; this manager has started no instance yet.</p>
      ) : (
        <form
          class="lifecycle-form"
          onSubmit={(e) => {
            e.preventDefault();
            call('Asking for a confirmation failed', '/api/svc-ceo/confirmations', { action, instanceId: target || owned[0]?.id });
          }}
        >
          <Field id="ceo-lc-action" label="Action">
            {(c) => (
              <select {...c} value={action} onChange={(e) => setAction((e.target as HTMLSelectElement).value as typeof action)}>
                <option value="start">start</option>
                <option value="stop">stop</option>
                <option value="restart">restart</option>
              </select>
            )}
          </Field>
          <Field id="ceo-lc-instance" label="Instance">
            {(c) => (
              <select {...c} value={target || owned[0]?.id} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
                {owned.map((i) => (
                  <option key={i.id} value={i.id}>
                    {i.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Button type="submit" small>
            Ask for confirmation
          </Button>
        </form>
      )}
      {confirmations.length > 0 && (
        <ul class="ceo-list">
          {confirmations.map((c) => (
            <li key={c.id} class={`confirmation ${c.status}`} data-id={c.id}>
              <p>
                <b>
                  {c.action} {label(c.args.instanceId)}
                </b>{' '}
                <Badge tone={c.status === 'approved' ? 'ok' : 'warn'}>{c.status}</Badge> <span class="muted small">expires <Time at={c.expiresAt} /></span>
              </p>
              <div class="card-actions">
                {c.status === 'pending' && (
                  <Button small variant="primary" onClick={() => call('Approving failed', `/api/svc-ceo/confirmations/${encodeURIComponent(c.id)}/confirm`)}>
                    Approve
                  </Button>
                )}
                {c.status === 'approved' && (
                  <Button small variant="primary" onClick={() => call(`${c.action} failed`, `/api/svc-ceo/instances/${encodeURIComponent(c.args.instanceId)}/${c.action}`, { confirmationId: c.id })}>
                    Run {c.action}
                  </Button>
                )}
                <Button small onClick={() => call('Cancelling failed', `/api/svc-ceo/confirmations/${encodeURIComponent(c.id)}/cancel`)}>
                  Cancel
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const ROLE: Record<TranscriptEntry['role'], string> = { user: 'You', executive: 'Executive', instance: 'Instance', system: 'svc' };

function Transcript({ entries, label }: { entries: TranscriptEntry[]; label: (id: string | null) => string }) {
  const box = useRef<HTMLOListElement>(null);
  // the newest entry in view (the list grows at the bottom)
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [entries.length]);
  if (!entries.length) return <EmptyState title="No conversation yet">Ask the executive about the fleet: it reads every instance, sends them work and watches it end.</EmptyState>;
  return (
    // focusable: a scrolling region is read with the keyboard too
    <ol class="ceo-transcript" ref={box} tabIndex={0} aria-label="Transcript">
      {entries.map((t) => (
        <li key={t.id} class={`ceo-entry ceo-${t.role}`}>
          <p class="ceo-who">
            <b>{t.role === 'instance' ? label(t.instanceId) : ROLE[t.role]}</b>
            {t.untrusted && <Badge tone="warn">instance text, untrusted</Badge>}
            <span class="muted small">
              <Time at={t.at} />
            </span>
          </p>
          <p class="ceo-text">{t.text}</p>
        </li>
      ))}
    </ol>
  );
}

export function Executive({ instances }: { instances: Instance[] }) {
  const [state, setState] = useState<CeoState | null>(null);
  const [summary, setSummary] = useState<Record<string, string>>({});
  const [end, setEnd] = useState<TurnEnd | null>(null);
  const reload = () => void api<CeoState>('/api/svc-ceo/state').then(setState, failed('Reading the executive failed'));
  useEffect(() => {
    reload();
    const source = new EventSource('/api/svc-ceo/events');
    source.onmessage = () => reload();
    return () => source.close();
  }, []);
  const act = (key: string, verb: string, body: unknown = {}) =>
    void api<{ untrustedText?: string }>(`/api/svc-ceo/pending/${encodeURIComponent(key)}/${verb}`, { method: 'POST', body }).then(
      (r) => r?.untrustedText !== undefined && setSummary((s) => ({ ...s, [key]: r.untrustedText! })),
      failed(`${verb[0]!.toUpperCase()}${verb.slice(1)} failed`),
    );
  const label = (id: string | null) => (id ? (instances.find((i) => i.id === id)?.label ?? id) : '');
  const provider = state?.providers.find((p) => p.id === state.session.provider);
  return (
    <Card
      title="Executive"
      titleId="executive-title"
      class="executive"
      actions={
        state && (
          <span class="muted card-note">
            {provider?.displayName ?? state.session.provider}
            {state.session.model ? ` · ${state.session.model}` : ''}
            {state.session.busy && (
              <>
                {' '}
                <Badge tone="accent">answering</Badge>
              </>
            )}
          </span>
        )
      }
    >
      {!state ? (
        <p class="muted">Loading…</p>
      ) : (
        <div class="ceo-grid">
          <div class="ceo-main">
            <Transcript entries={state.transcript} label={label} />
            {end && (
              <FailureCard
                class="ceo-failure"
                title={`The executive could not answer${end.failure && FAILURES[end.failure] ? `: ${FAILURES[end.failure]}` : end.status === 'stopped' ? ': stopped' : ''}`}
                fix={end.fix}
                actions={
                  <Button small onClick={() => setEnd(null)}>
                    Dismiss
                  </Button>
                }
              >
                <p>{end.reason ?? `The turn ended ${end.status}.`}</p>
              </FailureCard>
            )}
            <Composer instances={instances} pushToTalk={state.voice.pushToTalk} busy={state.session.busy} onEnd={setEnd} />
            {state.voice.realtime.configured && <LiveVoice session={state.voice.realtime.session} />}
          </div>
          <div class="ceo-side">
            <section class="ceo-block" aria-labelledby="ceo-pending-title">
              <h3 id="ceo-pending-title">Pending completions</h3>
              {state.pending.length === 0 ? (
                <p class="muted small">None: runs the executive watches show here when they end.</p>
              ) : (
                <ul class="ceo-pending ceo-list">
                  {state.pending.map((c) => (
                    <li key={c.key} data-key={c.key}>
                      <p>
                        <b>{label(c.instanceId)}</b> <Badge tone={c.runStatus === 'ok' ? 'ok' : 'danger'}>{c.runStatus}</Badge>
                      </p>
                      <p class="summary">{summary[c.key] ?? c.summary}</p>
                      <div class="card-actions">
                        <Button small onClick={() => act(c.key, 'summarize', { format: 'detailed' })}>
                          Details
                        </Button>
                        <Button small onClick={() => act(c.key, 'continue')}>
                          Continue
                        </Button>
                        <Button small onClick={() => act(c.key, 'ack')}>
                          Acknowledge
                        </Button>
                        <Button small variant="ghost" onClick={() => act(c.key, 'dismiss')}>
                          Dismiss
                        </Button>
                      </div>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section class="ceo-block" aria-labelledby="ceo-watches-title">
              <h3 id="ceo-watches-title">Watches</h3>
              {state.watches.length === 0 ? (
                <p class="muted small">Nothing watched.</p>
              ) : (
                <ul class="ceo-watches ceo-list">
                  {state.watches.map((w) => (
                    <li key={w.id} class="watch">
                      <span>
                        {label(w.instanceId)} · <span class="muted">{w.requestId ? `request ${w.requestId.slice(0, 12)}` : 'its next run'}</span>
                      </span>
                      <IconButton small icon="x" label={`Stop watching ${label(w.instanceId)}`} onClick={() => void api(`/api/svc-ceo/watch/${encodeURIComponent(w.id)}`, { method: 'DELETE' }).then(reload, failed('Removing the watch failed'))} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <Confirmations instances={instances} confirmations={state.confirmations} />
            <section class="ceo-block" aria-labelledby="ceo-audit-title">
              <h3 id="ceo-audit-title">Audit</h3>
              {state.auditTail.length === 0 ? (
                <p class="muted small">Every tool call and decision of the executive is recorded here.</p>
              ) : (
                <ol class="ceo-audit ceo-list">
                  {state.auditTail.slice(0, 12).map((a) => (
                    <li key={a.id} class={a.ok ? 'ok' : 'refused'}>
                      <Badge tone={a.ok ? 'neutral' : 'danger'}>{a.kind}</Badge> <b>{a.action}</b> <span class="audit-message">{a.message}</span>
                    </li>
                  ))}
                </ol>
              )}
            </section>
          </div>
        </div>
      )}
    </Card>
  );
}
