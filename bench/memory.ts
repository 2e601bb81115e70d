// The memory store at size: 10,000 files of 10 sections each (100,000 sections).
// - search p50/p99 (in process, the service's whole search: plan, word and trigram lists, fusion, weights,
//   snippets) beside a bare FTS5 query (`MATCH … ORDER BY rank LIMIT 10`) over the same words, same run;
// - the context block for a sentence-long prompt;
// - index throughput: building the index from nothing, then a full reindex (sections/s);
// - start-up: first 200 from /api/health of `svc serve` on a home with that store and index, beside an
//   empty home, same run; and how long the background sync of the 10,000 unchanged files then takes.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCoreServer } from '../src/servers/core.ts';
import { tempHome } from '../test/support/server.ts';
import { freePort } from '../test/support/ports.ts';
import { isMain, nowMs, ratio, sleep, summarize } from './support/stats.ts';

const FILES = Number(process.env.BENCH_MEMORY_FILES ?? 10_000);
const SECTIONS = 10;
const QUERIES = 500;
const BIN = new URL('../bin/svc.js', import.meta.url).pathname;

// A deterministic corpus: a Zipf-like vocabulary (a few words in nearly every section, most in few),
// English function words, and Korean words (compounds and particles) in about one section in four.
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const SYLLABLES = ['ka', 'ro', 'mi', 'ten', 'su', 'lo', 'pra', 'vin', 'de', 'tor', 'ex', 'ul', 'an', 'ber', 'qui', 'zo', 'fa', 'nel'];
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => {
  let word = '';
  for (let k = 0, x = i; k < 2 + (i % 3); k++, x = Math.floor(x / SYLLABLES.length) + k * 7) word += SYLLABLES[x % SYLLABLES.length];
  return `${word}${i >= 5000 ? i % 97 : ''}`;
});
const FUNCTION_WORDS = ['the', 'and', 'of', 'to', 'we', 'is', 'in', 'for', 'that', 'it', 'on', 'with', 'as', 'was', 'this', 'be', 'by', 'at'];
const KOREAN = ['데이터베이스마이그레이션을', '결정했다', '배포는', '금요일에', '사용자는', '다크모드를', '선호한다', '회의록에', '예산을', '출시일을'];
const zipf = () => VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(VOCABULARY.length ** random()) - 1)]!;

function paragraph(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const r = random();
    out.push(r < 0.35 ? FUNCTION_WORDS[Math.floor(random() * FUNCTION_WORDS.length)]! : r < 0.37 ? KOREAN[Math.floor(random() * KOREAN.length)]! : zipf());
  }
  return `${out.join(' ')}.`;
}

export function writeStore(root: string): number {
  let bytes = 0;
  for (let f = 0; f < FILES; f++) {
    const dir = f === 0 ? '' : f % 10 < 5 ? 'notes' : f % 10 < 8 ? 'episodes' : 'procedures';
    const name = f === 0 ? 'profile.md' : dir === 'episodes' ? `${2020 + (f % 5)}-${String(1 + (f % 12)).padStart(2, '0')}-${String(1 + (f % 28)).padStart(2, '0')}-${f}.md` : `file-${f}.md`;
    const sections = Array.from({ length: SECTIONS }, (_, s) => `## ${zipf()} ${zipf()}\n${paragraph(40 + Math.floor(random() * 60))}\n`);
    const text = `# File ${f}\n\n${sections.join('\n')}`;
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, name), text);
    bytes += text.length;
  }
  return bytes;
}

/** 1-3 words drawn from every frequency band, and Korean pieces of words. */
export function queries(): string[] {
  const band = (from: number, to: number) => VOCABULARY[from + Math.floor(random() * (to - from))]!;
  const out: string[] = [];
  for (let i = 0; i < QUERIES; i++) {
    switch (i % 5) {
      case 0: out.push(band(100, 2000)); break;
      case 1: out.push(`${band(100, 2000)} ${band(2000, 20_000)}`); break;
      case 2: out.push(`${FUNCTION_WORDS[i % FUNCTION_WORDS.length]} ${band(0, 100)} ${band(100, 2000)}`); break;
      case 3: out.push(['마이그레이션', '다크모드', '결정', '출시일', '회의록'][i % 5]!); break;
      default: out.push(band(0, 100));
    }
  }
  return out;
}

async function time(items: readonly string[], fn: (q: string) => unknown): Promise<number[]> {
  const samples: number[] = [];
  for (const q of items) {
    const start = nowMs();
    await fn(q);
    samples.push(nowMs() - start);
  }
  return samples;
}

async function firstHealthy(home: string): Promise<{ ms: number; syncedMs: number }> {
  const port = await freePort();
  const started = nowMs();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--home', home, '--proxy-port', '0'], { stdio: 'ignore' });
  let ms = NaN;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200) {
        ms = nowMs() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  // the background sync of the unchanged files, after listening
  let syncedMs = NaN;
  for (;;) {
    const status = (await (await fetch(`http://127.0.0.1:${port}/api/memory/status`)).json()) as { index: { state: string } };
    if (status.index.state === 'ready') {
      syncedMs = nowMs() - started - ms;
      break;
    }
    await sleep(20);
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { ms, syncedMs };
}

export async function benchMemory() {
  const home = tempHome('svc-bench-memory-');
  const bytes = writeStore(join(home, 'memory'));
  const app = await createCoreServer({ home, logLevel: 'silent' });
  const { memory, db } = app.services;

  let start = nowMs();
  await memory.settled(); // the first sync: every file is new
  const buildMs = nowMs() - start;
  const chunks = memory.status().chunks;
  start = nowMs();
  const reindex = await memory.reindex();
  const reindexMs = nowMs() - start;

  const items = queries();
  const bare = db.prepare('SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT 10');
  const ftsOf = (q: string) => q.split(' ').map((w) => `"${w}"${/[^\x00-\x7f]/.test(w) ? '*' : ''}`).join(' OR ');
  await time(items.slice(0, 50), (q) => memory.search(q, { limit: 10 })); // warm-up
  const search = await time(items, (q) => memory.search(q, { limit: 10 }));
  const fts = await time(items, (q) => bare.all(ftsOf(q)));
  const prompts = items.slice(0, 100).map((q, i) => `Can you remind me what we decided about ${q} last week, and whether ${items[(i + 7) % items.length]} changed?`);
  const context = await time(prompts, (q) => memory.context(q, 3000));
  await app.close();

  const empty = tempHome('svc-bench-memory-empty-');
  const withStore: number[] = [];
  const without: number[] = [];
  const synced: number[] = [];
  for (let i = 0; i < 6; i++) {
    // (alternating which goes first, so neither always follows the other's exit)
    if (i % 2 === 0) without.push((await firstHealthy(empty)).ms);
    const run = await firstHealthy(home);
    withStore.push(run.ms);
    synced.push(run.syncedMs);
    if (i % 2 === 1) without.push((await firstHealthy(empty)).ms);
  }
  const searchStats = summarize(search);
  const ftsStats = summarize(fts);
  const withStats = summarize(withStore, 1);
  const withoutStats = summarize(without, 1);
  return {
    files: FILES,
    sections: chunks,
    textMb: Number((bytes / 1048576).toFixed(1)),
    searchMs: searchStats,
    bareFts5Ms: ftsStats,
    searchVsBareFts5: { p50: ratio(searchStats.p50, ftsStats.p50), p99: ratio(searchStats.p99, ftsStats.p99) },
    contextMs: summarize(context),
    index: {
      firstBuild: { ms: Math.round(buildMs), sectionsPerS: Math.round(chunks / (buildMs / 1000)) },
      fullReindex: { ms: Math.round(reindexMs), sectionsPerS: Math.round(reindex.chunks / (reindexMs / 1000)) },
    },
    startup: {
      firstHealthyWithStoreMs: withStats,
      firstHealthyEmptyHomeMs: withoutStats,
      ratio: { p50: ratio(withStats.p50, withoutStats.p50) },
      backgroundSyncAfterListenMs: summarize(synced, 0),
    },
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchMemory(), null, 2));
