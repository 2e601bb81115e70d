// The offline engine: Debian's pocketsphinx (CMU Sphinx, with its US English model) behind ffmpeg. No
// account and nothing fetched at run time: both come from `apt-get install pocketsphinx pocketsphinx-en-us
// ffmpeg`. The recording is written to a private temp dir, ffmpeg turns whatever it is (webm, ogg, mp3,
// m4a, wav) into the 16 kHz mono 16-bit WAV the model was trained on, pocketsphinx_continuous prints one
// line per utterance, and the dir is removed whatever happens. Both run without a shell, with deadlines.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executableCandidates, isExecutableFileSync } from '../../core/executable.ts';
import { AppError } from '../../core/errors.ts';

export interface OfflineTools {
  ffmpeg: string;
  pocketsphinx: string;
  /** pocketsphinx-en-us's directory: the acoustic model `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`. */
  modelDir: string;
}

export const DEFAULT_OFFLINE_TOOLS: OfflineTools = {
  ffmpeg: 'ffmpeg',
  pocketsphinx: 'pocketsphinx_continuous',
  modelDir: '/usr/share/pocketsphinx/model/en-us',
};

export const OFFLINE_ENGINE = 'pocketsphinx';
export const OFFLINE_INSTALL = 'apt-get install pocketsphinx pocketsphinx-en-us ffmpeg';
export const DECODE_TIMEOUT_MS = 60_000;
export const RECOGNIZE_TIMEOUT_MS = 120_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** ffmpeg's arguments: any audio in, the recogniser's format out (16 kHz, mono, signed 16-bit WAV). */
export function decodeArgs(input: string, output: string): string[] {
  return ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', input, '-vn', '-ar', '16000', '-ac', '1', '-sample_fmt', 's16', '-f', 'wav', output];
}

/** pocketsphinx_continuous's arguments; `tuning`: more options (the benchmark tries a faster search). */
export function recognizeArgs(wav: string, modelDir: string, tuning: string[] = []): string[] {
  return ['-infile', wav, '-hmm', join(modelDir, 'en-us'), '-lm', join(modelDir, 'en-us.lm.bin'), '-dict', join(modelDir, 'cmudict-en-us.dict'), '-logfn', '/dev/null', ...tuning];
}

/** The transcript in pocketsphinx_continuous's output: one hypothesis per utterance, per line. */
export function parseHypothesis(stdout: string): string {
  return stdout
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

/** What of the engine is not installed (program or model names), or [] when it can run. */
export function missingOfflineParts(tools: OfflineTools): string[] {
  const found = (command: string) => executableCandidates(command, { pathEnv: process.env.PATH }).some(isExecutableFileSync);
  const missing: string[] = [];
  if (!found(tools.pocketsphinx)) missing.push(tools.pocketsphinx);
  if (!existsSync(join(tools.modelDir, 'en-us.lm.bin'))) missing.push(`the en-us model (${tools.modelDir})`);
  if (!found(tools.ffmpeg)) missing.push(tools.ffmpeg);
  return missing;
}

export function offlineMissingError(missing: string[]): AppError {
  return new AppError(
    503,
    'VOICE_ENGINE_MISSING',
    `The offline voice engine is not installed (missing: ${missing.join(', ')}): run \`${OFFLINE_INSTALL}\` as root, or set voice.baseUrl to an OpenAI-compatible transcription endpoint.`,
  );
}

interface Ran {
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], timeoutMs: number): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: MAX_OUTPUT_BYTES, windowsHide: true }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stderr: String(stderr) }));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

type RunError = NodeJS.ErrnoException & { killed?: boolean; stderr?: string };

function failure(step: string, command: string, err: RunError, timeoutMs: number): AppError {
  if (err.code === 'ENOENT') return offlineMissingError([command]);
  if (err.killed) return new AppError(504, 'TRANSCRIPTION_FAILED', `${step} took longer than ${timeoutMs / 1000} s: send a shorter recording.`);
  const detail = (err.stderr ?? '').trim().split('\n').slice(-2).join(' ').slice(0, 300) || err.message;
  if (step === 'decoding') return new AppError(422, 'UNREADABLE_AUDIO', `The recording could not be decoded (${detail}): send webm, ogg, wav, mp3 or m4a audio.`);
  return new AppError(502, 'TRANSCRIPTION_FAILED', `pocketsphinx failed (${detail}); check the pocketsphinx-en-us install.`);
}

/** ffmpeg then pocketsphinx on `audio` (`ext`: its container, for ffmpeg's probe); '' = no speech heard. */
export async function transcribeOffline(tools: OfflineTools, audio: Buffer, ext: string, tuning: string[] = []): Promise<string> {
  const missing = missingOfflineParts(tools);
  if (missing.length) throw offlineMissingError(missing);
  const dir = await mkdtemp(join(tmpdir(), 'svc-voice-'));
  try {
    // the extension only helps ffmpeg's probe, and may come from a remote file name
    const input = join(dir, `input.${ext.replace(/[^a-z0-9]/gi, '').slice(0, 8) || 'bin'}`);
    const wav = join(dir, 'speech.wav');
    await writeFile(input, audio, { mode: 0o600 });
    await run(tools.ffmpeg, decodeArgs(input, wav), DECODE_TIMEOUT_MS).catch((err: RunError) => {
      throw failure('decoding', tools.ffmpeg, err, DECODE_TIMEOUT_MS);
    });
    const { stdout } = await run(tools.pocketsphinx, recognizeArgs(wav, tools.modelDir, tuning), RECOGNIZE_TIMEOUT_MS).catch((err: RunError) => {
      throw failure('recognition', tools.pocketsphinx, err, RECOGNIZE_TIMEOUT_MS);
    });
    return parseHypothesis(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
