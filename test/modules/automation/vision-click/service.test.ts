// The flow with stand-in targets and locators: mapping applied to the action, and the gates that keep
// anything from being clicked (not found, outside the capture, low or missing confidence, dry run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../../src/core/errors.ts';
import { encodePng } from '../../../../src/modules/automation/vision-click/image.ts';
import { createVisionClickService } from '../../../../src/modules/automation/vision-click/vision-click.service.ts';
import { DEFAULT_VISION_SETTINGS, type VisionSettings } from '../../../../src/modules/automation/vision-click/settings.ts';
import type { Box, Capture, LocateAnswer, LocateInput, Locator, Point, PointerAction, VisionTarget } from '../../../../src/modules/automation/vision-click/types.ts';

function png(width: number, height: number): Buffer {
  return encodePng({ width, height, data: Buffer.alloc(width * height * 4, 255) });
}

class FakeTarget implements VisionTarget {
  readonly kind = 'browser' as const;
  log: string[] = [];
  performed: { action: PointerAction; point: Point; tab?: string }[] = [];
  constructor(public capture_: Omit<Capture, 'png'> & { png?: Buffer }) {}
  async capture(opts: { region?: Box; tab?: string }): Promise<Capture> {
    this.log.push(`capture ${JSON.stringify(opts)}`);
    await new Promise((r) => setTimeout(r, 5));
    return { png: png(this.capture_.width, this.capture_.height), ...this.capture_ };
  }
  async perform(action: PointerAction, point: Point, opts: { tab?: string }): Promise<void> {
    this.log.push(`perform ${action}`);
    this.performed.push({ action, point, ...opts });
  }
}

class FakeLocator implements Locator {
  inputs: LocateInput[] = [];
  constructor(
    readonly kind: 'ocr' | 'openai' | 'cli',
    public answer: LocateAnswer,
  ) {}
  async locate(input: LocateInput): Promise<LocateAnswer> {
    this.inputs.push(input);
    return this.answer;
  }
  async describe(): Promise<string> {
    return 'a page';
  }
}

function setup(over: Partial<VisionSettings> = {}, capture: Partial<Capture> = {}) {
  const target = new FakeTarget({
    width: 800,
    height: 600,
    scale: 2,
    origin: { x: 100, y: 50 },
    scroll: { x: 0, y: 0 },
    bounds: { x: 100, y: 50, width: 400, height: 300 },
    info: {},
    tab: 't4',
    screenshot: 'shot.png',
    ...capture,
  });
  const found: LocateAnswer = { found: true, box: { x: 200, y: 100, width: 40, height: 20 }, confidence: 0.9, label: 'OK' };
  const locators = { ocr: new FakeLocator('ocr', found), openai: new FakeLocator('openai', found), cli: new FakeLocator('cli', found) };
  const settings = { ...DEFAULT_VISION_SETTINGS, ...over };
  const service = createVisionClickService({ settings: () => settings, mediaDir: '/nonexistent', targets: { browser: target }, locators });
  return { target, locators, service, settings };
}

async function rejects(p: Promise<unknown>, status: number, code: string): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.status, status);
    return e;
  }
  assert.fail(`expected ${code}`);
}

test('the locator box is mapped (DPR, region origin) and the action goes to that point, in the captured tab', async () => {
  const { target, service } = setup();
  const r = await service.run({ action: 'double', description: 'OK' });
  // center (220,110) / 2 + (100,50)
  assert.deepEqual(r.point, { x: 210, y: 105 });
  assert.deepEqual(r.box, { x: 200, y: 100, width: 20, height: 10 });
  assert.deepEqual(target.performed, [{ action: 'double', point: { x: 210, y: 105 }, tab: 't4' }]);
  assert.equal(r.acted, true);
  assert.equal(r.screenshot, 'shot.png');
  assert.deepEqual(r.imageBox, { x: 200, y: 100, width: 40, height: 20 });
  assert.equal(r.locator, 'ocr', 'the settings default');
  assert.equal(r.target, 'browser');
});

test('not found, outside the capture, low or missing confidence: nothing is performed', async () => {
  // The capture's usable area is narrower than its image (a region cut by the viewport edge).
  const { target, locators, service } = setup({}, { bounds: { x: 100, y: 50, width: 300, height: 300 } });
  locators.ocr.answer = { found: false, confidence: 0.9, seen: 'Launch | Cancel' };
  const nf = await rejects(service.run({ action: 'click', description: 'Delete' }), 404, 'TARGET_NOT_FOUND');
  assert.equal(nf.details?.seen, 'Launch | Cancel');
  assert.match(nf.message, /Nothing was clicked/);
  // Inside the image but outside the bounds.
  locators.ocr.answer = { found: true, box: { x: 790, y: 10, width: 10, height: 10 }, confidence: 1 };
  const out = await rejects(service.run({ action: 'click', description: 'X' }), 404, 'TARGET_NOT_FOUND');
  assert.match(String(out.details?.reason), /outside the captured area/);
  locators.ocr.answer = { found: true, box: { x: 0, y: 0, width: 10, height: 10 }, confidence: 0.49 };
  const low = await rejects(service.run({ action: 'click', description: 'X' }), 422, 'LOW_CONFIDENCE');
  assert.equal(low.details?.minConfidence, 0.5);
  assert.equal(low.details?.confidence, 0.49);
  assert.deepEqual(low.details?.point, { x: 102.5, y: 52.5 });
  locators.ocr.answer = { found: true, box: { x: 0, y: 0, width: 10, height: 10 }, confidence: null };
  await rejects(service.run({ action: 'click', description: 'X' }), 422, 'LOW_CONFIDENCE');
  locators.ocr.answer = { found: true, box: { x: 0, y: 0, width: 10, height: 10 }, confidence: 0.9, alternatives: 2 };
  // Explicit thresholds both ways.
  await rejects(service.run({ action: 'click', description: 'X', minConfidence: 0.95 }), 422, 'LOW_CONFIDENCE');
  const d = await service.run({ action: 'click', description: 'X', dryRun: true });
  assert.equal(d.acted, false);
  assert.equal(d.alternatives, 2);
  assert.deepEqual(target.performed, []);
  await service.run({ action: 'click', description: 'X', minConfidence: 0.9 });
  assert.equal(target.performed.length, 1, 'at the threshold it acts');
});

test('settings pick the locator and threshold; the request overrides them', async () => {
  const { locators, service, settings } = setup({ locator: 'openai', minConfidence: 0.95 });
  await rejects(service.run({ action: 'click', description: 'OK' }), 422, 'LOW_CONFIDENCE');
  assert.equal(locators.openai.inputs.length, 1);
  settings.minConfidence = 0.5;
  await service.run({ action: 'click', description: 'OK', locator: 'cli' });
  assert.equal(locators.cli.inputs.length, 1);
});

test('model locators get the image scaled to maxImageSide, and the mapping includes that factor; OCR gets full size', async () => {
  const { target, locators, service } = setup({ maxImageSide: 400 }, { width: 1600, height: 600, bounds: { x: 100, y: 50, width: 800, height: 300 } });
  locators.openai.answer = { found: true, box: { x: 100, y: 50, width: 20, height: 10 }, confidence: 0.9 };
  const r = await service.run({ action: 'click', description: 'OK', locator: 'openai' });
  assert.deepEqual([locators.openai.inputs[0]!.width, locators.openai.inputs[0]!.height], [400, 150]);
  assert.equal(r.mapping.scale, 0.5);
  assert.deepEqual(r.mapping.sent, { width: 400, height: 150 });
  // (110,55) / 0.5 + (100,50)
  assert.deepEqual(target.performed[0]!.point, { x: 320, y: 160 });
  await service.run({ action: 'click', description: 'OK', locator: 'ocr' });
  assert.equal(locators.ocr.inputs[0]!.width, 1600);
});

test('runs are serialized: the second capture waits for the first action', async () => {
  const { target, service } = setup();
  await Promise.all([service.run({ action: 'click', description: 'A' }), service.run({ action: 'hover', description: 'B' })]);
  assert.deepEqual(
    target.log.map((l) => l.split(' ')[0]),
    ['capture', 'perform', 'capture', 'perform'],
  );
});

test('invalid requests are rejected promises with 400 INVALID_REQUEST', async () => {
  const { service, target } = setup();
  await rejects(service.run({ action: 'click' }), 400, 'INVALID_REQUEST');
  await rejects(service.run({ action: 'click', description: 'x', region: { x: 0, y: 0, width: 0, height: 1 } }), 400, 'INVALID_REQUEST');
  await rejects(service.run({ action: 'click', description: 'x', target: 'desktop', tab: 't1' }), 400, 'INVALID_REQUEST');
  await rejects(service.run({ action: 'zap', description: 'x' }), 400, 'INVALID_REQUEST');
  await rejects(service.run({ action: 'click', description: 'x', extra: true }), 400, 'INVALID_REQUEST');
  assert.deepEqual(target.log, []);
});

test('desktop without a display or off Linux, and a browser target without a client, are clear errors', async () => {
  const settings = { ...DEFAULT_VISION_SETTINGS, target: 'desktop' as const };
  const linux = createVisionClickService({ settings: () => settings, mediaDir: '/tmp', platform: 'linux', processEnv: {} });
  const e = await rejects(linux.run({ action: 'click', description: 'OK' }), 503, 'NO_DISPLAY');
  assert.match(e.message, /vision\.display/);
  const wayland = createVisionClickService({ settings: () => settings, mediaDir: '/tmp', platform: 'linux', processEnv: { WAYLAND_DISPLAY: 'wayland-0' } });
  assert.match((await rejects(wayland.run({ action: 'click', description: 'OK' }), 503, 'NO_DISPLAY')).message, /XWayland/);
  for (const platform of ['darwin', 'win32'] as const) {
    const s = createVisionClickService({ settings: () => settings, mediaDir: '/tmp', platform, processEnv: { DISPLAY: ':0' } });
    const u = await rejects(s.run({ action: 'click', description: 'OK' }), 501, 'UNSUPPORTED_PLATFORM');
    assert.equal(u.details?.platform, platform);
  }
  await rejects(linux.run({ action: 'click', description: 'OK', target: 'browser' }), 503, 'TARGET_UNAVAILABLE');
});

test('describe goes to the locator and acts on nothing', async () => {
  const { target, service } = setup();
  const r = await service.run({ action: 'describe' });
  assert.equal(r.description, 'a page');
  assert.equal(r.acted, false);
  assert.deepEqual(target.performed, []);
});

test('lazyVisionClickService loads the service on the first run only, and close() before that is a no-op', async () => {
  const { lazyVisionClickService } = await import('../../../../src/modules/automation/vision-click/lazy.ts');
  const target = new FakeTarget({ width: 100, height: 100, scale: 1, origin: { x: 0, y: 0 }, scroll: { x: 0, y: 0 }, bounds: { x: 0, y: 0, width: 100, height: 100 }, info: {} });
  const locator = new FakeLocator('ocr', { found: true, box: { x: 10, y: 10, width: 10, height: 10 }, confidence: 1 });
  const lazy = lazyVisionClickService({ settings: () => DEFAULT_VISION_SETTINGS, mediaDir: '/tmp', targets: { browser: target }, locators: { ocr: locator } });
  await lazy.close();
  const r = await lazy.run({ action: 'click', description: 'x' });
  assert.deepEqual(r.point, { x: 15, y: 15 });
  assert.deepEqual(target.performed.map((p) => p.point), [{ x: 15, y: 15 }]);
  await lazy.close();
});

test('a run that never ends answers 504 at its bound, and the requests behind it run', async () => {
  const { target } = setup();
  const bounded = createVisionClickService({ settings: () => ({ ...DEFAULT_VISION_SETTINGS, timeoutSec: 1 }), mediaDir: '/nonexistent', targets: { browser: target }, locators: { ocr: new FakeLocator('ocr', { found: true, box: { x: 200, y: 100, width: 40, height: 20 }, confidence: 0.9, label: 'OK' }) }, captureAndActMs: 200 });
  const answers = target.capture.bind(target);
  let first = true;
  target.capture = (opts) => {
    if (!first) return answers(opts);
    first = false;
    return new Promise(() => undefined); // a capture that never ends
  };
  const never = bounded.run({ action: 'click', description: 'OK' });
  const behind = bounded.run({ action: 'click', description: 'OK', dryRun: true });
  const hung = new Promise((_r, reject) => setTimeout(() => reject(new Error('still waiting after 10 s')), 10_000).unref());
  const stuckError = await rejects(Promise.race([never, hung]), 504, 'UPSTREAM_TIMEOUT');
  assert.match(stuckError.message, /did not finish within 1.2 s/);
  const next = (await Promise.race([behind, hung])) as { found: boolean; acted: boolean };
  assert.deepEqual([next.found, next.acted], [true, false]);
});
