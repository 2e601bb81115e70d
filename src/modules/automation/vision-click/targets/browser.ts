// The browser target: the controlled page, through the browser server (CDP). Screenshots are viewport
// PNGs in device pixels, so the mapping scale is the page's devicePixelRatio (checked against the image
// width / innerWidth, which also covers page zoom); clicks are mouse events at viewport CSS pixels.
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../core/errors.ts';
import type { Action, ActionResult, ActionResultMap } from '../../browser/index.ts';
import { intersect, regionToPixels } from '../geometry.ts';
import { crop, decodePng, encodePng, pngSize } from '../image.ts';
import type { Box, Capture, Point, PointerAction, VisionTarget } from '../types.ts';

/** What the target needs from the browser client (a BrowserClient fits). */
export interface BrowserActor {
  act(action: Action): Promise<ActionResult>;
}

export interface PageMetrics {
  dpr: number;
  width: number;
  height: number;
  scrollX: number;
  scrollY: number;
}

const METRICS_SCRIPT =
  '({dpr: window.devicePixelRatio, width: window.innerWidth, height: window.innerHeight, scrollX: window.scrollX, scrollY: window.scrollY})';

/** Image pixels per CSS pixel: the DPR, unless the screenshot's width says otherwise (zoom, odd DPR rounding). */
export function browserScale(dpr: number, imageWidth: number, viewportWidth: number): number {
  const measured = viewportWidth > 0 ? imageWidth / viewportWidth : dpr;
  if (!(dpr > 0)) return measured;
  return Math.abs(measured - dpr) > 0.02 ? measured : dpr;
}

/** The mouse action for a vision action at a viewport point. */
export function mouseAction(action: PointerAction, point: Point, tab?: string): Extract<Action, { action: 'mouse' }> {
  const base = { action: 'mouse' as const, x: point.x, y: point.y, ...(tab ? { tab } : {}) };
  switch (action) {
    case 'click':
      return { ...base, button: 'left' };
    case 'double':
      return { ...base, button: 'left', clickCount: 2 };
    case 'right':
      return { ...base, button: 'right' };
    case 'hover':
      return { ...base, move: true };
  }
}

export class BrowserTarget implements VisionTarget {
  readonly kind = 'browser' as const;
  constructor(
    private readonly client: BrowserActor,
    private readonly mediaDir: string,
    private readonly keepScreenshots: () => boolean = () => true,
  ) {}

  async capture(opts: { region?: Box; tab?: string }): Promise<Capture> {
    const tab = opts.tab;
    const m = ((await this.client.act({ action: 'eval', script: METRICS_SCRIPT, ...(tab ? { tab } : {}) })) as ActionResultMap['eval']).result as PageMetrics;
    if (!m || typeof m.width !== 'number' || typeof m.dpr !== 'number') {
      throw new AppError(502, 'BROWSER_METRICS_FAILED', 'Could not read the page viewport and devicePixelRatio.');
    }
    const shot = (await this.client.act({ action: 'screenshot', ...(tab ? { tab } : {}) })) as ActionResultMap['screenshot'];
    if (!/^[\w.-]+\.png$/.test(shot.filename)) throw new AppError(502, 'BAD_SCREENSHOT', `Unexpected screenshot name '${shot.filename}'.`);
    const file = join(this.mediaDir, shot.filename);
    let png: Buffer;
    try {
      png = await readFile(file);
    } catch (err) {
      throw new AppError(502, 'BAD_SCREENSHOT', `The browser's screenshot ${file} could not be read (${(err as NodeJS.ErrnoException).code}); the browser server and this server must share the media directory.`);
    }
    const keep = this.keepScreenshots();
    if (!keep) await unlink(file).catch(() => undefined);
    const size = pngSize(png);
    const scale = browserScale(m.dpr, size.width, m.width);
    const viewport: Box = { x: 0, y: 0, width: m.width, height: m.height };
    const info = { dpr: m.dpr, viewport: { width: m.width, height: m.height }, scroll: { x: m.scrollX, y: m.scrollY }, tab: shot.tab };
    const base = { scale, scroll: { x: 0, y: 0 }, info, tab: shot.tab, ...(keep ? { screenshot: shot.filename } : {}) };
    if (!opts.region) {
      return { png, width: size.width, height: size.height, origin: { x: 0, y: 0 }, bounds: viewport, ...base };
    }
    const bounds = intersect(opts.region, viewport);
    const rect = bounds && regionToPixels(bounds, scale, size);
    if (!bounds || !rect) {
      throw new AppError(400, 'INVALID_REGION', `The region lies outside the viewport (${m.width}x${m.height} CSS px).`, { viewport: info.viewport });
    }
    const cut = encodePng(crop(decodePng(png), rect));
    return { png: cut, width: rect.width, height: rect.height, origin: { x: rect.x / scale, y: rect.y / scale }, bounds, ...base };
  }

  async perform(action: PointerAction, point: Point, opts: { tab?: string }): Promise<void> {
    await this.client.act(mouseAction(action, point, opts.tab));
  }
}
