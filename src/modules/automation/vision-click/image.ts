// PNG helpers (pngjs, pure JS): decode, crop, scale down for a model, and the OCR pre-pass.
import { PNG } from 'pngjs';
import { AppError } from '../../../core/errors.ts';
import type { Box, Size } from './types.ts';

export interface Raster {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  data: Buffer;
}

export function decodePng(buf: Buffer): Raster {
  try {
    const png = PNG.sync.read(buf);
    return { width: png.width, height: png.height, data: png.data };
  } catch (err) {
    throw new AppError(502, 'BAD_SCREENSHOT', `The screenshot is not a readable PNG: ${(err as Error).message}.`);
  }
}

export function encodePng(r: Raster): Buffer {
  const png = new PNG({ width: r.width, height: r.height });
  r.data.copy(png.data, 0, 0, r.width * r.height * 4);
  return PNG.sync.write(png);
}

/** Width and height from a PNG header, without decoding. */
export function pngSize(buf: Buffer): Size {
  if (buf.length < 24 || buf.readUInt32BE(0) !== 0x89504e47) throw new AppError(502, 'BAD_SCREENSHOT', 'The screenshot is not a PNG.');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/** A whole-pixel rectangle of a raster (the rectangle must lie inside it). */
export function crop(r: Raster, rect: Box): Raster {
  const { x, y, width, height } = rect;
  if (x < 0 || y < 0 || width <= 0 || height <= 0 || x + width > r.width || y + height > r.height || !Number.isInteger(x + y + width + height)) {
    throw new RangeError(`crop ${x},${y} ${width}x${height} does not fit a ${r.width}x${r.height} image`);
  }
  const out = Buffer.alloc(width * height * 4);
  for (let row = 0; row < height; row++) {
    const src = ((y + row) * r.width + x) * 4;
    r.data.copy(out, row * width * 4, src, src + width * 4);
  }
  return { width, height, data: out };
}

/** Scale down by area averaging so that the longer side is at most maxSide. Returns the factor (≤ 1). */
export function fitWithin(r: Raster, maxSide: number): { raster: Raster; factor: number } {
  const long = Math.max(r.width, r.height);
  if (!maxSide || long <= maxSide) return { raster: r, factor: 1 };
  const factor = maxSide / long;
  const w = Math.max(1, Math.round(r.width * factor));
  const h = Math.max(1, Math.round(r.height * factor));
  const out = Buffer.alloc(w * h * 4);
  const fx = r.width / w;
  const fy = r.height / h;
  for (let oy = 0; oy < h; oy++) {
    const y0 = Math.floor(oy * fy);
    const y1 = Math.max(y0 + 1, Math.floor((oy + 1) * fy));
    for (let ox = 0; ox < w; ox++) {
      const x0 = Math.floor(ox * fx);
      const x1 = Math.max(x0 + 1, Math.floor((ox + 1) * fx));
      let rs = 0, gs = 0, bs = 0, as = 0, n = 0;
      for (let y = y0; y < y1 && y < r.height; y++) {
        for (let x = x0; x < x1 && x < r.width; x++) {
          const i = (y * r.width + x) * 4;
          rs += r.data[i]!;
          gs += r.data[i + 1]!;
          bs += r.data[i + 2]!;
          as += r.data[i + 3]!;
          n++;
        }
      }
      const o = (oy * w + ox) * 4;
      out[o] = Math.round(rs / n);
      out[o + 1] = Math.round(gs / n);
      out[o + 2] = Math.round(bs / n);
      out[o + 3] = Math.round(as / n);
    }
  }
  // The factor actually applied per axis differs from `factor` by rounding; use the width's.
  return { raster: { width: w, height: h, data: out }, factor: w / r.width };
}

/** Text is read upscaled this much from CSS pixels (small text reads better)… */
const OCR_UPSCALE = 2;
/** …unless the image would be larger than this on its long side. */
const OCR_MAX_SIDE = 4096;

/**
 * How OCR reads a capture of `scale` image pixels per CSS pixel (the page's devicePixelRatio): shrunk back
 * to CSS pixels first (`shrink`, at most 1), then upscaled (`up`). The pre-pass's sizes (what is a panel,
 * what a frame) and Tesseract's DPI are tuned for text at that size: read at a HiDPI capture's own size,
 * the wide strokes of larger bold text grew into "panels" the pre-pass erased ("Submit order" read as
 * "Sub it order" at DPR 2), and a label read in part is refused as a near miss. So every DPR reads alike.
 */
export function ocrPlan(width: number, height: number, scale = 1): { shrink: number; up: number } {
  const shrink = scale > 1 ? 1 / scale : 1;
  const long = Math.max(width, height) * shrink;
  return { shrink, up: long * OCR_UPSCALE <= OCR_MAX_SIDE ? OCR_UPSCALE : 1 };
}

/**
 * The image Tesseract reads for a capture (ocrPlan, then the pre-pass), and `perPixel`: its pixels per
 * capture pixel, to map what it finds back to the capture.
 */
export function ocrImage(r: Raster, scale = 1): { png: Buffer; width: number; height: number; perPixel: number } {
  const plan = ocrPlan(r.width, r.height, scale);
  const css = plan.shrink < 1 ? fitWithin(r, Math.max(1, Math.round(Math.max(r.width, r.height) * plan.shrink))) : { raster: r, factor: 1 };
  return { ...ocrPrepass(css.raster, plan.up), perPixel: css.factor * plan.up };
}

/**
 * Whiten outlines: a dark 8-connected component that is sparse (under 25% of its bounding box) and whose
 * box encloses another dark component is a frame drawn around text (outlined buttons, input borders),
 * not a glyph. Tesseract reads framed words badly, so frames are erased. Works on the greyscale values
 * in place (0 black … 255 white).
 */
export function removeFrames(V: Float32Array, W: number, H: number, dark = 160): void {
  const N = W * H;
  const label = new Int32Array(N).fill(-1);
  const comps: { x0: number; y0: number; x1: number; y1: number; n: number; start: number }[] = [];
  const stack = new Int32Array(N);
  for (let s = 0; s < N; s++) {
    if (label[s] !== -1 || V[s]! >= dark) continue;
    const id = comps.length;
    const c = { x0: W, y0: H, x1: -1, y1: -1, n: 0, start: s };
    let top = 0;
    stack[top++] = s;
    label[s] = id;
    while (top > 0) {
      const i = stack[--top]!;
      const x = i % W;
      const y = (i - x) / W;
      c.n++;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= H) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= W || (dx === 0 && dy === 0)) continue;
          const j = yy * W + xx;
          if (label[j] === -1 && V[j]! < dark) {
            label[j] = id;
            stack[top++] = j;
          }
        }
      }
    }
    comps.push(c);
  }
  if (comps.length < 2) return;
  // Candidate frames: sparse and big enough to hold a glyph.
  const frames = new Set<number>();
  const candidates = comps
    .map((c, id) => ({ c, id }))
    .filter(({ c }) => c.x1 - c.x0 >= 8 && c.y1 - c.y0 >= 8 && c.n < 0.25 * (c.x1 - c.x0 + 1) * (c.y1 - c.y0 + 1));
  if (!candidates.length) return;
  for (const { c, id } of candidates) {
    for (let k = 0; k < comps.length; k++) {
      if (k === id) continue;
      const o = comps[k]!;
      if (o.x0 > c.x0 && o.x1 < c.x1 && o.y0 > c.y0 && o.y1 < c.y1) {
        frames.add(id);
        break;
      }
    }
  }
  if (!frames.size) return;
  for (let i = 0; i < N; i++) if (label[i]! >= 0 && frames.has(label[i]!)) V[i] = 255;
}

/**
 * OCR pre-pass: make every text dark-on-white, whatever its colours. Screens put light text on dark or
 * coloured buttons, which Tesseract's global threshold turns into holes in black boxes that its layout
 * analysis skips. Here, 4-connected runs of near-equal luminance that are large enough are "panels"
 * (page background, buttons, bars): they become white, so panel edges vanish. Every other pixel (glyphs,
 * their anti-aliasing, icons) becomes darker the more it differs from the panel around it (the nearest
 * panel pixel, found by a breadth-first fill), so white-on-blue and black-on-white text both come out
 * black on white. Optionally upscaled (bilinear) for small text. Returns a greyscale PNG.
 */
export function ocrPrepass(r: Raster, upscale = 1, gain = 2): { png: Buffer; width: number; height: number } {
  const W = r.width;
  const H = r.height;
  const N = W * H;
  const L = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    const a = r.data[i * 4 + 3]! / 255;
    // Transparent pixels read as white.
    L[i] = (0.299 * r.data[i * 4]! + 0.587 * r.data[i * 4 + 1]! + 0.114 * r.data[i * 4 + 2]!) * a + 255 * (1 - a);
  }
  const parent = new Int32Array(N);
  for (let i = 0; i < N; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const unite = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) {
      if (ra < rb) parent[rb] = ra;
      else parent[ra] = rb;
    }
  };
  const T = 6;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      if (x > 0 && Math.abs(L[i]! - L[i - 1]!) <= T) unite(i, i - 1);
      if (y > 0 && Math.abs(L[i]! - L[i - W]!) <= T) unite(i, i - W);
    }
  }
  const size = new Int32Array(N);
  const sum = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const root = find(i);
    parent[i] = root;
    size[root]!++;
    sum[root]! += L[i]!;
  }
  const minArea = Math.max(600, Math.round(N * 0.0005));
  const bg = new Float32Array(N).fill(-1);
  const queue = new Int32Array(N);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < N; i++) {
    const root = parent[i]!;
    if (size[root]! >= minArea) {
      bg[i] = sum[root]! / size[root]!;
      queue[tail++] = i;
    }
  }
  while (head < tail) {
    const i = queue[head++]!;
    const x = i % W;
    const v = bg[i]!;
    if (x > 0 && bg[i - 1] === -1) (bg[i - 1] = v), (queue[tail++] = i - 1);
    if (x < W - 1 && bg[i + 1] === -1) (bg[i + 1] = v), (queue[tail++] = i + 1);
    if (i >= W && bg[i - W] === -1) (bg[i - W] = v), (queue[tail++] = i - W);
    if (i + W < N && bg[i + W] === -1) (bg[i + W] = v), (queue[tail++] = i + W);
  }
  const V = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    V[i] = size[parent[i]!]! >= minArea ? 255 : 255 - Math.min(255, gain * Math.abs(L[i]! - (bg[i] === -1 ? 255 : bg[i]!)));
  }
  removeFrames(V, W, H);
  const Wo = Math.max(1, Math.round(W * upscale));
  const Ho = Math.max(1, Math.round(H * upscale));
  const out = new PNG({ width: Wo, height: Ho, colorType: 0, inputColorType: 0, inputHasAlpha: false } as ConstructorParameters<typeof PNG>[0]);
  const gray = Buffer.alloc(Wo * Ho);
  for (let y = 0; y < Ho; y++) {
    const sy = Math.min(H - 1, Math.max(0, (y + 0.5) / upscale - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(H - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < Wo; x++) {
      const sx = Math.min(W - 1, Math.max(0, (x + 0.5) / upscale - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(W - 1, x0 + 1);
      const fx = sx - x0;
      const v = (V[y0 * W + x0]! * (1 - fx) + V[y0 * W + x1]! * fx) * (1 - fy) + (V[y1 * W + x0]! * (1 - fx) + V[y1 * W + x1]! * fx) * fy;
      gray[y * Wo + x] = Math.round(v);
    }
  }
  out.data = gray;
  return { png: PNG.sync.write(out, { colorType: 0, inputColorType: 0, inputHasAlpha: false }), width: Wo, height: Ho };
}
