// Server side of snapshot refs. A ref (e1, e2, ...) names one DOM element: the page's registry maps it to
// the element object itself, and this registry maps it to the frame (and tab) holding that registry.
// Numbers are handed out once per server and never reused, so a ref from an old snapshot, an old document
// or a browser that has since crashed can only be REF_STALE, never another element.
import { randomBytes } from 'node:crypto';
import type { ElementHandle, Frame, Page } from 'playwright-core';
import { badRequest } from '../../../core/errors.ts';
import { browserErrors, fromPlaywright } from './errors.ts';
import { refLookupExpression } from './page-scripts.ts';

export interface RefBinding {
  frame: Frame;
  page: Page;
  tabId: string;
}

export const REF_PATTERN = /^@?(e\d+)$/;

/** "e12" / "@e12" -> "e12"; anything else -> undefined (a selector). */
export function asRef(target: string): string | undefined {
  return REF_PATTERN.exec(target.trim())?.[1];
}

const HANDLE_CACHE = 128;

export class RefRegistry {
  /** Property name of the page-side registry; the nonce keeps servers sharing a browser apart. */
  readonly key = `__svcRefs_${randomBytes(6).toString('hex')}`;
  /** Next ref number to hand out. */
  next = 1;
  private readonly byRef = new Map<string, RefBinding>();
  private readonly byFrame = new Map<Frame, Set<string>>();
  /** Most recently used element handles (insertion order = LRU order). */
  private readonly handles = new Map<string, ElementHandle>();
  private lock: Promise<unknown> = Promise.resolve();

  /** Run fn with no other exclusive section running (snapshots hand out numbers one at a time). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  get size(): number {
    return this.byRef.size;
  }

  /** After a snapshot of `frame`: these refs are live there, any other ref it had is gone. */
  sync(frame: Frame, page: Page, tabId: string, live: readonly string[]): void {
    const now = new Set(live);
    const before = this.byFrame.get(frame);
    if (before) for (const r of before) if (!now.has(r)) this.forget(r);
    for (const r of now) this.byRef.set(r, { frame, page, tabId });
    this.byFrame.set(frame, now);
  }

  forget(ref: string): void {
    const b = this.byRef.get(ref);
    if (b) this.byFrame.get(b.frame)?.delete(ref);
    this.byRef.delete(ref);
    const h = this.handles.get(ref);
    if (h) {
      this.handles.delete(ref);
      h.dispose().catch(() => undefined);
    }
  }

  /** Drop cached handles of a frame's refs (its document may have changed); bindings stay. */
  dropHandles(frame: Frame): void {
    const set = this.byFrame.get(frame);
    if (!set) return;
    for (const r of set) {
      const h = this.handles.get(r);
      if (h) {
        this.handles.delete(r);
        h.dispose().catch(() => undefined);
      }
    }
  }

  forgetFrame(frame: Frame): void {
    const set = this.byFrame.get(frame);
    if (set) for (const r of [...set]) this.forget(r);
    this.byFrame.delete(frame);
  }

  forgetPage(page: Page): void {
    for (const [frame, set] of [...this.byFrame]) {
      const first = set.values().next().value;
      const owner = first ? this.byRef.get(first)?.page : undefined;
      if (owner === page || frame.page() === page) this.forgetFrame(frame);
    }
  }

  /** Drop every binding (browser gone). Numbers keep counting up. */
  clear(): void {
    this.byRef.clear();
    this.byFrame.clear();
    this.handles.clear();
  }

  binding(ref: string): RefBinding | undefined {
    return this.byRef.get(ref);
  }

  /** The element bound to `ref`, or REF_UNKNOWN / REF_STALE. Never another element. */
  async resolve(ref: string): Promise<{ handle: ElementHandle; binding: RefBinding }> {
    const m = /^e(\d+)$/.exec(ref);
    if (!m) throw badRequest('BAD_REF', `'${ref}' is not a ref; refs look like e12.`);
    const n = Number(m[1]);
    if (n < 1 || n >= this.next) throw browserErrors.refUnknown(ref);
    const binding = this.byRef.get(ref);
    if (!binding) throw browserErrors.refStale(ref);
    if (binding.page.isClosed()) {
      this.forget(ref);
      throw browserErrors.refStale(ref, 'its tab was closed');
    }
    if (binding.frame.isDetached()) {
      this.forget(ref);
      throw browserErrors.refStale(ref, 'its frame is gone');
    }
    const cached = this.handles.get(ref);
    if (cached) {
      this.handles.delete(ref);
      this.handles.set(ref, cached);
      return { handle: cached, binding };
    }
    let handle: ElementHandle | null;
    try {
      const h = await binding.frame.evaluateHandle(refLookupExpression(this.key, ref));
      handle = h.asElement() as ElementHandle | null;
      if (!handle) await h.dispose();
    } catch (err) {
      const e = fromPlaywright(err, { what: `resolving ${ref}`, ref });
      if (e.code === 'REF_STALE') this.forget(ref);
      throw e;
    }
    if (!handle) {
      this.forget(ref);
      throw browserErrors.refStale(ref);
    }
    this.handles.set(ref, handle);
    if (this.handles.size > HANDLE_CACHE) {
      const [oldest, h] = this.handles.entries().next().value as [string, ElementHandle];
      this.handles.delete(oldest);
      h.dispose().catch(() => undefined);
    }
    return { handle, binding };
  }
}
