// Voice input in the composer: hold the button (or Space/Enter on it) to record, release to have the
// recording transcribed (POST /api/voice) into the message box. Hidden where the browser cannot record.
import { useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { toast } from '../store.ts';
import { Icon } from '../../ui/icons.tsx';

type State = 'idle' | 'recording' | 'transcribing';

interface Recording {
  recorder: MediaRecorder;
  chunks: Blob[];
  stream: MediaStream;
}

export function MicButton({ onText }: { onText: (text: string) => void }) {
  const [state, setState] = useState<State>('idle');
  const recording = useRef<Recording | null>(null);
  // released before the microphone opened: stop as soon as it has
  const held = useRef(false);
  if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) return null;

  const finish = async () => {
    const current = recording.current;
    if (!current) return;
    recording.current = null;
    const stopped = new Promise((resolve) => (current.recorder.onstop = resolve));
    current.recorder.stop();
    await stopped;
    current.stream.getTracks().forEach((track) => track.stop());
    setState('transcribing');
    try {
      const audio = new Blob(current.chunks, { type: current.recorder.mimeType || 'audio/webm' });
      const { text } = await api.voice(audio);
      onText(text);
    } catch (err) {
      toast(err instanceof ApiError ? err.message : 'The recording could not be transcribed.');
    } finally {
      setState('idle');
    }
  };

  const start = async () => {
    if (state !== 'idle' || recording.current) return;
    held.current = true;
    try {
      // the recogniser wants the voice as it is: the browser's call processing (echo cancellation, noise
      // suppression, gain control) garbled words for the offline engine ("kitchen" → "literature and")
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
      const recorder = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      recorder.ondataavailable = (e) => {
        if (e.data.size) chunks.push(e.data);
      };
      recorder.start();
      recording.current = { recorder, chunks, stream };
      setState('recording');
      if (!held.current) await finish();
    } catch {
      toast('The microphone is not available: allow this page to use it in the browser.');
    }
  };

  const release = () => {
    held.current = false;
    void finish();
  };

  return (
    <button
      type="button"
      class="icon-btn mic-btn"
      data-state={state}
      aria-label={state === 'recording' ? 'Recording: release to transcribe' : state === 'transcribing' ? 'Transcribing' : 'Hold to record a voice message'}
      title="Hold to record, release to transcribe into the box"
      aria-pressed={state === 'recording'}
      disabled={state === 'transcribing'}
      onPointerDown={(e) => {
        e.preventDefault();
        void start();
      }}
      onPointerUp={release}
      onPointerLeave={() => state === 'recording' && release()}
      onKeyDown={(e) => {
        if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) {
          e.preventDefault();
          void start();
        }
      }}
      onKeyUp={(e) => {
        if (e.key === ' ' || e.key === 'Enter') release();
      }}
    >
      {state === 'transcribing' ? <span class="spinner" aria-hidden="true" /> : <Icon name="mic" size={18} />}
    </button>
  );
}
