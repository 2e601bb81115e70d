// The executive console: transcript, composer (with push-to-talk), pending completions with their
// actions, watches, confirmation prompts for lifecycle actions, and the audit tail. It follows the
// executive's own event stream (/api/svc-ceo/events) and reloads its state on each event.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CeoAudit, Completion, Confirmation, TranscriptEntry, Watch } from '../../src/protocol/executive.ts';
import { api, type Instance } from './api.ts';

interface VoiceSession {
  id: string;
  model: string;
  voice: string;
  startedAt: number;
}

interface CeoState {
  voice: { pushToTalk: boolean; realtime: { configured: boolean; session: VoiceSession | null } };
  transcript: TranscriptEntry[];
  watches: Watch[];
  pending: Completion[];
  auditTail: CeoAudit[];
  confirmations: Confirmation[];
}

type Mode = 'text' | 'voice';

/** Speaks an answer with the browser's own synthesis, in Korean when it is written in Hangul. */
function speak(text: string): void {
  if (!('speechSynthesis' in window) || !text) return;
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = /[\uac00-\ud7a3]/.test(text) ? 'ko-KR' : 'en-US';
  speechSynthesis.speak(utterance);
}

/** Sends a turn and reads its NDJSON lines; `onText` gets the answer as it grows. */
async function sendTurn(text: string, instanceId: string, mode: Mode, onText: (t: string) => void): Promise<{ status: string; text: string; reason?: string }> {
  const response = await fetch('/api/svc-ceo/message', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, responseMode: mode, ...(instanceId ? { instanceId } : {}) }),
  });
  if (!response.ok) throw new Error(((await response.json()) as { message?: string }).message ?? `HTTP ${response.status}`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let live = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, nl)) as { type: string; content?: string; status?: string; text?: string; reason?: string };
      buffer = buffer.slice(nl + 1);
      if (line.type === 'text') onText((live += line.content ?? ''));
      if (line.type === 'done') return { status: line.status ?? 'error', text: line.text ?? live, ...(line.reason ? { reason: line.reason } : {}) };
    }
  }
  return { status: 'error', text: live, reason: 'the answer ended without a done line' };
}

function Composer({ instances, onError }: { instances: Instance[]; onError: (m: string) => void }) {
  const [text, setText] = useState('');
  const [instanceId, setInstanceId] = useState('');
  const [live, setLive] = useState('');
  const [busy, setBusy] = useState(false);
  const recorder = useRef<MediaRecorder | null>(null);

  const submit = async (value: string, mode: Mode) => {
    if (!value.trim()) return;
    setBusy(true);
    setLive('');
    try {
      const done = await sendTurn(value, instanceId, mode, setLive);
      if (done.status !== 'ok') onError(done.reason ?? done.status);
      else if (mode === 'voice') speak(done.text);
      setText('');
    } catch (e) {
      onError((e as Error).message);
    } finally {
      setBusy(false);
      setLive('');
    }
  };

  // push-to-talk: record while the button is held, transcribe, then send as a voice turn
  const startTalk = async () => {
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks: Blob[] = [];
      const rec = new MediaRecorder(stream);
      rec.ondataavailable = (e) => chunks.push(e.data);
      rec.onstop = async () => {
        stream.getTracks().forEach((t) => t.stop());
        const blob = new Blob(chunks, { type: 'audio/webm' });
        const response = await fetch('/api/svc-ceo/voice/transcribe', { method: 'POST', headers: { 'content-type': 'audio/webm' }, body: blob });
        const body = (await response.json()) as { text?: string; message?: string };
        if (!response.ok || !body.text) return onError(body.message ?? `HTTP ${response.status}`);
        await submit(body.text, 'voice');
      };
      rec.start();
      recorder.current = rec;
    } catch (e) {
      onError(`microphone: ${(e as Error).message}`);
    }
  };
  const stopTalk = () => {
    recorder.current?.stop();
    recorder.current = null;
  };

  return (
    <form
      class="ceo-composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(text, 'text');
      }}
    >
      <select aria-label="Instance for the executive" value={instanceId} onChange={(e) => setInstanceId((e.target as HTMLSelectElement).value)}>
        <option value="">no instance selected</option>
        {instances.map((i) => (
          <option key={i.id} value={i.id}>{i.label}</option>
        ))}
      </select>
      <textarea aria-label="Message to the executive" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} placeholder="Ask the executive…" />
      <button type="submit" disabled={busy}>Send</button>
      <button type="button" aria-label="Hold to talk" disabled={busy} onPointerDown={() => void startTalk()} onPointerUp={stopTalk}>Hold to talk</button>
      {live && <p class="ceo-live">{live}</p>}
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
function LiveVoice({ session, onError }: { session: VoiceSession | null; onError: (m: string) => void }) {
  const call = useRef<LiveCall | null>(null);
  const [status, setStatus] = useState('');
  const hangUp = async () => {
    const live = call.current;
    call.current = null;
    live?.mic.getTracks().forEach((t) => t.stop());
    live?.pc.close();
    setStatus('');
    const id = live?.id ?? session?.id;
    if (id) await api(`/api/svc-ceo/voice/${encodeURIComponent(id)}/close`, { method: 'POST', body: {} }).catch((e: Error) => onError(e.message));
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
      onError(`live voice: ${(e as Error).message}`);
    }
  };
  const live = call.current !== null || session !== null;
  return (
    <div class="ceo-live-voice">
      {live ? (
        <button type="button" onClick={() => void hangUp()}>Hang up</button>
      ) : (
        <button type="button" onClick={() => void talk()} disabled={status === 'connecting'}>Talk live</button>
      )}
      {status && <span class="ceo-voice-status" data-state={status}>live voice: {status}</span>}
    </div>
  );
}

function Confirmations({ instances, confirmations, onError }: { instances: Instance[]; confirmations: Confirmation[]; onError: (m: string) => void }) {
  const owned = instances.filter((i) => i.owner === 'manager');
  const [action, setAction] = useState<'start' | 'stop' | 'restart'>('stop');
  const [target, setTarget] = useState('');
  const call = (path: string, body: unknown = {}) => void api(path, { method: 'POST', body }).catch((e: Error) => onError(e.message));
  const label = (id: string) => instances.find((i) => i.id === id)?.label ?? id;
  return (
    <div class="ceo-confirmations">
      <h3>Lifecycle</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          call('/api/svc-ceo/confirmations', { action, instanceId: target || owned[0]?.id });
        }}
      >
        <select aria-label="Lifecycle action" value={action} onChange={(e) => setAction((e.target as HTMLSelectElement).value as typeof action)}>
          <option value="start">start</option>
          <option value="stop">stop</option>
          <option value="restart">restart</option>
        </select>
        <select aria-label="Lifecycle instance" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
          {owned.map((i) => (
            <option key={i.id} value={i.id}>{i.label}</option>
          ))}
        </select>
        <button type="submit" disabled={!owned.length}>Ask for confirmation</button>
      </form>
      <ul>
        {confirmations.map((c) => (
          <li key={c.id} class={`confirmation ${c.status}`} data-id={c.id}>
            {c.action} {label(c.args.instanceId)} · {c.status} · <code>{c.id}</code>
            {c.status === 'pending' && <button onClick={() => call(`/api/svc-ceo/confirmations/${c.id}/confirm`)}>Approve</button>}
            {c.status === 'approved' && <button onClick={() => call(`/api/svc-ceo/instances/${c.args.instanceId}/${c.action}`, { confirmationId: c.id })}>Run {c.action}</button>}
            <button onClick={() => call(`/api/svc-ceo/confirmations/${c.id}/cancel`)}>Cancel</button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Executive({ instances }: { instances: Instance[] }) {
  const [state, setState] = useState<CeoState | null>(null);
  const [error, setError] = useState('');
  const [summary, setSummary] = useState<Record<string, string>>({});
  const reload = () => void api<CeoState>('/api/svc-ceo/state').then(setState, (e: Error) => setError(e.message));
  useEffect(() => {
    reload();
    const source = new EventSource('/api/svc-ceo/events');
    source.onmessage = () => reload();
    return () => source.close();
  }, []);
  const act = (key: string, verb: string, body: unknown = {}) =>
    void api<{ untrustedText?: string }>(`/api/svc-ceo/pending/${encodeURIComponent(key)}/${verb}`, { method: 'POST', body }).then(
      (r) => r?.untrustedText !== undefined && setSummary((s) => ({ ...s, [key]: r.untrustedText! })),
      (e: Error) => setError(e.message),
    );
  const label = (id: string | null) => (id ? (instances.find((i) => i.id === id)?.label ?? id) : '');
  if (!state) return <section aria-label="Executive"><h2>Executive</h2></section>;
  return (
    <section aria-label="Executive" class="executive">
      <h2>Executive</h2>
      {error && <p class="ceo-error" role="alert">{error}</p>}
      <ol class="ceo-transcript">
        {state.transcript.map((t) => (
          <li key={t.id} class={`ceo-${t.role}`}>
            <b>{t.role === 'instance' ? `${label(t.instanceId)} (instance text, untrusted)` : t.role}</b> {t.text}
          </li>
        ))}
      </ol>
      <Composer instances={instances} onError={setError} />
      {state.voice.realtime.configured && <LiveVoice session={state.voice.realtime.session} onError={setError} />}
      <h3>Pending completions</h3>
      <ul class="ceo-pending">
        {state.pending.map((c) => (
          <li key={c.key} data-key={c.key}>
            <b>{label(c.instanceId)}</b> {c.runStatus}: <span class="summary">{summary[c.key] ?? c.summary}</span>
            <button onClick={() => act(c.key, 'summarize', { format: 'detailed' })}>Details</button>
            <button onClick={() => act(c.key, 'continue')}>Continue</button>
            <button onClick={() => act(c.key, 'ack')}>Acknowledge</button>
            <button onClick={() => act(c.key, 'dismiss')}>Dismiss</button>
          </li>
        ))}
      </ul>
      <h3>Watches</h3>
      <ul class="ceo-watches">
        {state.watches.map((w) => (
          <li key={w.id}>
            {label(w.instanceId)} · {w.requestId ?? 'next run'}
            <button onClick={() => void fetch(`/api/svc-ceo/watch/${w.id}`, { method: 'DELETE' }).then(reload)}>Remove</button>
          </li>
        ))}
      </ul>
      <Confirmations instances={instances} confirmations={state.confirmations} onError={setError} />
      <h3>Audit</h3>
      <ol class="ceo-audit">
        {state.auditTail.slice(0, 20).map((a) => (
          <li key={a.id} class={a.ok ? 'ok' : 'refused'}>
            {a.kind} {a.action}: {a.message}
          </li>
        ))}
      </ol>
    </section>
  );
}
