// vision-click against real headless Chromium through the real browser server: buttons that exist only as
// canvas pixels, found by OCR and by a fake OpenAI-compatible vision endpoint that really looks at the
// image it receives; DPR 1 and DPR 2 pages (read alike by OCR), region captures, scrolled pages; not-found and
// low-confidence answers click nothing; the HTTP route and the slash command.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { BrowserClient } from '../../../../src/modules/automation/browser/client.ts';
import { startBrowserServer, type BrowserServer } from '../../../../src/servers/browser.ts';
import { moduleServer } from '../../../support/kit.ts';
import { AppError } from '../../../../src/core/errors.ts';
import { visionClickRoutes } from '../../../../src/modules/automation/vision-click/vision-click.routes.ts';
import { runVisionClickCommand } from '../../../../src/modules/automation/vision-click/commands.ts';
import { createVisionClickService, type VisionClickService } from '../../../../src/modules/automation/vision-click/vision-click.service.ts';
import { DEFAULT_VISION_SETTINGS, type VisionSettings } from '../../../../src/modules/automation/vision-click/settings.ts';
import type { Box, Point, VisionRequest } from '../../../../src/modules/automation/vision-click/types.ts';
import { startFakeVision, type FakeVision } from '../../../fixtures/vision-click/fake-vision.ts';
import { buttonViewportBox, CANVAS_TOP, CHECKOUT_BUTTON, startVisionSite, type PointerEvent, type VisionSite } from '../../../fixtures/vision-click/site.ts';

interface Rig {
  home: string;
  server: BrowserServer;
  client: BrowserClient;
  service: VisionClickService;
  settings: VisionSettings;
}

let site: VisionSite;
let fake: FakeVision;
let dpr1: Rig;
let dpr2: Rig;

async function startRig(extraArgs: string[]): Promise<Rig> {
  const home = mkdtempSync(join(tmpdir(), 'svc-vision-test-'));
  const server = await startBrowserServer({ port: 0, home, headless: true, extraArgs });
  const client = new BrowserClient({ port: server.port });
  const settings: VisionSettings = { ...DEFAULT_VISION_SETTINGS, baseUrl: `${fake.url}/v1`, model: 'fake-vision-1', apiKey: 'sk-test-123', timeoutSec: 20 };
  const service = createVisionClickService({ settings: () => settings, mediaDir: join(home, 'media'), browser: client });
  return { home, server, client, service, settings };
}

async function openCanvas(rig: Rig, top = CANVAS_TOP): Promise<void> {
  await rig.client.act({ action: 'open', url: `${site.url}/canvas?top=${top}` });
}

async function events(rig: Rig): Promise<PointerEvent[]> {
  const r = await rig.client.act({ action: 'eval', script: 'window.__events' });
  return r.result as PointerEvent[];
}

async function clearEvents(rig: Rig): Promise<void> {
  await rig.client.act({ action: 'eval', script: 'window.__events.length = 0' });
}

const inBox = (p: Point, b: Box) => p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height;

async function rejects(p: Promise<unknown>, status: number, code: string): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof AppError, `expected AppError ${code}, got ${caught === undefined ? 'success' : String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.status, status, caught.message);
  return caught;
}

const run = (rig: Rig, r: VisionRequest) => rig.service.run(r);

describe('vision-click: browser target', { timeout: 300_000 }, () => {
  before(async () => {
    [site, fake] = await Promise.all([startVisionSite(), startFakeVision()]);
    [dpr1, dpr2] = await Promise.all([startRig([]), startRig(['--force-device-scale-factor=2'])]);
  });
  after(async () => {
    for (const rig of [dpr1, dpr2]) {
      if (!rig) continue;
      await rig.service.close();
      rig.client.close();
      await rig.server.close();
      rmSync(rig.home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    }
    await site?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.confidence = 0.93;
    fake.answer = null;
    fake.status = 200;
    for (const rig of [dpr1, dpr2]) Object.assign(rig.settings, { model: 'fake-vision-1', baseUrl: `${fake.url}/v1`, maxImageSide: DEFAULT_VISION_SETTINGS.maxImageSide });
  });

  test('OCR: clicks a button that exists only as canvas pixels', async () => {
    await openCanvas(dpr1);
    const r = await run(dpr1, { action: 'click', description: 'the "Launch" button', locator: 'ocr' });
    const launch = buttonViewportBox('Launch');
    assert.equal(r.found, true);
    assert.equal(r.acted, true);
    assert.equal(r.locator, 'ocr');
    assert.equal(r.label, 'Launch');
    assert.ok(inBox(r.point!, launch), `point ${JSON.stringify(r.point)} outside Launch ${JSON.stringify(launch)}`);
    assert.ok((r.confidence ?? 0) >= 0.8, `confidence ${r.confidence}`);
    assert.equal(r.mapping.scale, 1);
    const clicks = (await events(dpr1)).filter((e) => e.type === 'click');
    assert.equal(clicks.length, 1);
    assert.equal(clicks[0]!.hit, 'Launch');
    assert.deepEqual({ x: clicks[0]!.x, y: clicks[0]!.y }, { x: Math.floor(r.point!.x), y: Math.floor(r.point!.y) });
    assert.ok(r.screenshot && existsSync(join(dpr1.home, 'media', r.screenshot)), 'the screenshot is kept in media');
  });

  test('OCR: --double, --right and --hover give dblclick, contextmenu and a bare pointer move', async () => {
    await openCanvas(dpr1);
    await run(dpr1, { action: 'double', description: 'Archive', locator: 'ocr' });
    let ev = await events(dpr1);
    assert.deepEqual(ev.filter((e) => e.type === 'dblclick').map((e) => e.hit), ['Archive']);
    await clearEvents(dpr1);
    await run(dpr1, { action: 'right', description: 'Cancel order', locator: 'ocr' });
    ev = await events(dpr1);
    assert.deepEqual(ev.filter((e) => e.type === 'contextmenu').map((e) => [e.hit, e.button]), [['Cancel order', 2]]);
    assert.equal(ev.filter((e) => e.type === 'click').length, 0, 'a right-click is not a click');
    await clearEvents(dpr1);
    const h = await run(dpr1, { action: 'hover', description: 'Launch', locator: 'ocr' });
    ev = await events(dpr1);
    assert.equal(ev.filter((e) => e.type !== 'mousemove').length, 0, `hover only moves: ${JSON.stringify(ev)}`);
    assert.equal(ev.at(-1)?.hit, 'Launch');
    assert.ok(inBox(h.point!, buttonViewportBox('Launch')));
  });

  test('OpenAI-compatible endpoint: the request carries the image and the model; the click lands', async () => {
    await openCanvas(dpr1);
    const before = fake.requests.length;
    const r = await run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' });
    const req = fake.requests.slice(before);
    assert.equal(req.length, 1);
    assert.equal(req[0]!.path, '/v1/chat/completions');
    assert.equal(req[0]!.body.model, 'fake-vision-1');
    assert.equal(req[0]!.headers.authorization, 'Bearer sk-test-123');
    const vp = (await dpr1.client.act({ action: 'eval', script: '({w: innerWidth, h: innerHeight})' })).result as { w: number; h: number };
    assert.deepEqual(req[0]!.image, { width: vp.w, height: vp.h, mime: 'image/png' });
    assert.match(req[0]!.prompt ?? '', new RegExp(`${vp.w}x${vp.h} pixels`));
    assert.match(req[0]!.prompt ?? '', /the blue button/);
    assert.equal(r.locator, 'openai');
    assert.equal(r.confidence, 0.93);
    assert.ok(inBox(r.point!, buttonViewportBox('Launch')));
    assert.deepEqual((await events(dpr1)).filter((e) => e.type === 'click').map((e) => e.hit), ['Launch']);
  });

  test('DPR 2: a 2x screenshot maps back to CSS pixels (OCR, and a model sent a downscaled image)', async () => {
    await openCanvas(dpr2);
    const dpr = (await dpr2.client.act({ action: 'eval', script: 'devicePixelRatio' })).result;
    assert.equal(dpr, 2, 'the second browser renders at DPR 2');
    const o = await run(dpr2, { action: 'click', description: '"Cancel order"', locator: 'ocr' });
    assert.equal(o.mapping.scale, 2);
    assert.ok(o.mapping.image.width >= 2000, `screenshot is ${o.mapping.image.width}px wide`);
    assert.ok(inBox(o.point!, buttonViewportBox('Cancel order')), JSON.stringify(o.point));
    // Image box is in device pixels: twice the CSS box.
    assert.ok(Math.abs(o.imageBox!.x / 2 - o.box!.x) < 0.01);

    const before = fake.requests.length;
    const m = await run(dpr2, { action: 'click', description: 'the green button', locator: 'openai' });
    const sent = fake.requests[before]!.image!;
    assert.equal(sent.width, dpr2.settings.maxImageSide, 'scaled down to vision.maxImageSide');
    assert.ok(Math.abs(m.mapping.scale - (2 * sent.width) / m.mapping.image.width) < 0.002, JSON.stringify(m.mapping));
    assert.ok(inBox(m.point!, buttonViewportBox('Archive')), JSON.stringify(m.point));
    // And sent as captured when downscaling is off.
    dpr2.settings.maxImageSide = 0;
    const n = await run(dpr2, { action: 'click', description: 'the blue button', locator: 'openai' });
    assert.equal(fake.requests.at(-1)!.image!.width, n.mapping.image.width);
    assert.equal(n.mapping.scale, 2);
    assert.ok(inBox(n.point!, buttonViewportBox('Launch')));
    assert.deepEqual(
      (await events(dpr2)).filter((e) => e.type === 'click').map((e) => e.hit),
      ['Cancel order', 'Archive', 'Launch'],
    );
  });

  test('region: a region capture is mapped from its own top-left (DPR 1 and DPR 2)', async () => {
    await openCanvas(dpr1);
    const region = { x: 480, y: 380, width: 300, height: 120 };
    const r = await run(dpr1, { action: 'click', description: 'Cancel order', locator: 'ocr', region });
    assert.deepEqual(r.mapping.origin, { x: 480, y: 380 });
    assert.deepEqual(r.mapping.image, { width: 300, height: 120 });
    assert.ok(r.imageBox!.x < 300 && r.imageBox!.y < 120, 'the locator saw region pixels');
    assert.ok(inBox(r.point!, buttonViewportBox('Cancel order')), JSON.stringify(r.point));
    assert.deepEqual((await events(dpr1)).filter((e) => e.type === 'click').map((e) => e.hit), ['Cancel order']);

    await openCanvas(dpr2);
    const before = fake.requests.length;
    const g = await run(dpr2, { action: 'click', description: 'the green button', locator: 'openai', region: { x: 40, y: 390, width: 220, height: 90 } });
    assert.deepEqual(fake.requests[before]!.image, { width: 440, height: 180, mime: 'image/png' });
    assert.deepEqual(g.mapping.origin, { x: 40, y: 390 });
    assert.ok(inBox(g.point!, buttonViewportBox('Archive')), JSON.stringify(g.point));
    assert.deepEqual((await events(dpr2)).filter((e) => e.type === 'click').map((e) => e.hit), ['Archive']);

    // A region that leaves the target out: not found, nothing clicked.
    await clearEvents(dpr1);
    await rejects(run(dpr1, { action: 'click', description: 'Launch', locator: 'ocr', region: { x: 0, y: 0, width: 700, height: 120 } }), 404, 'TARGET_NOT_FOUND');
    assert.deepEqual(await events(dpr1), []);
    await rejects(run(dpr1, { action: 'click', description: 'Launch', locator: 'ocr', region: { x: 5000, y: 0, width: 10, height: 10 } }), 400, 'INVALID_REGION');
  });

  test('scrolled page: the viewport capture maps to viewport coordinates', async () => {
    await openCanvas(dpr1, 900);
    await dpr1.client.act({ action: 'eval', script: 'window.scrollTo(0, 800)' });
    const r = await run(dpr1, { action: 'click', description: 'Launch', locator: 'ocr' });
    const launch = buttonViewportBox('Launch', 900, 800);
    assert.ok(inBox(r.point!, launch), `point ${JSON.stringify(r.point)} vs ${JSON.stringify(launch)}`);
    assert.deepEqual((await events(dpr1)).filter((e) => e.type === 'click').map((e) => e.hit), ['Launch']);
  });

  test('not found: nothing is clicked and the report says what was seen', async () => {
    await openCanvas(dpr1);
    const e = await rejects(run(dpr1, { action: 'click', description: 'Submit payment', locator: 'ocr' }), 404, 'TARGET_NOT_FOUND');
    assert.match(String(e.details?.seen), /Launch/);
    assert.match(e.message, /Nothing was clicked/);
    assert.equal(e.details?.acted, false);
    const m = await rejects(run(dpr1, { action: 'right', description: 'the purple button', locator: 'openai' }), 404, 'TARGET_NOT_FOUND');
    assert.match(String(m.details?.seen), /none of that colour/);
    // A model box outside the image is not found either, never a click elsewhere.
    fake.answer = '{"found":true,"box":{"x":9000,"y":10,"width":40,"height":20},"confidence":0.99}';
    const o = await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 404, 'TARGET_NOT_FOUND');
    assert.match(String(o.details?.reason), /outside/);
    assert.deepEqual(await events(dpr1), [], 'no pointer event at all');
  });

  test('OCR near misses: a label sharing one word with the target ("Cancel order") is never clicked', async () => {
    await openCanvas(dpr1);
    for (const description of ['"Edit order"', '"Cancel payment"', 'the Order cancel button']) {
      const e = await run(dpr1, { action: 'click', description, locator: 'ocr' }).then(() => undefined, (err: unknown) => err);
      assert.ok(e instanceof AppError && ['LOW_CONFIDENCE', 'TARGET_NOT_FOUND'].includes(e.code), `${description}: ${String(e)}`);
      assert.ok(Number(e.details?.confidence ?? 0) < 0.3, `${description}: confidence ${e.details?.confidence}`);
    }
    assert.deepEqual(await events(dpr1), [], 'nothing was clicked');
    const hit = await run(dpr1, { action: 'click', description: '"Cancel order"', locator: 'ocr' });
    assert.equal(hit.acted, true);
    assert.deepEqual((await events(dpr1)).filter((x) => x.type === 'click').map((x) => x.hit), ['Cancel order']);
  });

  test('DPR 1 and 2 read alike: a large "Submit order" is clicked at both; "Submit payment" is refused at both', async () => {
    for (const [name, rig] of [['DPR 1', dpr1], ['DPR 2', dpr2]] as const) {
      await rig.client.act({ action: 'open', url: `${site.url}/checkout` });
      // the near miss: one word of two in common with the button, never clicked
      const miss = await run(rig, { action: 'click', description: '"Submit payment"', locator: 'ocr' }).then(() => undefined, (err: unknown) => err);
      assert.ok(miss instanceof AppError && ['LOW_CONFIDENCE', 'TARGET_NOT_FOUND'].includes(miss.code), `${name}: ${String(miss)}`);
      assert.ok(Number(miss.details?.confidence ?? 0) < 0.3, `${name}: confidence ${miss.details?.confidence}`);
      assert.deepEqual(await events(rig), [], `${name}: nothing was clicked`);
      const hit = await run(rig, { action: 'click', description: `"${CHECKOUT_BUTTON}"`, locator: 'ocr' }).catch((err: unknown) => assert.fail(`${name}: ${String(err)} ${JSON.stringify((err as AppError).details)}`));
      assert.equal(hit.acted, true, name);
      assert.equal(hit.label, CHECKOUT_BUTTON, name);
      assert.ok((hit.confidence ?? 0) >= 0.8, `${name}: confidence ${hit.confidence}`);
      assert.deepEqual((await events(rig)).filter((e) => e.type === 'click').map((e) => e.hit), [CHECKOUT_BUTTON], name);
    }
  });

  test('low confidence: nothing is clicked below the threshold; above it the click happens', async () => {
    await openCanvas(dpr1);
    fake.confidence = 0.3;
    const e = await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 422, 'LOW_CONFIDENCE');
    assert.equal(e.details?.confidence, 0.3);
    assert.equal(e.details?.minConfidence, 0.5);
    assert.ok(inBox(e.details?.point as Point, buttonViewportBox('Launch')), 'the report says where it would have clicked');
    assert.deepEqual(await events(dpr1), []);
    // A model that gives no confidence counts as 0.
    fake.answer = '{"found":true,"box":[320,260,470,308]}';
    await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 422, 'LOW_CONFIDENCE');
    assert.deepEqual(await events(dpr1), []);
    fake.answer = null;
    const ok = await run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai', minConfidence: 0.2 });
    assert.equal(ok.acted, true);
    assert.deepEqual((await events(dpr1)).filter((x) => x.type === 'click').map((x) => x.hit), ['Launch']);
  });

  test('--dry-run finds and reports without acting', async () => {
    await openCanvas(dpr1);
    const r = await run(dpr1, { action: 'click', description: 'Launch', locator: 'ocr', dryRun: true });
    assert.equal(r.found, true);
    assert.equal(r.acted, false);
    assert.ok(inBox(r.point!, buttonViewportBox('Launch')));
    assert.deepEqual(await events(dpr1), []);
  });

  test('--describe: OCR lists the visible text with positions; a model describes in its words', async () => {
    await openCanvas(dpr1);
    const o = await run(dpr1, { action: 'describe', locator: 'ocr' });
    assert.equal(o.acted, false);
    assert.match(o.description ?? '', /"Launch" at (\d+),(\d+)/);
    const [, x, y] = /"Launch" at (\d+),(\d+)/.exec(o.description!)!;
    assert.ok(inBox({ x: Number(x) + 5, y: Number(y) + 5 }, buttonViewportBox('Launch')), 'positions are page coordinates');
    assert.match(o.description ?? '', /Cancel order/);
    fake.answer = '```\nA mission-control page drawn on a canvas with a blue Launch button.\n```';
    const m = await run(dpr1, { action: 'describe', locator: 'openai', description: 'the buttons' });
    assert.equal(m.description, 'A mission-control page drawn on a canvas with a blue Launch button.');
    assert.match(fake.requests.at(-1)!.prompt ?? '', /Focus on: the buttons/);
    assert.deepEqual(await events(dpr1), []);
  });

  test('vision endpoint failures are clear errors and click nothing', async () => {
    await openCanvas(dpr1);
    fake.status = 503;
    const e = await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 502, 'VISION_MODEL_ERROR');
    assert.match(e.message, /HTTP 503/);
    fake.status = 200;
    dpr1.settings.baseUrl = 'http://127.0.0.1:9/v1';
    await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 503, 'VISION_MODEL_UNREACHABLE');
    dpr1.settings.baseUrl = `${fake.url}/v1`;
    dpr1.settings.model = '';
    await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 400, 'VISION_NOT_CONFIGURED');
    fake.answer = 'Sure! The button is in the middle of the page.';
    dpr1.settings.model = 'fake-vision-1';
    await rejects(run(dpr1, { action: 'click', description: 'the blue button', locator: 'openai' }), 502, 'VISION_BAD_ANSWER');
    assert.deepEqual(await events(dpr1), []);
  });

  test('POST /api/vision-click and the /vision-click command', async () => {
    await openCanvas(dpr1);
    const app: FastifyInstance = await moduleServer((a) => a.register(visionClickRoutes, { service: dpr1.service }));
    try {
      const ok = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { description: 'Launch', locator: 'ocr' } });
      assert.equal(ok.statusCode, 200, ok.body);
      const body = ok.json() as { action: string; found: boolean; point: Point; box: Box; confidence: number; locator: string; screenshot: string };
      assert.equal(body.action, 'click');
      assert.equal(body.found, true);
      assert.equal(body.locator, 'ocr');
      assert.ok(inBox(body.point, buttonViewportBox('Launch')));
      assert.match(body.screenshot, /\.png$/);

      const right = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { command: '/vision-click --right --locator ocr "Cancel order"' } });
      assert.equal(right.statusCode, 200, right.body);
      const flag = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { description: 'Archive', double: true, locator: 'ocr', region: '40,390,220,90' } });
      assert.equal(flag.statusCode, 200, flag.body);
      const ev = await events(dpr1);
      assert.deepEqual(ev.filter((e) => e.type === 'contextmenu').map((e) => e.hit), ['Cancel order']);
      assert.deepEqual(ev.filter((e) => e.type === 'dblclick').map((e) => e.hit), ['Archive']);

      await clearEvents(dpr1);
      const missing = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { description: 'Submit payment', locator: 'ocr' } });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error, 'TARGET_NOT_FOUND');
      assert.match(missing.json().seen, /Launch/);
      for (const payload of [{ description: 'x', double: true, right: true }, { description: 'x', region: '1,2,3' }, { bogus: 1 }, {}, { command: '/vision-click --bogus x' }, { command: 'x', target: 'desktop' }, { description: 'x', minConfidence: 2 }]) {
        const bad = await app.inject({ method: 'POST', url: '/api/vision-click', payload });
        assert.equal(bad.statusCode, 400, `${JSON.stringify(payload)} → ${bad.body}`);
        assert.match(bad.json().error, /^[A-Z_]+$/);
      }
      assert.deepEqual(await events(dpr1), [], 'bad requests click nothing');
    } finally {
      await app.close();
    }
    const out = await runVisionClickCommand('/vision-click --locator ocr "Launch"', { service: dpr1.service });
    assert.match(out.text, /^Clicked "Launch" at \(\d+(\.\d+)?, \d+(\.\d+)?\) on the page/);
    assert.deepEqual((await events(dpr1)).filter((e) => e.type === 'click').map((e) => e.hit), ['Launch']);
  });
});
