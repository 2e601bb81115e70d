// POST /api/voice (spec §4 "Messaging and media"): the audio's raw bytes in, the transcript out; with
// ?send=true the transcript also goes to the agent as a message of the active chat session.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { parseInput } from '../../http/validate.ts';
import { AppError, badRequest } from '../../core/errors.ts';
import type { VoiceService } from './voice.service.ts';
import { ownValue } from '../../core/own.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const VOICE_LIMIT_BYTES = 25 * 1024 * 1024;
/** What browsers' MediaRecorder and phones record, and the common files: webm, ogg, wav, mp3, m4a. */
export const AUDIO_TYPES: Record<string, string> = {
  'audio/webm': 'webm',
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/wav': 'wav',
  'audio/wave': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
};

const voiceQuery = lazySchema(() => z.strictObject({
  send: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
}));

async function checkAudio(request: FastifyRequest): Promise<void> {
  const essence = request.headers['content-type']?.split(';')[0]!.trim().toLowerCase() ?? '';
  // own keys only: `in` would also accept what every object inherits ('constructor', '__proto__')
  if (ownValue(AUDIO_TYPES, essence) === undefined) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `Send the recording's raw bytes with its audio type (${Object.keys(AUDIO_TYPES).join(', ')})${essence ? `, not '${essence}'` : ''}.`);
  }
  parseInput(voiceQuery, request.query, 'query');
}

export interface VoiceRouteDeps {
  voice: VoiceService;
  /** Sends the transcript as a user message of the active session (absent: ?send=true is refused). */
  submit?(text: string): { requestId: string; sessionId: string; queued: boolean };
  /** Where it is mounted (default /api/voice; the manager's executive mounts it for push-to-talk). */
  url?: string;
}

export const voiceRoutes: FastifyPluginAsync<VoiceRouteDeps> = async (app, { voice, submit, url = '/api/voice' }) => {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    defineRoutes(scope, 'voice', [
      route({
        method: 'POST',
        url,
        summary: `Transcribes a recording (webm, ogg, wav, mp3 or m4a, up to ${VOICE_LIMIT_BYTES / 1024 / 1024} MiB, raw bytes as the body)${submit ? '; ?send=true also sends the text as a message' : ''}. No speech is a 422.`,
        query: voiceQuery,
        rawBody: 'audio/webm',
        bodyLimit: VOICE_LIMIT_BYTES,
        // no speech or a recording that does not decode; the transcription engine's failure or timeout
        errors: [422, 502, 504],
        onRequest: checkAudio,
        response: lazySchema(() => z.object({
          text: z.string(),
          engine: z.string(),
          durationMs: z.number(),
          sent: z.object({ requestId: z.string(), sessionId: z.string(), queued: z.boolean() }).optional(),
        })),
        handler: async ({ query, request }) => {
          const audio = request.body as Buffer | undefined;
          if (!audio?.length) throw badRequest('EMPTY_UPLOAD', 'The recording is empty: send the audio bytes as the request body.');
          const mime = request.headers['content-type']!.split(';')[0]!.trim().toLowerCase();
          const transcript = await voice.transcribe(audio, mime, AUDIO_TYPES[mime]!);
          if (!transcript.text) throw new AppError(422, 'EMPTY_TRANSCRIPT', 'No speech was recognised in the recording: speak closer to the microphone, or record again.');
          if (!query.send) return transcript;
          if (!submit) throw badRequest('BAD_REQUEST', 'This route only transcribes: send the text yourself (e.g. POST /api/svc-ceo/message).');
          return { ...transcript, sent: submit(transcript.text) };
        },
      }),
    ]);
  });
};
