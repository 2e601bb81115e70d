// vision-click on a real X11 desktop: a private Xvfb server (on a free display it picks itself), a real
// xmessage window, capture with ImageMagick `import`, input with xdotool. xmessage exits with the code of
// the button that was clicked, which proves where the click landed. Skipped (with the reason) only when
// Xvfb, xdotool, import or xmessage is not installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../../../src/core/errors.ts';
import { decodePng } from '../../../../src/modules/automation/vision-click/image.ts';
import { createVisionClickService, type VisionClickService } from '../../../../src/modules/automation/vision-click/vision-click.service.ts';
import { DEFAULT_VISION_SETTINGS, type VisionSettings } from '../../../../src/modules/automation/vision-click/settings.ts';
import type { Box, Point } from '../../../../src/modules/automation/vision-click/types.ts';

const TOOLS = ['Xvfb', 'xdotool', 'import', 'xmessage', 'xwininfo'];
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
const skip = missing.length ? `needs ${missing.join(', ')} (apt-get install xvfb xdotool imagemagick x11-utils)` : false;

let xvfb: ChildProcess | undefined;
let display = '';
let home = '';
let service: VisionClickService;
const settings: VisionSettings = { ...DEFAULT_VISION_SETTINGS, target: 'desktop', locator: 'ocr' };

/**
 * Start Xvfb on a display it chooses (-displayfd reports it once the server accepts clients). -noreset:
 * by default an X server resets when its last client leaves, and a client connecting during that reset
 * is refused ("Can't open display"); the polls below connect and leave all the time.
 */
function startXvfb(): Promise<{ child: ChildProcess; display: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('Xvfb', ['-displayfd', '3', '-noreset', '-screen', '0', '1024x768x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start: ${err}`)), 15_000);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, display: `:${out.trim()}` });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}): ${err}`));
    });
  });
}

const x = (args: string[]) => spawnSync(args[0]!, args.slice(1), { env: { ...process.env, DISPLAY: display }, encoding: 'utf8' });

interface Message {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** The window's box on screen. */
  box: Box;
}

let seq = 0;

/** End an xmessage and wait until it is gone. */
async function closeMessage(m: Message): Promise<void> {
  m.child.kill();
  await m.exited;
}

/** Show an xmessage; a refused connection (the one flake an X server has) is tried again, twice at most. */
async function showMessage(): Promise<Message> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await openMessage();
    } catch (e) {
      if (attempt === 3 || !/Can't open display/.test(String(e))) throw e;
    }
  }
}

async function openMessage(): Promise<Message> {
  // A title of its own, so a window of an earlier test that is still going away is never mistaken for it.
  const title = `vision-test-${++seq}`;
  let stderr = '';
  const child = spawn('xmessage', ['-title', title, '-geometry', '+100+100', '-buttons', 'Press here:7,Cancel:3', 'Click the button below'], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (c) => {
      code = c;
      r(c);
    }),
  );
  const deadline = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline && code === undefined) {
    const info = x(['xwininfo', '-name', title]);
    last = `xwininfo ${info.status}: ${(info.stderr || info.stdout).trim().split('\n').slice(0, 3).join(' ')}`;
    if (info.status === 0 && /Map State: IsViewable/.test(info.stdout)) {
      const n = (k: string) => Number(new RegExp(`${k}:\\s+(-?\\d+)`).exec(info.stdout)![1]);
      const box = { x: n('Absolute upper-left X'), y: n('Absolute upper-left Y'), width: n('Width'), height: n('Height') };
      // Mapped is not painted: wait until the button row (lower half) shows its text.
      const dark = darkPixels(box);
      last = `window ${JSON.stringify(box)}, ${dark} dark pixels in its button row`;
      if (dark > 100) return { child, exited, box };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`xmessage did not appear on ${display} (exit ${code}; ${stderr.trim()}; last check: ${last})`);
}

/** Dark pixels in the lower half (the button row) of a window's box on the screen right now. */
function darkPixels(box: Box): number {
  const half = Math.floor(box.height / 2);
  const geometry = `${box.width}x${box.height - half}+${box.x}+${box.y + half}`;
  const shot = spawnSync('import', ['-display', display, '-window', 'root', '-crop', geometry, '+repage', 'png:-'], { maxBuffer: 16 * 1024 * 1024 });
  if (shot.status !== 0 || shot.stdout.length < 24) return 0;
  const r = decodePng(shot.stdout);
  let dark = 0;
  for (let i = 0; i < r.width * r.height; i++) if (r.data[i * 4]! < 100) dark++;
  return dark;
}

function pointer(): Point {
  const r = x(['xdotool', 'getmouselocation', '--shell']);
  return { x: Number(/X=(\d+)/.exec(r.stdout)![1]), y: Number(/Y=(\d+)/.exec(r.stdout)![1]) };
}

const inBox = (p: Point, b: Box) => p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height;
const exitWithin = (m: Message, ms: number) => Promise.race([m.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), ms))]);

describe('vision-click: X11 desktop target', { timeout: 180_000, skip }, () => {
  before(async () => {
    ({ child: xvfb, display } = await startXvfb());
    home = mkdtempSync(join(tmpdir(), 'svc-vision-desktop-'));
    settings.display = display;
    // The server's own environment has no DISPLAY: the display comes from vision.display.
    service = createVisionClickService({ settings: () => settings, mediaDir: join(home, 'media'), processEnv: { PATH: process.env.PATH } });
  });
  after(async () => {
    await service?.close();
    if (xvfb?.pid) xvfb.kill('SIGTERM');
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('OCR finds an xmessage button on the screen and xdotool clicks it (xmessage exits with that button\'s code)', async () => {
    const msg = await showMessage();
    try {
      const r = await service.run({ action: 'click', description: 'Press here' });
      assert.equal(r.target, 'desktop');
      assert.equal(r.mapping.scale, 1);
      assert.deepEqual(r.mapping.image, { width: 1024, height: 768 });
      assert.ok(inBox(r.point!, msg.box), `point ${JSON.stringify(r.point)} outside the window ${JSON.stringify(msg.box)}`);
      assert.equal(await exitWithin(msg, 5000), 7, 'the "Press here" button (exit code 7) was clicked');
      assert.ok(r.screenshot && existsSync(join(home, 'media', r.screenshot)));
    } finally {
      await closeMessage(msg);
    }
  });

  test('region offset and hover: the pointer lands on the target in screen coordinates; then a click on Cancel', async () => {
    const msg = await showMessage();
    try {
      const region = { x: 90, y: 120, width: 300, height: 60 };
      const h = await service.run({ action: 'hover', description: 'Cancel', region });
      assert.deepEqual(h.mapping.origin, { x: 90, y: 120 });
      assert.deepEqual(h.mapping.image, { width: 300, height: 60 });
      assert.ok(h.imageBox!.x < 300, 'located in region pixels');
      const p = pointer();
      assert.deepEqual(p, { x: Math.round(h.point!.x), y: Math.round(h.point!.y) });
      assert.ok(inBox(p, msg.box));
      assert.equal(await exitWithin(msg, 500), 'running', 'hover does not click');
      const c = await service.run({ action: 'click', description: '"Cancel"', region });
      assert.deepEqual(c.point, h.point);
      assert.ok(c.ms < 10_000, `a click where the pointer already is takes ${c.ms} ms`);
      assert.equal(await exitWithin(msg, 5000), 3, 'the Cancel button (exit code 3) was clicked');
    } finally {
      await closeMessage(msg);
    }
  });

  test('not found on the desktop: no pointer movement, no click', async () => {
    const msg = await showMessage();
    try {
      x(['xdotool', 'mousemove', '700', '600']);
      let caught: unknown;
      try {
        await service.run({ action: 'click', description: 'Delete everything' });
      } catch (e) {
        caught = e;
      }
      assert.ok(caught instanceof AppError && caught.code === 'TARGET_NOT_FOUND', String(caught));
      assert.match(String((caught as AppError).details?.seen), /button below/);
      assert.deepEqual(pointer(), { x: 700, y: 600 });
      assert.equal(await exitWithin(msg, 300), 'running');
    } finally {
      await closeMessage(msg);
    }
  });
});
