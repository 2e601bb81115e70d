// Offline speech to text: the same synthesised clips through each engine that installs here (Debian's
// pocketsphinx with its en-us model, in two configurations, from WAV and from webm/Opus as browsers
// record) → word error rate and real-time factor (processing time / audio duration), end to end as
// POST /api/voice runs it (temp file, ffmpeg, pocketsphinx). Baseline in the same run: ffmpeg decoding
// the same clip alone. Whisper is not a candidate: no npm or Debian package ships its weights (README).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeArgs, DEFAULT_OFFLINE_TOOLS, transcribeOffline } from '../src/modules/voice/offline.ts';
import { encode, speak, words, type Speaker } from '../test/support/speech.ts';
import { ratio } from './support/stats.ts';

// chosen before measuring: what one says to a coding agent, in common words
const SENTENCES = [
  'please open the file and run the tests',
  'turn on the lights in the kitchen',
  'what is the weather like today',
  'send the report to my team',
  'stop the current task',
  'show me the status of the build',
  'create a new session',
  'read the last three messages',
  'fix the error in the login page',
  'how many files are in this folder',
];

const SPEAKERS: Record<string, Speaker> = {
  'flite-rms': { tool: 'flite', voice: 'rms' },
  'flite-slt': { tool: 'flite', voice: 'slt' },
  'flite-kal16': { tool: 'flite', voice: 'kal16' },
  'espeak-ng-klatt': { tool: 'espeak-ng', voice: 'en-us+klatt', wordsPerMinute: 150 },
  'espeak-ng-default': { tool: 'espeak-ng', voice: 'en-us', wordsPerMinute: 140 },
};

/** A narrower, faster search: half the frames scored, fewer Gaussians, no second pass. */
const FAST = ['-ds', '2', '-topn', '2', '-fwdflat', 'no', '-bestpath', 'no'];

interface Candidate {
  format: 'wav' | 'webm';
  tuning: string[];
}
const CANDIDATES: Record<string, Candidate> = {
  'pocketsphinx (wav)': { format: 'wav', tuning: [] },
  'pocketsphinx (webm/opus)': { format: 'webm', tuning: [] },
  'pocketsphinx fast (wav)': { format: 'wav', tuning: FAST },
};

/** Word-level edit distance over the reference's length. */
export function wordErrorRate(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[hypothesis.length]! / reference.length;
}

/** Seconds of audio in a PCM WAV (its fmt and data chunks). */
function wavSeconds(wav: Buffer): number {
  let offset = 12;
  let bytesPerSecond = 0;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ') bytesPerSecond = wav.readUInt32LE(offset + 16);
    // flite and espeak-ng leave the data size at its maximum when writing a file: what is there counts
    if (id === 'data') return Math.min(size, wav.length - offset - 8) / bytesPerSecond;
    offset += 8 + size;
  }
  throw new Error('no data chunk');
}

const run = promisify(execFile);

async function decodeOnlyMs(wav: Buffer): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-voice-bench-'));
  try {
    writeFileSync(join(dir, 'in.wav'), wav);
    const started = performance.now();
    await run(DEFAULT_OFFLINE_TOOLS.ffmpeg, decodeArgs(join(dir, 'in.wav'), join(dir, 'out.wav')));
    return performance.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

const clips = Object.entries(SPEAKERS).flatMap(([speaker, voice]) =>
  SENTENCES.map((sentence) => {
    const wav = speak(sentence, voice);
    return { speaker, sentence, wav, webm: encode(wav, 'webm'), seconds: wavSeconds(wav) };
  }),
);
const audioSeconds = clips.reduce((sum, c) => sum + c.seconds, 0);

let decodeMs = 0;
for (const clip of clips) decodeMs += await decodeOnlyMs(clip.wav);

const engines: Record<string, unknown> = {};
const samples: Record<string, { speaker: string; said: string; heard: string }[]> = {};
for (const [name, candidate] of Object.entries(CANDIDATES)) {
  let ms = 0;
  const perSpeaker: Record<string, { errors: number; words: number }> = {};
  for (const clip of clips) {
    const started = performance.now();
    const heard = await transcribeOffline(DEFAULT_OFFLINE_TOOLS, candidate.format === 'wav' ? clip.wav : clip.webm, candidate.format, candidate.tuning);
    ms += performance.now() - started;
    const reference = words(clip.sentence);
    const tally = (perSpeaker[clip.speaker] ??= { errors: 0, words: 0 });
    tally.errors += wordErrorRate(reference, words(heard)) * reference.length;
    tally.words += reference.length;
    if (name === 'pocketsphinx (wav)') (samples[clip.speaker] ??= []).push({ speaker: clip.speaker, said: clip.sentence, heard });
  }
  const all = Object.values(perSpeaker).reduce((a, b) => ({ errors: a.errors + b.errors, words: a.words + b.words }), { errors: 0, words: 0 });
  const flite = Object.entries(perSpeaker).filter(([s]) => s.startsWith('flite')).reduce((a, [, b]) => ({ errors: a.errors + b.errors, words: a.words + b.words }), { errors: 0, words: 0 });
  engines[name] = {
    wer: round(all.errors / all.words),
    werFlite: round(flite.errors / flite.words),
    werBySpeaker: Object.fromEntries(Object.entries(perSpeaker).map(([s, t]) => [s, round(t.errors / t.words)])),
    realTimeFactor: round(ms / 1000 / audioSeconds),
    msPerClip: Math.round(ms / clips.length),
    ratioToDecodeOnly: ratio(ms, decodeMs),
  };
}

console.log(
  JSON.stringify(
    {
      clips: clips.length,
      sentences: SENTENCES.length,
      speakers: Object.keys(SPEAKERS),
      audioSeconds: round(audioSeconds, 1),
      baseline: { name: 'ffmpeg decode only', realTimeFactor: round(decodeMs / 1000 / audioSeconds), msPerClip: Math.round(decodeMs / clips.length) },
      engines,
      // what the default configuration heard, for the record
      heard: Object.fromEntries(Object.entries(samples).map(([speaker, list]) => [speaker, list.filter((s) => s.said !== s.heard).map((s) => `${s.said} → ${s.heard}`)])),
    },
    null,
    2,
  ),
);
