// Spoken audio made on the spot (no recordings in the repository): Debian's flite speaks a sentence into a
// WAV, ffmpeg re-encodes it as the browsers and phones send it (webm/ogg Opus, m4a AAC). espeak-ng is
// there too, for the benchmark's harder speaker. All from .ci/run's apt-get line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Speaker = { tool: 'flite'; voice: 'rms' | 'slt' | 'awb' | 'kal16' } | { tool: 'espeak-ng'; voice: string; wordsPerMinute: number };

export const DEFAULT_SPEAKER: Speaker = { tool: 'flite', voice: 'rms' };

function inTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'svc-speech-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `text` spoken by `speaker`, as a WAV file's bytes. */
export function speak(text: string, speaker: Speaker = DEFAULT_SPEAKER): Buffer {
  return inTempDir((dir) => {
    const out = join(dir, 'speech.wav');
    if (speaker.tool === 'flite') execFileSync('flite', ['-voice', speaker.voice, '-t', text, '-o', out]);
    else execFileSync('espeak-ng', ['-v', speaker.voice, '-s', String(speaker.wordsPerMinute), '-w', out, text]);
    return readFileSync(out);
  });
}

/** `seconds` of digital silence as a 16 kHz WAV. */
export function silence(seconds: number): Buffer {
  return inTempDir((dir) => {
    const out = join(dir, 'silence.wav');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', String(seconds), out]);
    return readFileSync(out);
  });
}

/** `wav` re-encoded: webm or ogg (Opus, as MediaRecorder and Telegram voice notes), m4a (AAC), mp3. */
export function encode(wav: Buffer, format: 'webm' | 'ogg' | 'm4a' | 'mp3'): Buffer {
  const codec = { webm: 'libopus', ogg: 'libopus', m4a: 'aac', mp3: 'libmp3lame' }[format];
  return inTempDir((dir) => {
    writeFileSync(join(dir, 'in.wav'), wav);
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', join(dir, 'in.wav'), '-c:a', codec, join(dir, `out.${format}`)]);
    return readFileSync(join(dir, `out.${format}`));
  });
}

/** The words of a transcript or a sentence: lower case, no punctuation. */
export function words(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).filter(Boolean);
}
