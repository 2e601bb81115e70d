import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { crop, decodePng, encodePng, fitWithin, ocrImage, ocrPlan, ocrPrepass, pngSize, removeFrames, type Raster } from '../../../../src/modules/automation/vision-click/image.ts';
import { AppError } from '../../../../src/core/errors.ts';

function solid(width: number, height: number, rgb: [number, number, number]): Raster {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([...rgb, 255], i * 4);
  return { width, height, data };
}
function fill(r: Raster, x0: number, y0: number, w: number, h: number, rgb: [number, number, number]): void {
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) r.data.set([...rgb, 255], (y * r.width + x) * 4);
}
const px = (r: Raster, x: number, y: number) => [...r.data.subarray((y * r.width + x) * 4, (y * r.width + x) * 4 + 4)];

test('encode/decode round trip, pngSize from the header, non-PNG is BAD_SCREENSHOT', () => {
  const r = solid(7, 5, [1, 2, 3]);
  const png = encodePng(r);
  assert.deepEqual(pngSize(png), { width: 7, height: 5 });
  assert.deepEqual(px(decodePng(png), 6, 4), [1, 2, 3, 255]);
  assert.throws(() => pngSize(Buffer.from('GIF89a-not-a-png-at-all-xx')), (e: unknown) => e instanceof AppError && e.code === 'BAD_SCREENSHOT');
  assert.throws(() => decodePng(Buffer.from('nope')), (e: unknown) => e instanceof AppError && e.code === 'BAD_SCREENSHOT');
});

test('crop takes exactly the rectangle; out of bounds throws', () => {
  const r = solid(10, 10, [255, 255, 255]);
  fill(r, 4, 6, 1, 1, [9, 9, 9]);
  const c = crop(r, { x: 3, y: 5, width: 4, height: 3 });
  assert.equal(c.width, 4);
  assert.equal(c.height, 3);
  assert.deepEqual(px(c, 1, 1), [9, 9, 9, 255]);
  assert.throws(() => crop(r, { x: 8, y: 0, width: 4, height: 1 }), RangeError);
});

test('fitWithin scales the long side down by area averaging and reports the factor', () => {
  const r = solid(2560, 1314, [200, 0, 0]);
  const { raster, factor } = fitWithin(r, 1920);
  assert.equal(raster.width, 1920);
  assert.equal(raster.height, Math.round(1314 * 0.75));
  assert.equal(factor, 0.75);
  assert.deepEqual(px(raster, 100, 100), [200, 0, 0, 255]);
  assert.equal(fitWithin(r, 0).factor, 1);
  assert.equal(fitWithin(solid(100, 50, [0, 0, 0]), 200).raster.width, 100);
});

test('OCR pre-pass: light text on a coloured button and dark text on white both come out dark on white; panels become white', () => {
  const r = solid(200, 100, [255, 255, 255]);
  fill(r, 20, 20, 100, 40, [37, 99, 235]); // blue button
  fill(r, 50, 35, 3, 10, [255, 255, 255]); // a white stroke on it
  fill(r, 150, 35, 3, 10, [17, 17, 17]); // a dark stroke on the page
  const out = PNG.sync.read(ocrPrepass(r, 1).png);
  const v = (x: number, y: number) => out.data[(y * out.width + x) * 4]!;
  assert.ok(v(51, 40) < 100, `white-on-blue stroke is dark: ${v(51, 40)}`);
  assert.ok(v(151, 40) < 100, `dark-on-white stroke is dark: ${v(151, 40)}`);
  assert.equal(v(30, 25), 255, 'the button fill is white');
  assert.equal(v(5, 5), 255, 'the page is white');
  assert.equal(v(20, 40), 255, 'the button edge leaves no frame');
  const up = ocrPrepass(r, 2);
  assert.deepEqual([up.width, up.height], [400, 200]);
});

test('removeFrames erases a sparse outline that encloses glyphs, and keeps the glyphs', () => {
  const W = 40;
  const H = 20;
  const V = new Float32Array(W * H).fill(255);
  const set = (x: number, y: number) => (V[y * W + x] = 0);
  for (let x = 2; x < 38; x++) set(x, 2), set(x, 17);
  for (let y = 2; y < 18; y++) set(2, y), set(37, y);
  for (let y = 6; y < 14; y++) set(10, y), set(11, y); // a glyph inside
  removeFrames(V, W, H);
  assert.equal(V[2 * W + 5], 255, 'frame gone');
  assert.equal(V[8 * W + 10], 0, 'glyph kept');
  // A lone outline with nothing inside is kept (an "O", a checkbox).
  const O = new Float32Array(W * H).fill(255);
  for (let x = 2; x < 12; x++) (O[2 * W + x] = 0), (O[11 * W + x] = 0);
  for (let y = 2; y < 12; y++) (O[y * W + 2] = 0), (O[y * W + 11] = 0);
  removeFrames(O, W, H);
  assert.equal(O[2 * W + 5], 0);
});

test('OCR reads every capture at CSS pixels upscaled 2x, whatever its DPR, and says how to map back', () => {
  assert.deepEqual(ocrPlan(1280, 720, 1), { shrink: 1, up: 2 });
  assert.deepEqual(ocrPlan(2560, 1440, 2), { shrink: 0.5, up: 2 });
  assert.deepEqual(ocrPlan(1600, 900, 1.25), { shrink: 0.8, up: 2 });
  assert.deepEqual(ocrPlan(2560, 1440, 1), { shrink: 1, up: 1 }, 'no larger than 4096 px');
  assert.deepEqual(ocrPlan(300, 200, 0.5), { shrink: 1, up: 2 }, 'never enlarged to reach CSS pixels');
  const page = ocrImage(solid(640, 360, [255, 255, 255]), 1);
  assert.deepEqual([page.width, page.height, page.perPixel], [1280, 720, 2]);
  const hidpi = ocrImage(solid(1280, 720, [255, 255, 255]), 2);
  assert.deepEqual([hidpi.width, hidpi.height, hidpi.perPixel], [1280, 720, 1]);
});

test('a bold stroke of a DPR-2 capture stays text, as at DPR 1 (not a panel the pre-pass whitens)', () => {
  // one stroke of large bold type: 14x40 CSS px, under the pre-pass's panel size at CSS pixels (600 px),
  // while at DPR 2 it is 28x80 device px, 2240 px, over that of the whole capture (2560x1440: 1843 px)
  const css = solid(1280, 720, [255, 255, 255]);
  fill(css, 300, 200, 14, 40, [17, 17, 17]);
  const dpr2 = solid(2560, 1440, [255, 255, 255]);
  fill(dpr2, 600, 400, 28, 80, [17, 17, 17]);
  for (const [name, image] of [['DPR 1', ocrImage(css, 1)], ['DPR 2', ocrImage(dpr2, 2)]] as const) {
    const out = PNG.sync.read(image.png);
    // the stroke's middle, in capture pixels times perPixel
    const [cx, cy] = name === 'DPR 1' ? [307, 220] : [614, 440];
    const v = out.data[(Math.round(cy * image.perPixel) * out.width + Math.round(cx * image.perPixel)) * 4]!;
    assert.ok(v < 100, `${name}: the stroke is dark (${v})`);
  }
});
