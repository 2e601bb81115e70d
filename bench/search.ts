// Message search and paging with 100k stored messages: FTS5 query latency beside a LIKE scan of
// the same table (the baseline a naive search would be), and GET /api/messages (page of 50) over
// HTTP beside GET /api/health (the route floor), all in the same run.
import { createCoreServer } from '../src/servers/core.ts';
import { tempHome } from '../test/support/server.ts';
import { isMain, nowMs, ratio, summarize } from './support/stats.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const QUERIES = 300;
const WORDS = ['pineapple', 'deploy', 'kubernetes', 'refactor', 'database', 'latency', 'browser', 'session', 'token', 'queue', 'provider', 'stream', 'fixture', 'migration', 'websocket', 'cursor'];

function sentence(i: number): string {
  const pick = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return `Message ${i}: we looked at the ${pick(1)} and the ${pick(2)} before the ${pick(3)} review; ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 4))}`;
}

async function time(n: number, fn: (i: number) => unknown | Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = nowMs();
    await fn(i);
    samples.push(nowMs() - start);
  }
  return samples;
}

export async function benchSearch() {
  const app = await createCoreServer({ home: tempHome('svc-bench-'), logLevel: 'silent' });
  const { chat, db } = app.services;
  const sessionId = chat.activeSession().id;
  const insertStart = nowMs();
  db.transaction(() => {
    for (let i = 0; i < MESSAGES; i++) chat.messages.insert({ sessionId, role: i % 2 ? 'assistant' : 'user', content: sentence(i) });
  })();
  const insertMs = nowMs() - insertStart;
  const like = db.prepare('SELECT id FROM messages WHERE content LIKE ? ORDER BY id DESC LIMIT 20');
  const fts = await time(QUERIES, (i) => chat.messages.search(`${WORDS[i % WORDS.length]} ${WORDS[(i + 3) % WORDS.length]}`, { limit: 20 }));
  const scan = await time(30, (i) => like.all(`%${WORDS[i % WORDS.length]}%${WORDS[(i + 3) % WORDS.length]}%`));

  const url = await app.listen(0, '127.0.0.1');
  const latest = chat.messages.page(sessionId, { limit: 1 }).messages[0]!.id;
  await time(50, () => fetch(`${url}/api/health`).then((r) => r.text())); // warm-up
  const health = await time(QUERIES, () => fetch(`${url}/api/health`).then((r) => r.text()));
  const pages = await time(QUERIES, (i) => fetch(`${url}/api/messages?limit=50&before=${latest - ((i * 997) % (MESSAGES - 100))}`).then((r) => r.json()));
  const httpSearch = await time(QUERIES, (i) => fetch(`${url}/api/messages/search?q=${WORDS[i % WORDS.length]}`).then((r) => r.json()));
  await app.close();
  const ftsStats = summarize(fts);
  const scanStats = summarize(scan);
  const pageStats = summarize(pages);
  const healthStats = summarize(health);
  return {
    messages: MESSAGES,
    insertMs: Math.round(insertMs),
    ftsQueryMs: ftsStats,
    likeScanBaselineMs: scanStats,
    ftsVsLikeRatio: { p50: ratio(ftsStats.p50, scanStats.p50) },
    httpSearchMs: summarize(httpSearch),
    httpPageOf50Ms: pageStats,
    httpHealthBaselineMs: healthStats,
    pageVsHealthRatio: { p50: ratio(pageStats.p50, healthStats.p50), p99: ratio(pageStats.p99, healthStats.p99) },
  };
}

if (isMain(import.meta.url)) console.log(JSON.stringify(await benchSearch(), null, 2));
