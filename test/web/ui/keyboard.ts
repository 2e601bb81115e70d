// Shared by the UI tests of each surface: moving by Tab alone, checking that every control of a part of
// the page is reached by Tab, and that nothing sticks out sideways.
import type { Page } from 'playwright-core';

/** What the focused element is, for messages. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}[${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? ''}]`;
  });

/**
 * Presses Tab (or Shift+Tab) until the focused element matches `selector` (a CSS selector) and, with
 * `text`, has that text (its own, its label's or its aria-label); fails after `max` presses.
 */
export async function tabTo(page: Page, selector: string, { max = 250, back = false, text }: { max?: number; back?: boolean; text?: string } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    const there = await page.evaluate(
      ([s, t]) => {
        const el = document.activeElement;
        if (!el?.matches(s!)) return false;
        if (!t) return true;
        return [el.textContent, el.closest('label')?.textContent, el.getAttribute('aria-label')].some((x) => x?.includes(t));
      },
      [selector, text] as const,
    );
    if (there) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}${text ? ` "${text}"` : ''} (last: ${await focused(page)})`);
}

/**
 * Every visible, enabled control inside `root` is reached by pressing Tab: each is numbered, then Tab
 * is pressed until the focus has come back to where it started (or `max` presses), and the numbers
 * never reached are named.
 */
export async function everyControlTabbable(page: Page, root: string, max = 400): Promise<{ total: number; missed: string[] }> {
  const total = await page.evaluate((rootSel) => {
    const scope = document.querySelector(rootSel);
    if (!scope) throw new Error(`no ${rootSel}`);
    let n = 0;
    for (const el of scope.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href], [tabindex="0"]')) {
      const hidden = el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden';
      if (hidden || (el as HTMLButtonElement).disabled) continue;
      el.dataset.tabProbe = String(n++);
    }
    return n;
  }, root);
  const seen = new Set<string>();
  let start: string | null = null;
  for (let i = 0; i < max && seen.size < total; i++) {
    await page.keyboard.press('Tab');
    const probe = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset?.tabProbe ?? null);
    if (probe === null) continue;
    // back where it started: the rest is not reached by Tab
    if (probe === start) break;
    start ??= probe;
    seen.add(probe);
  }
  const missed = await page.evaluate((seenList) => {
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('[data-tab-probe]')) {
      if (!seenList.includes(el.dataset.tabProbe!)) out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}[${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? ''}]`);
      delete el.dataset.tabProbe;
    }
    return out;
  }, [...seen]);
  return { total, missed };
}

/** What sticks out to the right of the window, or makes a scrolling part scroll sideways (none: []). */
export function overflowing(page: Page, root: string): Promise<string[]> {
  return page.evaluate((rootSel) => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width + 1) out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    const scope = document.querySelector(rootSel);
    if (!scope) return [`no ${rootSel}`];
    for (const el of [scope, ...scope.querySelectorAll<HTMLElement>('*')]) {
      const style = getComputedStyle(el);
      if (el.getClientRects().length === 0 || style.visibility === 'hidden') continue;
      const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
      if (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) out.push(`${name} scrolls sideways (${el.scrollWidth} > ${el.clientWidth})`);
      const box = el.getBoundingClientRect();
      if (box.right > width + 1 && box.width > 0) out.push(`${name} ends at ${Math.round(box.right)} > ${width}`);
    }
    return out.slice(0, 10);
  }, root);
}
