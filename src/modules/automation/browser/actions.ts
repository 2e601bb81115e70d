// One function per browser action, and `runAction` dispatching the typed Action union to them.
// Targets are CSS selectors, XPath (`xpath=...` or a leading `/`), frame chains (`iframe#pay >>> button`)
// or snapshot refs (e12). A ref acts on the element it was issued for, wherever it is, or fails REF_STALE.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ElementHandle, Locator, Page } from 'playwright-core';
import { AppError, badRequest } from '../../../core/errors.ts';
import { browserErrors, firstLine, fromPlaywright, type ErrorContext } from './errors.ts';
import { readableExpression } from './page-scripts.ts';
import { asRef } from './refs.ts';
import type { BrowserSession, Tab } from './session.ts';
import { captureSnapshot, countNodes, diffSnapshots, formatSnapshot } from './snapshot.ts';
import { DEFAULT_TIMEOUTS } from './limits.ts';
import type { Action, ActionName, ActionOf, ActionResult, ActionResultMap, ExtractResult, TabInfo } from './types.ts';

export { DEFAULT_TIMEOUTS };
/** The one Action union lives in types.ts (zod schemas, no driver import) so the core can validate it cheaply. */
export type { Action, ActionName, ActionOf, ActionResult } from './types.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Largest JSON an eval may return. */
export const MAX_EVAL_JSON = 1_000_000;

// ---- targets --------------------------------------------------------------------------------------

/** A selector string as Playwright reads it: XPath gets its engine prefix, the rest passes through. */
export function toSelector(raw: string): string {
  const t = raw.trim();
  if (/^(xpath|css)=/.test(t)) return t;
  if (t.startsWith('/') || t.startsWith('(/')) return `xpath=${t}`;
  return t;
}

/** Locator for a selector; `a >>> b` enters the iframe matched by a, then looks for b inside it. */
export function locatorFor(page: Page, target: string): Locator {
  const parts = target.split(/\s+>>>\s+/);
  if (parts.length === 1) return page.locator(toSelector(target));
  let frame = page.frameLocator(toSelector(parts[0]!));
  for (const p of parts.slice(1, -1)) frame = frame.frameLocator(toSelector(p));
  return frame.locator(toSelector(parts.at(-1)!));
}

type Resolved =
  | { kind: 'ref'; ref: string; handle: ElementHandle; tab: Tab }
  | { kind: 'selector'; target: string; locator: Locator; tab: Tab };

async function resolveTarget(session: BrowserSession, target: string, tabId?: string): Promise<Resolved> {
  const ref = asRef(target);
  if (ref) {
    await session.ensure();
    const { handle, binding } = await session.refs.resolve(ref);
    const tab = session.tabOf(binding.page);
    if (tab.crashed) throw browserErrors.pageCrashed(tab.id);
    return { kind: 'ref', ref, handle, tab };
  }
  const tab = await session.tab(tabId);
  return { kind: 'selector', target, locator: locatorFor(tab.page, target), tab };
}

/** Map a failure on a resolved target; for selectors a timeout with no match at all is a 404. */
async function targetError(session: BrowserSession, r: Resolved, err: unknown, ctx: ErrorContext): Promise<AppError> {
  if (r.kind === 'ref') {
    const e = fromPlaywright(err, { ...ctx, ref: r.ref });
    if (e.code === 'REF_STALE') session.refs.forget(r.ref);
    return e;
  }
  const e = fromPlaywright(err, { ...ctx, target: r.target });
  if (e.code === 'TIMEOUT') {
    const n = await r.locator.count().catch(() => -1);
    if (n === 0) return browserErrors.notFound(r.target, ctx.timeoutMs ?? 0);
  }
  return e;
}

const NOT_EDITABLE = /not an <input>|is not editable|Element is not an <input>|Cannot type|not an input/i;

/** Note the start of an action on a tab: a later `wait --navigation` waits for navigations from here on. */
function markAction(tab: Tab): void {
  tab.navMark = tab.navSeq;
}

// ---- URLs -----------------------------------------------------------------------------------------

/** Accept http(s) and about:blank; a bare host gets https:// (http:// for localhost). Else 400. */
export function normalizeUrl(raw: string): string {
  const s = raw.trim();
  if (s === 'about:blank') return s;
  let withScheme = s;
  if (!s.includes('://') && !/^(about|data|file|javascript|chrome|blob|view-source|mailto|ftp|ws|wss):/i.test(s)) {
    const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(s);
    withScheme = `${local ? 'http' : 'https'}://${s}`;
  }
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw browserErrors.badUrl(raw, 'it does not parse as a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw browserErrors.badUrl(raw, `the ${u.protocol} scheme is not allowed (use http or https)`);
  return u.toString();
}

// ---- actions --------------------------------------------------------------------------------------

export async function open(session: BrowserSession, a: ActionOf<'open'>): Promise<ActionResultMap['open']> {
  const url = normalizeUrl(a.url);
  const tab = await session.tab(a.tab);
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.open;
  markAction(tab);
  try {
    const res = await tab.page.goto(url, { waitUntil: a.waitUntil ?? 'load', timeout });
    return { tab: tab.id, url: tab.page.url(), title: await tab.page.title(), status: res?.status() ?? null };
  } catch (err) {
    throw await settleNavError(tab.page, navError(err, url, timeout, `Opening ${url}`));
  }
}

/**
 * After a failed navigation Chromium commits its error page a moment later; a goto issued before that
 * commit would be "interrupted" by it. Wait for the commit so the tab is usable for the next command.
 */
async function settleNavError(page: Page, e: AppError): Promise<AppError> {
  if (e.code !== 'NAVIGATION_FAILED') return e;
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline && !page.isClosed() && !page.url().startsWith('chrome-error://')) await sleep(25);
  return e;
}

function navError(err: unknown, url: string, timeout: number, what: string): AppError {
  const e = fromPlaywright(err, { what, url, timeoutMs: timeout });
  if (e.code === 'BROWSER_ERROR' && /navigat|interrupted|aborted/i.test(firstLine(err))) return browserErrors.navigation(url, firstLine(err));
  return e;
}

export async function screenshot(session: BrowserSession, a: ActionOf<'screenshot'>): Promise<ActionResultMap['screenshot']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.screenshot;
  let buf: Buffer;
  let tab: Tab;
  if (a.target) {
    const r = await resolveTarget(session, a.target, a.tab);
    tab = r.tab;
    try {
      buf = r.kind === 'ref' ? await r.handle.screenshot({ timeout, type: 'png' }) : await r.locator.screenshot({ timeout, type: 'png' });
    } catch (err) {
      throw await targetError(session, r, err, { what: `Screenshot of '${a.target}'`, timeoutMs: timeout });
    }
  } else {
    tab = await session.tab(a.tab);
    try {
      buf = await tab.page.screenshot({ fullPage: !!a.full, timeout, type: 'png' });
    } catch (err) {
      throw fromPlaywright(err, { what: 'Screenshot', timeoutMs: timeout });
    }
  }
  await mkdir(session.mediaDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const filename = `browser-${stamp}-${randomBytes(3).toString('hex')}.png`;
  await writeFile(join(session.mediaDir, filename), buf);
  return { tab: tab.id, filename, url: `/media/${filename}`, bytes: buf.length, fullPage: !!a.full && !a.target };
}

export async function click(session: BrowserSession, a: ActionOf<'click'>): Promise<ActionResultMap['click']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.action;
  const r = await resolveTarget(session, a.target, a.tab);
  markAction(r.tab);
  const opts = { timeout, ...(a.button ? { button: a.button } : {}) };
  try {
    const el = r.kind === 'ref' ? r.handle : r.locator;
    if (a.double) await el.dblclick(opts);
    else await el.click(opts);
  } catch (err) {
    throw await targetError(session, r, err, { what: `Click on '${a.target}'`, timeoutMs: timeout });
  }
  return { tab: r.tab.id, clicked: a.target, url: r.tab.page.url() };
}

/** Mouse at viewport coordinates (CSS px): move, then click (or only move, a hover). No element involved. */
export async function mouse(session: BrowserSession, a: ActionOf<'mouse'>): Promise<ActionResultMap['mouse']> {
  const tab = await session.tab(a.tab);
  markAction(tab);
  const vp = (await tab.page
    .evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }))
    .catch(() => null)) as { w: number; h: number } | null;
  if (vp && (a.x >= vp.w || a.y >= vp.h)) {
    throw badRequest('OUTSIDE_VIEWPORT', `(${a.x}, ${a.y}) lies outside the viewport (${vp.w}×${vp.h} CSS px); scroll the target into view first.`, { x: a.x, y: a.y, viewport: { width: vp.w, height: vp.h } });
  }
  const clickCount = a.clickCount ?? 1;
  try {
    await tab.page.mouse.move(a.x, a.y);
    if (!a.move) await tab.page.mouse.click(a.x, a.y, { button: a.button ?? 'left', clickCount });
  } catch (err) {
    throw fromPlaywright(err, { what: `Mouse ${a.move ? 'move' : 'click'} at (${a.x}, ${a.y})` });
  }
  return { tab: tab.id, x: a.x, y: a.y, button: a.move ? 'move' : (a.button ?? 'left'), clickCount: a.move ? 0 : clickCount, url: tab.page.url() };
}

export async function type(session: BrowserSession, a: ActionOf<'type'>): Promise<ActionResultMap['type']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.action;
  const r = await resolveTarget(session, a.target, a.tab);
  markAction(r.tab);
  try {
    const el = r.kind === 'ref' ? r.handle : r.locator;
    await el.fill(a.text, { timeout });
    if (a.submit) await el.press('Enter', { timeout });
  } catch (err) {
    if (NOT_EDITABLE.test(firstLine(err))) {
      throw new AppError(400, 'NOT_EDITABLE', `'${a.target}' is not a text field (input, textarea or contenteditable); type into a field instead.`, { target: a.target });
    }
    throw await targetError(session, r, err, { what: `Typing into '${a.target}'`, timeoutMs: timeout });
  }
  return { tab: r.tab.id, typed: a.target, chars: a.text.length, submitted: !!a.submit };
}

export async function extract(session: BrowserSession, a: ActionOf<'extract'>): Promise<ActionResultMap['extract']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.extract;
  const what = a.what;
  const r = await resolveTarget(session, a.target, a.tab);
  const base: Omit<ExtractResult, 'count'> = { tab: r.tab.id, target: a.target, what };
  const read = (el: Element, w: string): string | null =>
    w === 'text' ? ((el as HTMLElement).innerText ?? el.textContent) : w === 'html' ? el.innerHTML : el.getAttribute(w.slice(5));
  try {
    if (r.kind === 'ref') {
      const value = await r.handle.evaluate(read, what);
      return a.all ? { ...base, count: 1, values: [value] } : { ...base, count: 1, value };
    }
    if (a.all) {
      const values = await r.locator.evaluateAll((els, w) => els.map((el) => (w === 'text' ? ((el as HTMLElement).innerText ?? el.textContent) : w === 'html' ? el.innerHTML : el.getAttribute(w.slice(5)))), what);
      return { ...base, count: values.length, values };
    }
    const first = r.locator.first();
    await first.waitFor({ state: 'attached', timeout });
    const [value, count] = await Promise.all([first.evaluate(read, what), r.locator.count()]);
    return { ...base, count, value };
  } catch (err) {
    throw await targetError(session, r, err, { what: `Extracting ${what} from '${a.target}'`, timeoutMs: timeout });
  }
}

/**
 * What the page evaluates for a script: an expression is evaluated and, when its value is a function
 * (`() => document.title`, `async function () {…}`), that function is called; an expression that
 * calls one itself (`(() => document.title)()`) is just evaluated; statements (`const a = 1; a + 1`)
 * run as written. Whether the script is an expression is decided by compiling it here (nothing runs).
 */
export function evalExpression(script: string): string {
  try {
    new Function(`return (${script}\n)`);
  } catch {
    return script;
  }
  return `(v => typeof v === 'function' ? v() : v)((${script}\n))`;
}

export async function evaluate(session: BrowserSession, a: ActionOf<'eval'>): Promise<ActionResultMap['eval']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.eval;
  const tab = await session.tab(a.tab);
  markAction(tab);
  const script = a.script.trim();
  const expression = evalExpression(script);
  let timer: NodeJS.Timeout | undefined;
  let result: unknown;
  try {
    result = await Promise.race([
      tab.page.evaluate(expression),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(browserErrors.timeout('The script', timeout)), timeout);
      }),
    ]);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const e = fromPlaywright(err, { what: 'The script', timeoutMs: timeout });
    if (e.code === 'BROWSER_ERROR') throw browserErrors.evalError(firstLine(err).replace(/^page\.evaluate: /, ''));
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const json = JSON.stringify(result ?? null) ?? 'null';
  if (json.length > MAX_EVAL_JSON) throw browserErrors.resultTooLarge(json.length, MAX_EVAL_JSON);
  return { tab: tab.id, result: JSON.parse(json) as unknown };
}

export async function wait(session: BrowserSession, a: ActionOf<'wait'>): Promise<ActionResultMap['wait']> {
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.wait;
  const started = Date.now();
  const deadline = started + timeout;
  if (a.selector) {
    if (asRef(a.selector)) throw badRequest('BAD_WAIT_TARGET', 'wait takes a selector, not a ref: a ref already names an element that exists.');
    const tab = await session.tab(a.tab);
    const loc = locatorFor(tab.page, a.selector);
    try {
      await loc.first().waitFor({ state: a.state ?? 'visible', timeout });
    } catch (err) {
      throw fromPlaywright(err, { what: `Waiting for '${a.selector}' to be ${a.state ?? 'visible'}`, target: a.selector, timeoutMs: timeout });
    }
    return { tab: tab.id, waited: 'selector', ms: Date.now() - started, url: tab.page.url() };
  }
  const tab = await session.tab(a.tab);
  if (a.navigation) {
    // A navigation counts if it started after the previous action on this tab began (so `click` then
    // `wait --navigation` works even when the click already navigated), else we wait for the next one.
    while (tab.navSeq <= tab.navMark) {
      const left = deadline - Date.now();
      if (left <= 0) throw browserErrors.timeout('Waiting for a navigation', timeout, `the page stayed on ${tab.page.url()}`);
      if (tab.page.isClosed()) throw new AppError(409, 'TAB_CLOSED', `Tab ${tab.id} closed while waiting for a navigation.`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          tab.navWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        tab.navWaiters.add(done);
      });
    }
    try {
      await tab.page.waitForLoadState('load', { timeout: Math.max(1, deadline - Date.now()) });
    } catch (err) {
      throw fromPlaywright(err, { what: 'Waiting for the new page to load', timeoutMs: timeout });
    }
    tab.navMark = tab.navSeq;
    return { tab: tab.id, waited: 'navigation', ms: Date.now() - started, url: tab.page.url() };
  }
  // Network idle: page loaded, then no request in flight for idleMs.
  const idleMs = a.idleMs ?? 500;
  try {
    await tab.page.waitForLoadState('load', { timeout });
  } catch (err) {
    throw fromPlaywright(err, { what: 'Waiting for the page to load', timeoutMs: timeout });
  }
  for (;;) {
    const now = Date.now();
    if (tab.inflight.size === 0 && now - tab.lastNetworkAt >= idleMs) break;
    if (now >= deadline) {
      const pending = [...tab.inflight.values()].slice(0, 3).map((e) => `${e.method} ${e.url}`);
      throw browserErrors.timeout('Waiting for network idle', timeout, pending.length ? `${tab.inflight.size} request(s) still open, e.g. ${pending.join(', ')}` : undefined);
    }
    const quietLeft = tab.inflight.size === 0 ? idleMs - (now - tab.lastNetworkAt) : 50;
    await sleep(Math.max(10, Math.min(quietLeft, 50, deadline - now)));
  }
  return { tab: tab.id, waited: 'idle', ms: Date.now() - started, url: tab.page.url() };
}

export async function snapshot(session: BrowserSession, a: ActionOf<'snapshot'>): Promise<ActionResultMap['snapshot']> {
  const tab = await session.tab(a.tab);
  let cap;
  try {
    cap = await captureSnapshot(tab.page, session.refs, tab.id, a.maxNodes);
  } catch (err) {
    // A navigation raced the snapshot: let the new document settle and try once more.
    if (!/Execution context was destroyed|navigat/i.test(firstLine(err))) throw fromPlaywright(err, { what: 'Snapshot' });
    await tab.page.waitForLoadState('domcontentloaded', { timeout: 10_000 }).catch(() => undefined);
    try {
      cap = await captureSnapshot(tab.page, session.refs, tab.id, a.maxNodes);
    } catch (err2) {
      throw fromPlaywright(err2, { what: 'Snapshot' });
    }
  }
  const text = formatSnapshot(cap.nodes);
  const { lines, refs } = countNodes(cap.nodes);
  const title = await tab.page.title().catch(() => '');
  const result: ActionResultMap['snapshot'] = {
    tab: tab.id,
    url: tab.page.url(),
    title,
    text,
    lines,
    refs,
    frames: cap.frames,
    truncated: cap.truncated,
  };
  if (a.diff) {
    result.hadPrevious = tab.lastSnapshot !== undefined;
    result.diff = diffSnapshots(tab.lastSnapshot ?? '', text);
  }
  tab.lastSnapshot = text;
  return result;
}

export async function tabs(session: BrowserSession): Promise<ActionResultMap['tabs']> {
  await session.ensure();
  const list: TabInfo[] = await Promise.all(session.visibleTabs().map((t) => session.tabInfo(t)));
  const active = session.activeTabId;
  return active ? { tabs: list, active } : { tabs: list };
}

export async function tabOpen(session: BrowserSession, a: ActionOf<'tab_open'>): Promise<ActionResultMap['tab_open']> {
  const url = a.url ? normalizeUrl(a.url) : undefined;
  const ctx = await session.context();
  const tab = session.register(await ctx.newPage());
  session.setActive(tab);
  if (url) {
    const timeout = a.timeout ?? DEFAULT_TIMEOUTS.open;
    markAction(tab);
    try {
      await tab.page.goto(url, { waitUntil: 'load', timeout });
    } catch (err) {
      throw await settleNavError(tab.page, navError(err, url, timeout, `Opening ${url}`));
    }
  }
  return { tab: await session.tabInfo(tab) };
}

export async function tabSwitch(session: BrowserSession, a: ActionOf<'tab_switch'>): Promise<ActionResultMap['tab_switch']> {
  const tab = await session.anyTab(a.tab);
  session.setActive(tab);
  await tab.page.bringToFront().catch(() => undefined);
  return { tab: await session.tabInfo(tab) };
}

export async function tabClose(session: BrowserSession, a: ActionOf<'tab_close'>): Promise<ActionResultMap['tab_close']> {
  const tab = await session.anyTab(a.tab);
  if (session.visibleTabs().length <= 1) {
    // Keep one tab open: closing a browser's last window can end the browser itself.
    const ctx = await session.context();
    session.register(await ctx.newPage());
  }
  await tab.page.close().catch(() => undefined);
  const active = session.activeTabId;
  return active ? { closed: tab.id, active } : { closed: tab.id };
}

export async function consoleLog(session: BrowserSession, a: ActionOf<'console'>): Promise<ActionResultMap['console']> {
  const tab = await session.anyTab(a.tab);
  const entries = tab.console.toArray(a.limit ?? 100);
  const total = tab.console.total;
  if (a.clear) tab.console.clear();
  return { tab: tab.id, entries, total };
}

export async function networkLog(session: BrowserSession, a: ActionOf<'network'>): Promise<ActionResultMap['network']> {
  const tab = await session.anyTab(a.tab);
  const entries = tab.network.toArray(a.limit ?? 100).map((e) => ({ ...e }));
  const total = tab.network.total;
  if (a.clear) tab.network.clear();
  return { tab: tab.id, entries, total };
}

export async function fetchPage(session: BrowserSession, a: ActionOf<'fetch'>): Promise<ActionResultMap['fetch']> {
  const url = normalizeUrl(a.url);
  const timeout = a.timeout ?? DEFAULT_TIMEOUTS.fetch;
  const maxChars = a.maxChars ?? 100_000;
  const ctx = await session.context();
  const page = await ctx.newPage();
  const tab = session.register(page);
  tab.internal = true;
  const deadline = Date.now() + timeout;
  try {
    let status: number | undefined;
    try {
      const res = await page.goto(url, { waitUntil: 'domcontentloaded', timeout });
      status = res?.status();
    } catch (err) {
      throw navError(err, url, timeout, `Fetching ${url}`);
    }
    await page.waitForLoadState('load', { timeout: Math.max(1, Math.min(5000, deadline - Date.now())) }).catch(() => undefined);
    const r = (await page.evaluate(readableExpression(maxChars))) as { title: string; text: string; truncated: boolean };
    return {
      url,
      finalUrl: page.url(),
      ...(status !== undefined ? { status } : {}),
      title: r.title,
      text: r.text,
      chars: r.text.length,
      truncated: r.truncated,
    };
  } catch (err) {
    throw fromPlaywright(err, { what: `Fetching ${url}`, url, timeoutMs: timeout });
  } finally {
    await page.close().catch(() => undefined);
  }
}

// ---- dispatch -------------------------------------------------------------------------------------

/** Run one action. Every failure leaves as an AppError. */
export async function runAction<N extends ActionName>(session: BrowserSession, action: ActionOf<N>): Promise<ActionResult<N>>;
export async function runAction(session: BrowserSession, action: Action): Promise<ActionResult> {
  // whatever an action did not map itself (a tab opened or closed as the browser went away): one of the
  // browser's errors, never a raw Playwright error
  return perform(session, action).catch((err: unknown) => {
    throw fromPlaywright(err, { what: action.action });
  });
}

async function perform(session: BrowserSession, action: Action): Promise<ActionResult> {
  switch (action.action) {
    case 'open':
      return open(session, action);
    case 'screenshot':
      return screenshot(session, action);
    case 'click':
      return click(session, action);
    case 'mouse':
      return mouse(session, action);
    case 'type':
      return type(session, action);
    case 'extract':
      return extract(session, action);
    case 'eval':
      return evaluate(session, action);
    case 'wait':
      return wait(session, action);
    case 'snapshot':
      return snapshot(session, action);
    case 'tabs':
      return tabs(session);
    case 'tab_open':
      return tabOpen(session, action);
    case 'tab_switch':
      return tabSwitch(session, action);
    case 'tab_close':
      return tabClose(session, action);
    case 'console':
      return consoleLog(session, action);
    case 'network':
      return networkLog(session, action);
    case 'fetch':
      return fetchPage(session, action);
  }
}
