// Pure coordinate mapping between screenshot pixels and the coordinates an action takes.
//
//   target = origin + image / scale − scroll
//
// - scale: image pixels per target unit. A browser screenshot is in device pixels, so a DPR-2 page gives 2
//   (and a model-bound image scaled down by f multiplies it by f); an X11 root capture gives 1.
// - origin: where the image's (0,0) sits in target coordinates: a region capture's top-left, else 0,0.
// - scroll: subtracted when the image is in document coordinates (a full-page capture) while the action
//   takes viewport coordinates (browser mouse events do); 0,0 for viewport and screen captures.
import type { Box, Mapping, Point, Size } from './types.ts';

export type { Mapping };

const round2 = (v: number) => Math.round(v * 100) / 100;

/** An image pixel position → target coordinates (rounded to 1/100). */
export function imageToTarget(p: Point, m: Mapping): Point {
  if (!(m.scale > 0) || !Number.isFinite(m.scale)) throw new RangeError(`scale must be a positive number, got ${m.scale}`);
  return {
    x: round2(m.origin.x + p.x / m.scale - (m.scroll?.x ?? 0)),
    y: round2(m.origin.y + p.y / m.scale - (m.scroll?.y ?? 0)),
  };
}

/** Target coordinates → image pixels (the inverse of imageToTarget). */
export function targetToImage(p: Point, m: Mapping): Point {
  return {
    x: (p.x - m.origin.x + (m.scroll?.x ?? 0)) * m.scale,
    y: (p.y - m.origin.y + (m.scroll?.y ?? 0)) * m.scale,
  };
}

/** An image-pixel box → a target box. */
export function boxToTarget(b: Box, m: Mapping): Box {
  const tl = imageToTarget({ x: b.x, y: b.y }, m);
  return { x: tl.x, y: tl.y, width: round2(b.width / m.scale), height: round2(b.height / m.scale) };
}

export function centerOf(b: Box): Point {
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** The image-pixel center of a box, mapped to the target: where a click goes. */
export function clickPoint(imageBox: Box, m: Mapping): Point {
  return imageToTarget(centerOf(imageBox), m);
}

export function contains(b: Box, p: Point): boolean {
  return p.x >= b.x && p.y >= b.y && p.x < b.x + b.width && p.y < b.y + b.height;
}

export function intersect(a: Box, b: Box): Box | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.width, b.x + b.width);
  const btm = Math.min(a.y + a.height, b.y + b.height);
  return r > x && btm > y ? { x, y, width: r - x, height: btm - y } : null;
}

/** Cut a box to an image; null when nothing of it is inside. */
export function clampBox(b: Box, size: Size): Box | null {
  return intersect(b, { x: 0, y: 0, width: size.width, height: size.height });
}

/**
 * The whole-pixel rectangle of an image that a target region covers (region in target units, image at
 * `scale` px per unit), cut to the image. Null when the region lies outside the image.
 */
export function regionToPixels(region: Box, scale: number, image: Size): Box | null {
  const x0 = Math.max(0, Math.floor(region.x * scale));
  const y0 = Math.max(0, Math.floor(region.y * scale));
  const x1 = Math.min(image.width, Math.ceil((region.x + region.width) * scale));
  const y1 = Math.min(image.height, Math.ceil((region.y + region.height) * scale));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** Parse "x,y,w,h" (also with spaces, 'x' between w and h is not accepted). Throws a message on bad input. */
export function parseRegion(text: string): Box {
  const parts = text.trim().split(/\s*,\s*|\s+/);
  if (parts.length !== 4 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new Error(`region must be four non-negative numbers x,y,width,height (e.g. 0,0,400,300), not '${text}'`);
  }
  const [x, y, width, height] = parts.map(Number) as [number, number, number, number];
  if (width <= 0 || height <= 0) throw new Error(`region width and height must be above 0, not '${text}'`);
  return { x, y, width, height };
}
