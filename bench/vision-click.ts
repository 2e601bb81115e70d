// vision-click benchmark. Prints one JSON document.
//   node --import tsx bench/vision-click.ts [--iterations 10]
// On the canvas fixture page (buttons that exist only as pixels), through the real browser server:
// - ocr: the offline locator — cold start (worker + English data), OCR pre-pass, warm locate, at DPR 1 and 2;
// - flow: a whole /vision-click (capture → locate → map → click) with the OCR locator and with a loopback
//   OpenAI-compatible endpoint (the fake vision server: its own time is tiny), next to the bare `mouse`
//   action it ends with, so the skill's own overhead (capture + locate) is visible;
// - pure: answer parsing and coordinate mapping throughput.
// No pass/fail: figures only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserClient } from '../src/modules/automation/browser/client.ts';
import { startBrowserServer } from '../src/servers/browser.ts';
import { parseLocateAnswer } from '../src/modules/automation/vision-click/answer.ts';
import { clickPoint } from '../src/modules/automation/vision-click/geometry.ts';
import { decodePng, ocrImage } from '../src/modules/automation/vision-click/image.ts';
import { OcrEngine, OcrLocator } from '../src/modules/automation/vision-click/locators/ocr.ts';
import { createVisionClickService } from '../src/modules/automation/vision-click/vision-click.service.ts';
import { DEFAULT_VISION_SETTINGS } from '../src/modules/automation/vision-click/settings.ts';
import { startFakeVision } from '../test/fixtures/vision-click/fake-vision.ts';
import { buttonViewportBox, startVisionSite } from '../test/fixtures/vision-click/site.ts';
import { summarize } from './support/stats.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const ITER = opt('--iterations', 10);

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}

const site = await startVisionSite();
const fake = await startFakeVision();
const out: Record<string, unknown> = { iterations: ITER };
const homes: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

try {
  for (const dpr of [1, 2]) {
    const home = mkdtempSync(join(tmpdir(), 'svc-vision-bench-'));
    homes.push(home);
    const server = await startBrowserServer({ port: 0, home, headless: true, extraArgs: dpr === 2 ? ['--force-device-scale-factor=2'] : [] });
    const client = new BrowserClient({ port: server.port });
    cleanups.push(async () => {
      client.close();
      await server.close();
    });
    await client.act({ action: 'open', url: `${site.url}/canvas` });
    const shot = await client.act({ action: 'screenshot' });
    const png = readFileSync(join(home, 'media', shot.filename));
    const raster = decodePng(png);

    // OCR: cold start, pre-pass, warm locate.
    const engine = new OcrEngine({ idleMs: 0 });
    const ocr = new OcrLocator(engine);
    const [coldMs] = await time(() => ocr.locate({ png, width: raster.width, height: raster.height, description: 'Launch', scale: dpr }));
    const prepass: number[] = [];
    const locate: number[] = [];
    for (let i = 0; i < ITER; i++) {
      const t = performance.now();
      ocrImage(raster, dpr);
      prepass.push(performance.now() - t);
      const [ms, a] = await time(() => ocr.locate({ png, width: raster.width, height: raster.height, description: 'Cancel order', scale: dpr }));
      if (!a.found) throw new Error('OCR did not find "Cancel order"');
      locate.push(ms);
    }
    await ocr.close();

    // The whole flow, and the bare action it ends with.
    const settings = { ...DEFAULT_VISION_SETTINGS, baseUrl: `${fake.url}/v1`, model: 'bench', keepScreenshots: false };
    const service = createVisionClickService({ settings: () => settings, mediaDir: join(home, 'media'), browser: client });
    cleanups.push(() => service.close());
    const flowOcr: number[] = [];
    const flowModel: number[] = [];
    const bare: number[] = [];
    const launch = buttonViewportBox('Launch');
    await service.run({ action: 'click', description: 'Launch', locator: 'ocr' });
    for (let i = 0; i < ITER; i++) {
      flowOcr.push((await time(() => service.run({ action: 'click', description: 'Launch', locator: 'ocr' })))[0]);
      flowModel.push((await time(() => service.run({ action: 'click', description: 'the blue button', locator: 'openai' })))[0]);
      bare.push((await time(() => client.act({ action: 'mouse', x: launch.x + 10, y: launch.y + 10 })))[0]);
    }
    out[`dpr${dpr}`] = {
      screenshot: { width: raster.width, height: raster.height, bytes: png.length },
      ocr: { coldStartMs: Math.round(coldMs), prepassMs: summarize(prepass, 1), locateMs: summarize(locate, 1) },
      flowMs: { ocr: summarize(flowOcr, 1), openaiLoopback: summarize(flowModel, 1), bareMouseAction: summarize(bare, 1) },
    };
  }

  // Pure functions.
  const answer = 'Here it is:\n```json\n{"found":true,"box":{"x":320,"y":260,"width":150,"height":48},"confidence":0.93,"label":"Launch"}\n```';
  let n = 0;
  let t = performance.now();
  while (performance.now() - t < 300) {
    for (let i = 0; i < 1000; i++) parseLocateAnswer(answer, { width: 1280, height: 720 });
    n += 1000;
  }
  const parsePerSec = Math.round(n / ((performance.now() - t) / 1000));
  n = 0;
  t = performance.now();
  const m = { scale: 2, origin: { x: 40, y: 390 }, scroll: { x: 0, y: 0 } };
  while (performance.now() - t < 300) {
    for (let i = 0; i < 10_000; i++) clickPoint({ x: i % 500, y: 40, width: 30, height: 20 }, m);
    n += 10_000;
  }
  out.pure = { parseLocateAnswerPerSec: parsePerSec, clickPointPerSec: Math.round(n / ((performance.now() - t) / 1000)) };
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await site.close();
  await fake.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
console.log(JSON.stringify(out, null, 2));
