// Reading a chat page through a profile (browser server only): locator specs to Playwright locators,
// what state the page is in (captcha, login wall, ready, unknown layout) with what was checked, the
// assistant messages' text, and the code blocks in them.
import type { Locator, Page } from 'playwright-core';
import { AppError } from '../../../core/errors.ts';
import { firstLine } from '../browser/index.ts';
import type { RawBlock } from './code.ts';
import {
  alternatives,
  describeFinder,
  describeMarkers,
  describeSpec,
  matchesPattern,
  toPattern,
  type Finder,
  type LocatorSpec,
  type Markers,
  type ResolvedProfile,
} from './profiles.ts';
import type { Check, PageState } from './types.ts';

type Root = Page | Locator;

export function locatorOf(root: Root, spec: LocatorSpec): Locator {
  if (typeof spec === 'string') return root.locator(spec);
  return root.getByRole(spec.role, { ...(spec.name ? { name: toPattern(spec.name) } : {}), ...(spec.exact ? { exact: true } : {}) });
}

/** A selector the page cannot parse is the profile's fault: say which field. */
function badSelector(where: string, spec: LocatorSpec, err: unknown): AppError {
  return new AppError(400, 'WEB_AI_PROFILE_INVALID', `${where}: ${describeSpec(spec)} is not a selector the page accepts (${firstLine(err)}). Fix it in the profile file.`, { field: where });
}

async function countOf(loc: Locator, where: string, spec: LocatorSpec): Promise<number> {
  try {
    return await loc.count();
  } catch (err) {
    if (/selector|Unexpected token|Unknown engine|parsing/i.test(firstLine(err))) throw badSelector(where, spec, err);
    throw err;
  }
}

/** The first visible element of the first alternative that has one; null when none does. */
export async function firstVisible(root: Root, finder: Finder, where: string): Promise<{ locator: Locator; spec: LocatorSpec } | null> {
  for (const spec of alternatives(finder)) {
    const visible = locatorOf(root, spec).filter({ visible: true });
    if ((await countOf(visible, where, spec)) > 0) return { locator: visible.first(), spec };
  }
  return null;
}

/** Every element of the first alternative that matches any (the first alternative when none does). */
export async function allOf(root: Root, finder: Finder, where: string): Promise<Locator> {
  const specs = alternatives(finder);
  for (const spec of specs) {
    const loc = locatorOf(root, spec);
    if ((await countOf(loc, where, spec)) > 0) return loc;
  }
  return locatorOf(root, specs[0]!);
}

async function markersSeen(page: Page, m: Markers, where: string): Promise<{ found: boolean; detail?: string }> {
  if (m.url && matchesPattern(page.url(), m.url)) return { found: true, detail: `url ${page.url()}` };
  if (m.title) {
    const title = await page.title();
    if (matchesPattern(title, m.title)) return { found: true, detail: `title "${title}"` };
  }
  const hit = m.elements ? await firstVisible(page, m.elements, `${where}.elements`) : null;
  return hit ? { found: true, detail: describeSpec(hit.spec) } : { found: false };
}

export interface Detection {
  state: PageState;
  checks: Check[];
  /** The composer, when the page is ready. */
  composer: Locator | null;
}

/** One look at the page: a captcha, then a login wall, then the composer. */
export async function lookAt(page: Page, p: ResolvedProfile): Promise<Detection> {
  const captcha = await markersSeen(page, p.captcha, `profiles.${p.id}.captcha`);
  const login = captcha.found ? { found: false } : await markersSeen(page, p.login, `profiles.${p.id}.login`);
  const composer = await firstVisible(page, p.composer, `profiles.${p.id}.composer`);
  const state: PageState = captcha.found ? 'captcha' : login.found ? 'needs_login' : composer ? 'ready' : 'unknown_layout';
  const checks: Check[] = [
    { check: 'captcha', found: captcha.found, tried: describeMarkers(p.captcha), ...(captcha.detail ? { detail: captcha.detail } : {}) },
    { check: 'login', found: login.found, tried: describeMarkers(p.login), ...(login.detail ? { detail: login.detail } : {}) },
    { check: 'composer', found: !!composer, tried: describeFinder(p.composer), ...(composer ? { detail: describeSpec(composer.spec) } : {}) },
  ];
  return { state, checks, composer: composer?.locator ?? null };
}

/** Look until the page is in a known state or the time is up (pages render their composer late). */
export async function detect(page: Page, p: ResolvedProfile, timeoutMs: number, intervalMs = 250): Promise<Detection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await lookAt(page, p);
    if (d.state !== 'unknown_layout' || Date.now() >= deadline) return d;
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

export async function isVisible(page: Page, finder: Finder | undefined, where: string): Promise<boolean> {
  return finder ? (await firstVisible(page, finder, where)) !== null : false;
}

/** The checks a status report adds: send and stop buttons, assistant messages, file attaching. */
export async function moreChecks(page: Page, p: ResolvedProfile): Promise<Check[]> {
  const at = (f: string) => `profiles.${p.id}.${f}`;
  const checks: Check[] = [];
  if (p.send) {
    const hit = await firstVisible(page, p.send, at('send'));
    checks.push({ check: 'send', found: !!hit, tried: describeFinder(p.send), ...(hit ? { detail: describeSpec(hit.spec) } : {}) });
  }
  if (p.stop) {
    const hit = await firstVisible(page, p.stop, at('stop'));
    checks.push({ check: 'stop', found: !!hit, tried: describeFinder(p.stop), detail: hit ? 'an answer is being written' : 'not shown (nothing is being written)' });
  }
  const n = (await readAnswers(page, p)).length;
  checks.push({ check: 'answers', found: n > 0, tried: describeFinder(p.answer), detail: `${n} assistant message${n === 1 ? '' : 's'} on the page` });
  if (p.attach?.input) {
    let found = false;
    for (const spec of alternatives(p.attach.input)) found ||= (await countOf(locatorOf(page, spec), at('attach.input'), spec)) > 0;
    checks.push({ check: 'attach', found, tried: describeFinder(p.attach.input) });
  } else if (p.attach?.open) {
    const hit = await firstVisible(page, p.attach.open[0]!, at('attach.open'));
    checks.push({ check: 'attach', found: !!hit, tried: p.attach.open.map(describeSpec) });
  }
  return checks;
}

// Page functions are built with new Function: tsx/esbuild would add helpers (__name) to a function written
// here, and those do not exist in the page.
const TEXTS = new Function('els', 'return els.map(function (e) { return e.innerText || e.textContent || ""; });') as (els: Element[]) => string[];

/** The text of every assistant message on the page, oldest first. */
export async function readAnswers(page: Page, p: ResolvedProfile): Promise<string[]> {
  return (await allOf(page, p.answer, `profiles.${p.id}.answer`)).evaluateAll(TEXTS);
}

/**
 * The code blocks of messages [from, to) (from < 0: the last message only), each with its language and
 * the text between it and the previous block (for a file name the answer gives). Walks each message in
 * document order, putting line breaks at block elements, so that "before" reads like the rendered text.
 */
const EXTRACT = new Function(
  'els',
  'o',
  String.raw`
  var c = o.code;
  var BLOCKISH = /^(P|DIV|LI|UL|OL|H[1-6]|BR|TR|TABLE|SECTION|ARTICLE|HEADER|FOOTER|BLOCKQUOTE|PRE|DT|DD|FIGURE|FIGCAPTION|SUMMARY|DETAILS)$/;
  var SKIP = /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|BUTTON|SVG)$/i;
  function within(b, sel) { return b.matches(sel) ? b : b.querySelector(sel); }
  function rx(p) { var m = /^\/([\s\S]+)\/([a-z]*)$/.exec(p); return m ? new RegExp(m[1], m[2].replace(/[gy]/g, '')) : new RegExp(p.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'), 'i'); }
  function language(b) {
    for (var i = 0; i < c.language.length; i++) {
      var r = c.language[i];
      if (r.label) { var l = b.querySelector(r.label); var t = l && (l.textContent || '').trim(); if (t) return t; continue; }
      var el = r.of ? within(b, r.of) : b;
      var v = el && el.getAttribute(r.attribute);
      if (!v) continue;
      if (!r.pattern) return v.trim();
      var m = rx(r.pattern).exec(v);
      if (m) return (m[1] || m[0]).trim();
    }
    return null;
  }
  var out = [];
  var from = o.from < 0 ? Math.max(0, els.length - 1) : o.from;
  var to = o.to == null ? els.length : o.to;
  els.slice(from, to).forEach(function (msg) {
    var seg = '';
    (function walk(n) {
      if (n.nodeType === 3) { seg += n.data; return; }
      if (n.nodeType !== 1 || SKIP.test(n.tagName)) return;
      if (n.matches(c.block)) {
        var t = c.text ? within(n, c.text) : null;
        out.push({ code: (t || n).textContent || '', language: language(n), before: seg.slice(-2000) });
        seg = '';
        return;
      }
      var br = BLOCKISH.test(n.tagName);
      if (br) seg += '\n';
      for (var ch = n.firstChild; ch; ch = ch.nextSibling) walk(ch);
      if (br) seg += '\n';
    })(msg);
  });
  return out;
`,
) as (els: Element[], o: { from: number; to?: number; code: ResolvedProfile['code'] }) => RawBlock[];

export async function readBlocks(page: Page, p: ResolvedProfile, from: number, to?: number): Promise<RawBlock[]> {
  const loc = await allOf(page, p.answer, `profiles.${p.id}.answer`);
  return loc.evaluateAll(EXTRACT, { from, ...(to !== undefined ? { to } : {}), code: p.code });
}
