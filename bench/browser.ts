// Browser benchmark. Prints one JSON document.
//   node --import tsx bench/browser.ts [--rows 1000] [--iterations 200] [--snapshots 60] [--inprocess]
// A page with 5,000 elements (1,000 rows of label, text field, button, link, checkbox). Each operation is
// timed two ways in the same run, interleaved sample by sample:
//   http:   through the browser server's HTTP API (the server in its own process, as `svc browser serve`
//           runs it; this process is the client, over keep-alive loopback HTTP). With --inprocess the
//           server runs inside this process instead (same HTTP path, no cross-process scheduling);
//   direct: the same operation with playwright-core in this one process, on a second Chromium launched
//           the same way (locator.click / locator.fill; for snapshot, our own capture code run in-process).
// Also reported, for scale: Playwright's own AI snapshot (page.ariaSnapshot({ mode: 'ai' })) on that page.
// Target: http p50 and p99 within 1.3x of direct.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BrowserClient } from '../src/modules/automation/browser/client.ts';
import { launchBrowser } from '../src/modules/automation/browser/launcher.ts';
import { RefRegistry } from '../src/modules/automation/browser/refs.ts';
import { startBrowserServer } from '../src/servers/browser.ts';
import { captureSnapshot, formatSnapshot } from '../src/modules/automation/browser/snapshot.ts';
import { startSite } from '../test/fixtures/browser/site.ts';
import { ratio, summarize } from './support/stats.ts';
import { freePort } from '../test/support/ports.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const ROWS = opt('--rows', 1000);
const ITER = opt('--iterations', 200);
const SNAPS = opt('--snapshots', 60);
const WARMUP = 10;
const TARGET = 1.3;
const INPROCESS = args.includes('--inprocess');


const time = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

/** Run both sides alternately (order flipped every round), WARMUP rounds untimed. */
async function pair(n: number, http: () => Promise<unknown>, direct: () => Promise<unknown>) {
  const h: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < n + WARMUP; i++) {
    const first = i % 2 === 0;
    const a = first ? await time(http) : await time(direct);
    const b = first ? await time(direct) : await time(http);
    if (i < WARMUP) continue;
    h.push(first ? a : b);
    d.push(first ? b : a);
  }
  const hs = summarize(h);
  const ds = summarize(d);
  return { http: hs, direct: ds, ratio_p50: ratio(hs.p50, ds.p50), ratio_p99: ratio(hs.p99, ds.p99) };
}

const site = await startSite();
const home = mkdtempSync(join(tmpdir(), 'svc-bench-browser-'));
const directProfile = mkdtempSync(join(tmpdir(), 'svc-bench-direct-'));
const port = await freePort();
const inproc = INPROCESS ? await startBrowserServer({ port, home }) : null;
const client = new BrowserClient({
  port,
  spawn: {
    command: process.execPath,
    args: ['--import', 'tsx', join(import.meta.dirname, '../src/cli/main.ts'), 'browser', 'serve', '--port', String(port), '--home', home, '--parent-pid', String(process.pid)],
  },
});
const direct = await launchBrowser({ profileDir: directProfile, headless: true });
const browser = await chromium.connectOverCDP(direct.wsEndpoint);

try {
  const url = `${site.url}/big?rows=${ROWS}`;
  const row = Math.floor(ROWS / 2);

  // HTTP side: open the page, take a snapshot, find the refs of the row in the middle.
  await client.act({ action: 'open', url });
  const snap = await client.snapshot();
  const refFor = (line: string) => new RegExp(`${line} \\[ref=(e\\d+)\\]`).exec(snap.text)![1]!;
  const buttonRef = refFor(`button "Button ${row}"`);
  const fieldRef = refFor(`textbox "Field ${row}"`);
  const elements = (await client.act({ action: 'eval', script: "document.querySelectorAll('main .row > *').length" })).result as number;
  const containers = (await client.act({ action: 'eval', script: "document.querySelectorAll('main .row').length" })).result as number;

  // Direct side.
  const page = browser.contexts()[0]!.pages()[0]!;
  await page.goto(url);
  const refs = new RefRegistry();
  const button = page.locator(`#b${row}`);
  const field = page.locator(`#i${row}`);

  const click = await pair(ITER, () => client.act({ action: 'click', target: buttonRef }), () => button.click());
  let n = 0;
  const type = await pair(
    ITER,
    () => client.act({ action: 'type', target: fieldRef, text: `hello ${n++}` }),
    () => field.fill(`hello ${n++}`),
  );
  const snapshot = await pair(
    SNAPS,
    () => client.snapshot(),
    async () => formatSnapshot((await captureSnapshot(page, refs, 't1')).nodes),
  );
  const health: number[] = [];
  for (let i = 0; i < 200; i++) health.push(await time(() => client.health()));
  const pwAi: number[] = [];
  for (let i = 0; i < Math.min(SNAPS, 30); i++) pwAi.push(await time(() => page.ariaSnapshot({ mode: 'ai' })));

  const clicksHttp = (await client.act({ action: 'eval', script: 'window.clicks' })).result;
  const clicksDirect = await page.evaluate('window.clicks');
  const results = { click_by_ref: click, type, snapshot };
  const worst = Math.max(...Object.values(results).flatMap((r) => [r.ratio_p50, r.ratio_p99]));
  console.log(
    JSON.stringify(
      {
        bench: 'browser',
        server: INPROCESS ? 'in this process' : 'child process',
        page: { rows: ROWS, elements, rowContainers: containers, snapshotLines: snap.lines, snapshotRefs: snap.refs },
        iterations: { click: ITER, type: ITER, snapshot: SNAPS, warmup: WARMUP },
        unit: 'ms',
        results,
        reference: { http_roundtrip_health: summarize(health), playwright_ariaSnapshot_ai: summarize(pwAi) },
        check: { clicksHttp, clicksDirect },
        target_ratio: TARGET,
        worst_ratio: worst,
        pass: worst <= TARGET,
      },
      null,
      2,
    ),
  );
} finally {
  if (inproc) await inproc.close();
  else await client.shutdown().catch(() => undefined);
  client.close();
  await browser.close().catch(() => undefined);
  await direct.kill();
  await site.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(directProfile, { recursive: true, force: true });
}
