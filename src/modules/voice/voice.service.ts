// Voice input: audio in, transcript out (through the configured engine), optionally sent to the agent
// as a message of the active chat session.
import { AppError } from '../../core/errors.ts';
import type { VoiceSettings } from './settings.ts';
import { transcribeOpenAi } from './transcriber.ts';

export interface Transcript {
  text: string;
  engine: string;
  /** How long the transcription took. */
  durationMs: number;
}

export class VoiceService {
  constructor(private readonly settings: () => VoiceSettings) {}

  get configured(): boolean {
    return this.settings().baseUrl !== '';
  }

  async transcribe(audio: Buffer, mime: string, filename: string): Promise<Transcript> {
    const settings = this.settings();
    if (!settings.baseUrl) {
      throw new AppError(503, 'VOICE_NOT_CONFIGURED', 'voice input needs a transcription endpoint: set voice.baseUrl (an OpenAI-compatible …/v1, e.g. a local whisper server) in the settings');
    }
    const started = performance.now();
    const text = await transcribeOpenAi(settings, audio, mime, filename);
    return { text, engine: `openai-compatible:${settings.model}`, durationMs: Math.round(performance.now() - started) };
  }
}
