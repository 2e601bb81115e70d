// Voice input: audio in, transcript out (through the engine the settings pick), optionally sent to the
// agent as a message of the active chat session.
import { AppError } from '../../core/errors.ts';
import { DEFAULT_OFFLINE_TOOLS, missingOfflineParts, OFFLINE_ENGINE, transcribeOffline, type OfflineTools } from './offline.ts';
import { engineOf, type VoiceSettings } from './settings.ts';
import { transcribeOpenAi } from './transcriber.ts';

export interface Transcript {
  text: string;
  engine: string;
  /** How long the transcription took. */
  durationMs: number;
}

export class VoiceService {
  /** One offline transcription at a time: each takes a core for about a fifth of the clip's length. */
  private offlineQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly settings: () => VoiceSettings,
    private readonly tools: OfflineTools = DEFAULT_OFFLINE_TOOLS,
  ) {}

  /** Whether a transcription can be tried: the endpoint is set, or the offline engine is installed. */
  ready(): boolean {
    const settings = this.settings();
    return engineOf(settings) === 'endpoint' ? settings.baseUrl !== '' : missingOfflineParts(this.tools).length === 0;
  }

  /** `ext`: the recording's container (webm, ogg, wav, mp3, m4a). */
  async transcribe(audio: Buffer, mime: string, ext: string): Promise<Transcript> {
    const settings = this.settings();
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    if (engineOf(settings) === 'offline') {
      const run = this.offlineQueue.then(() => transcribeOffline(this.tools, audio, ext));
      this.offlineQueue = run.catch(() => undefined);
      const text = await run;
      return { text, engine: OFFLINE_ENGINE, durationMs: took() };
    }
    if (!settings.baseUrl) {
      throw new AppError(503, 'VOICE_NOT_CONFIGURED', 'voice.engine is endpoint but voice.baseUrl is empty: set it to an OpenAI-compatible …/v1 (e.g. a local whisper server), or set voice.engine to auto for the offline engine');
    }
    const text = await transcribeOpenAi(settings, audio, mime, `voice.${ext}`);
    return { text, engine: `openai-compatible:${settings.model}`, durationMs: took() };
  }
}
