// Browser UI benchmark (real Chromium, real server). Prints one JSON document.
//   node --import tsx bench/ui.ts [--messages 10000] [--answer-kb 1024]
// 1. load: a session with 10,000 saved messages; time from navigation start to interactive (the
//    app's `svc:interactive` mark: latest page rendered, composer usable), and wall-clock from goto.
// 2. scroll: from the latest message up to the very first one (history loads 50 at a time on the
//    way), then back down; long tasks (> 50 ms, PerformanceObserver 'longtask') and slow frames.
// 3. stream: a 1 MB answer published as agent_output events (as a provider streams it), then
//    agent_done; long tasks and slow frames while streaming, after done, and the page's JS heap
//    (CDP Performance.getMetrics JSHeapUsedSize, after a GC) before and after.
// Targets: interactive < 1000 ms; no long task while streaming.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startServer } from '../test/support/server.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const MESSAGES = opt('--messages', 10_000);
const ANSWER_BYTES = opt('--answer-kb', 1024) * 1024;
const ROOT = join(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function content(i: number): { role: 'user' | 'assistant'; content: string } {
  if (i % 2 === 0) return { role: 'user', content: `Question ${i}: how should I handle case ${i % 97} in the parser?` };
  const code = i % 3 === 0 ? `\n\n\`\`\`ts\nexport function handle${i}(input: string): number {\n  return input.split(',').map(Number).reduce((a, b) => a + b, ${i});\n}\n\`\`\`` : '';
  return {
    role: 'assistant',
    content: `Answer ${i}. The **short** version: check the \`state\` first, then:\n\n- validate the input\n- keep the cursor\n- return early on errors${code}\n\nThat covers case ${i % 97}; ${'more detail follows in a longer sentence. '.repeat(1 + (i % 5))}`,
  };
}

/** A realistic long answer: paragraphs, lists, code blocks, ~`bytes` long. */
function longAnswer(bytes: number): string[] {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let block: string;
    if (i % 5 === 3) block = `\`\`\`python\ndef step_${i}(items):\n    total = 0\n    for item in items:\n        total += item * ${i}\n    return total\n\`\`\`\n\n`;
    else if (i % 5 === 1) block = `- point ${i}: keep the buffer bounded\n- point ${i + 1}: measure before optimizing\n- point ${i + 2}: **stream** instead of waiting\n\n`;
    else block = `Paragraph ${i}. ${'The answer streams in chunks the way a model produces it, with inline `code`, **bold** and plain words. '.repeat(3)}\n\n`;
    parts.push(block);
    size += block.length;
  }
  parts.push('The end: svc-bench-sentinel.\n');
  // split into ~200-byte chunks (typical text deltas)
  const text = parts.join('');
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += 200) chunks.push(text.slice(at, at + 200));
  return chunks;
}

// (a string: tsx would wrap named functions in a helper the page does not have)
const OBSERVERS = `(() => {
  window.__long = [];
  window.__frames = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  let last = performance.now();
  const tick = (t) => {
    window.__frames.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;

async function installObservers(page: Page): Promise<void> {
  await page.evaluate(OBSERVERS);
}

async function window_(page: Page, from: number, to: number) {
  return page.evaluate(
    ([a, b]) => {
      const w = window as unknown as { __long: { start: number; duration: number }[]; __frames: number[] };
      const long = w.__long.filter((e) => e.start >= a! && e.start <= b!);
      return { longTasks: long.length, longestTaskMs: Math.round(Math.max(0, ...long.map((e) => e.duration))) };
    },
    [from, to],
  );
}

const frameStats = (page: Page, since: number) =>
  page.evaluate((n) => {
    const frames = (window as unknown as { __frames: number[] }).__frames.slice(n);
    const sorted = [...frames].sort((a, b) => a - b);
    return {
      frames: frames.length,
      slowFrames: frames.filter((f) => f > 50).length,
      p99FrameMs: Math.round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
      maxFrameMs: Math.round(sorted.at(-1) ?? 0),
    };
  }, since);

const frameCount = (page: Page) => page.evaluate(() => (window as unknown as { __frames: number[] }).__frames.length);
const now = (page: Page) => page.evaluate(() => performance.now());

async function heapMb(page: Page, cdp: Awaited<ReturnType<import('playwright-core').BrowserContext['newCDPSession']>>): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const used = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  return Math.round((used / 1048576) * 10) / 10;
}

async function main() {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')], { cwd: ROOT, stdio: 'pipe' });
  const server = await startServer();
  const { chat, bus } = server.app.services;
  const sessionId = chat.activeSession().id;
  const insertStart = performance.now();
  server.app.services.db.transaction(() => {
    for (let i = 0; i < MESSAGES; i++) chat.saveMessage({ sessionId, ...content(i) });
  })();
  const insertMs = Math.round(performance.now() - insertStart);

  const browser = await chromium.launch({
    executablePath: process.env.SVC_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const result: Record<string, unknown> = { messages: MESSAGES, insertMs };
  try {
    // ── 1. load ───────────────────────────────────────────────────────────────────────
    const loads: { interactiveMs: number; wallMs: number }[] = [];
    for (let run = 0; run < 4; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const t0 = Date.now();
      await page.goto(server.url);
      await page.waitForSelector('#app[data-ready]');
      const wallMs = Date.now() - t0;
      const interactiveMs = await page.evaluate(() => performance.getEntriesByName('svc:interactive')[0]?.startTime ?? -1);
      if (run > 0) loads.push({ interactiveMs: Math.round(interactiveMs), wallMs }); // run 0 warms the server
      await context.close();
    }
    const sorted = (k: 'interactiveMs' | 'wallMs') => loads.map((l) => l[k]).sort((a, b) => a - b);
    result.load = {
      interactiveMs: { median: sorted('interactiveMs')[1], max: sorted('interactiveMs').at(-1) },
      gotoToReadyMs: { median: sorted('wallMs')[1], max: sorted('wallMs').at(-1) },
      target: 'interactive < 1000 ms',
    };

    // ── 2. scroll through all messages ────────────────────────────────────────────────
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/messages?')) requests.push(r.url());
    });
    await page.goto(server.url);
    await page.waitForSelector('#app[data-ready]');
    await installObservers(page);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const firstId = chat.messages.page(sessionId, { limit: MESSAGES }).messages[0]!.id;
    await sleep(300);
    let t = await now(page);
    let f = await frameCount(page);
    const scrollStart = Date.now();
    // wheel upwards like a user flinging the list, until the first message is on screen
    for (let i = 0; i < 20_000; i++) {
      const done = await page.evaluate((id) => {
        const scroller = document.querySelector('.vl-scroller')!;
        const row = document.querySelector(`[data-message-id="${id}"]`);
        if (row && scroller.scrollTop < 5) return true;
        scroller.scrollTop = Math.max(0, scroller.scrollTop - 2400);
        return false;
      }, firstId);
      if (done) break;
      await page.waitForTimeout(16);
    }
    const upMs = Date.now() - scrollStart;
    const up = { ...(await window_(page, t, await now(page))), ...(await frameStats(page, f)) };
    t = await now(page);
    f = await frameCount(page);
    const downStart = Date.now();
    for (let i = 0; i < 20_000; i++) {
      const done = await page.evaluate(() => {
        const s = document.querySelector('.vl-scroller')!;
        if (s.scrollTop + s.clientHeight >= s.scrollHeight - 2) return true;
        s.scrollTop += 2400;
        return false;
      });
      if (done) break;
      await page.waitForTimeout(16);
    }
    const downMs = Date.now() - downStart;
    const down = { ...(await window_(page, t, await now(page))), ...(await frameStats(page, f)) };
    result.scroll = {
      pageRequests: requests.length,
      up: { ms: upMs, ...up },
      down: { ms: downMs, ...down },
      domRows: await page.locator('.vl-row').count(),
      heapAfterScrollMb: await heapMb(page, cdp),
    };

    // ── 3. stream a 1 MB answer ───────────────────────────────────────────────────────
    const heapBefore = await heapMb(page, cdp);
    const chunks = longAnswer(ANSWER_BYTES);
    const text = chunks.join('');
    const traceId = 'tr_bench_stream_0001';
    await sleep(300);
    t = await now(page);
    f = await frameCount(page);
    const streamStart = Date.now();
    bus.publish('agent_status', { status: 'running', traceId, provider: 'claude', model: 'bench' });
    // ~1 MB in ~8 s: 5,000+ chunks, a few per millisecond burst, like a fast model
    const perTick = 6;
    let offset = 0;
    for (let i = 0; i < chunks.length; i += perTick) {
      for (const chunk of chunks.slice(i, i + perTick)) {
        bus.publish('agent_output', { traceId, content: chunk, offset });
        offset += chunk.length;
      }
      await sleep(8);
    }
    const publishedMs = Date.now() - streamStart;
    // wait until the page has rendered all of it
    await page.waitForFunction(
      (id) => (document.querySelector(`[data-trace-id="${id}"] .md`)?.lastElementChild?.textContent ?? '').includes('svc-bench-sentinel'),
      traceId,
      { timeout: 120_000, polling: 100 },
    );
    const renderedMs = Date.now() - streamStart;
    const tStreamEnd = await now(page);
    const streaming = { ...(await window_(page, t, tStreamEnd)), ...(await frameStats(page, f)) };
    f = await frameCount(page);
    const message = chat.saveMessage({ sessionId, role: 'assistant', content: text });
    bus.publish('agent_done', { traceId, status: 'ok', text, provider: 'claude', messageId: message.id, toolLog: [], durationMs: renderedMs });
    bus.publish('agent_status', { status: 'done', traceId, provider: 'claude' });
    await page.waitForFunction((id) => document.querySelector(`[data-trace-id="${id}"]`)?.getAttribute('data-status') === 'ok', traceId, { timeout: 60_000 });
    await sleep(1000);
    const afterDone = { ...(await window_(page, tStreamEnd, await now(page))), ...(await frameStats(page, f)) };
    const heapAfter = await heapMb(page, cdp);
    result.stream = {
      answerBytes: text.length,
      events: chunks.length,
      publishMs: publishedMs,
      renderedAllMs: renderedMs,
      whileStreaming: streaming,
      afterDone,
      heapBeforeMb: heapBefore,
      heapAfterMb: heapAfter,
      target: 'no long tasks while streaming',
    };
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(JSON.stringify(result, null, 2));
}

await main();
