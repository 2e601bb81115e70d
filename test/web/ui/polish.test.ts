// The rough edges a new user hits: the provider picker inside the window at every width; the
// settings page (model and effort offered from the registry, an ordered choice of fallback
// providers, a Save bar that covers no field, one "Settings" heading); session buttons named by their
// title; a composer focus ring that shows; a status pill that keeps its word on a phone.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { PROVIDERS } from '../../../src/agent/providers/registry.ts';
import { startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

/** WCAG contrast ratio of two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const lum = (css: string) => {
    const [r, g, bl] = css.match(/[\d.]+/g)!.slice(0, 3).map(Number).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const openSettings = async (page: Page) => {
  await page.getByRole('button', { name: 'Settings', exact: true }).first().click();
  await page.waitForSelector('#settings-title');
};

describe('web UI: fit and finish', () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    buildWeb();
    server = await startServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the provider picker opens inside the window, wide and on a phone', async () => {
    // a long title pushes the picker to the right in a window just wide enough for the sidebar
    const { chat } = server.app.services;
    chat.renameSession(chat.activeSession().id, 'A conversation with a rather long title that fills the header');
    for (const width of [1280, 850, 390]) {
      const { page, context, errors } = await openPage(browser, server, { width, height: 800 });
      try {
        const button = page.locator('.picker-btn');
        await until(async () => (await button.textContent())?.includes('Claude Code'), 'the registry');
        await button.click();
        const pop = page.getByRole('dialog', { name: 'Choose the agent' });
        await pop.waitFor();
        const box = (await pop.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= width, `${width} px: ${JSON.stringify(box)} is inside the window`);
        assert.ok(box.width >= Math.min(300, width - 40), `${width} px: not squeezed (${box.width})`);
        // nothing inside is cut off (a long install command does not widen the list past the edge)
        assert.ok(await pop.evaluate((el) => el.scrollWidth <= el.clientWidth), `${width} px: the content fits across`);
        // the button does not run into the status beside it
        const picker = (await button.boundingBox())!;
        const pill = (await page.locator('.status-pill').boundingBox())!;
        assert.ok(picker.x + picker.width <= pill.x, `${width} px: the picker ends before the status (${picker.x + picker.width} > ${pill.x})`);
        await shot(page, `picker-in-window-${width}`);
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await context.close();
      }
    }
  });

  test('settings: model and effort from the registry or typed in, fallback providers in order, one heading, no field under the Save bar', async () => {
    const { settings } = server.app.services;
    settings.update({ agent: { provider: 'claude', model: '', effort: '', fallback: [] } });
    const { page, context, errors } = await openPage(browser, server, { width: 1280, height: 700 });
    try {
      await openSettings(page);
      assert.equal(await page.getByRole('heading', { name: 'Settings' }).count(), 1, '"Settings" once');
      const claude = PROVIDERS.find((p) => p.id === 'claude')!;
      await until(async () => (await page.locator('#set-agent-model option').count()) > 1, 'the registry');
      // the model: the registry's list, and Custom… for another name
      const models = await page.locator('#set-agent-model option').allTextContents();
      assert.deepEqual(models, [...claude.models.map((m) => m.label), 'Custom…']);
      await page.selectOption('#set-agent-model', 'sonnet');
      const efforts = await page.locator('#set-agent-effort option').allTextContents();
      assert.deepEqual(efforts, ['Default', ...claude.efforts, 'Custom…']);
      await page.selectOption('#set-agent-effort', 'high');
      await page.getByRole('button', { name: 'Save' }).click();
      await until(() => settings.get().agent.model === 'sonnet' && settings.get().agent.effort === 'high', 'model and effort saved');
      await page.selectOption('#set-agent-model', { label: 'Custom…' });
      const custom = page.getByLabel('Model: custom value');
      assert.equal(await custom.inputValue(), 'sonnet', 'starts from the current value');
      await custom.fill('claude-opus-9-preview');
      await page.getByRole('button', { name: 'Save' }).click();
      await until(() => settings.get().agent.model === 'claude-opus-9-preview', 'the custom model saved');

      // fallback providers: add, reorder, remove (the active provider is not offered)
      const fallback = page.locator('[data-field="agent.fallback"]');
      const offered = await fallback.getByLabel('Fallback provider to add').locator('option').allTextContents();
      assert.ok(!offered.includes('Claude Code'), offered.join());
      for (const name of ['Codex CLI', 'Gemini CLI', 'OpenCode']) {
        await fallback.getByLabel('Fallback provider to add').selectOption({ label: name });
        await fallback.getByRole('button', { name: 'Add' }).click();
      }
      const order = () => fallback.locator('.order-list li').evaluateAll((els) => els.map((el) => el.getAttribute('data-provider')));
      assert.deepEqual(await order(), ['codex', 'gemini', 'opencode']);
      await fallback.getByRole('button', { name: 'Move OpenCode up' }).click();
      await fallback.getByRole('button', { name: 'Move Codex CLI down' }).click();
      assert.deepEqual(await order(), ['opencode', 'codex', 'gemini']);
      await fallback.getByRole('button', { name: 'Remove Codex CLI' }).click();
      assert.equal(await fallback.locator('textarea').count(), 0, 'no free text');
      await shot(page, 'settings-fallback');
      await page.getByRole('button', { name: 'Save' }).click();
      await until(() => JSON.stringify(settings.get().agent.fallback) === '["opencode","gemini"]', 'the order saved');

      // moving through the form with the keyboard, every field and its label stay above the Save bar
      const bar = page.locator('.settings-form > .settings-actions');
      await page.locator('#set-agent-provider').focus();
      let checked = 0;
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const where = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          if (!el.closest('.setting') || el.closest('.settings-actions')) return null;
          const label = el.closest('.setting')!.querySelector('label, .map-label') as HTMLElement;
          return { field: el.closest('.setting')!.getAttribute('data-field'), el: el.getBoundingClientRect().bottom, label: label.getBoundingClientRect().bottom };
        });
        if (!where) continue;
        checked++;
        const top = (await bar.boundingBox())!.y;
        assert.ok(where.el <= top + 0.5 && where.label <= top + 0.5, `${where.field} is above the Save bar (${JSON.stringify(where)}, bar at ${top})`);
      }
      assert.ok(checked > 10, `fields checked: ${checked}`);
      // at the end of the page, the last field's label shows above the bar
      await page.locator('.settings-page').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      const lastLabel = await page.locator('.setting').last().locator('label, .map-label').first().boundingBox();
      assert.ok(lastLabel!.y + lastLabel!.height <= (await bar.boundingBox())!.y, 'the last label is above the bar');
      await shot(page, 'settings-bottom');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      settings.update({ agent: { model: '', effort: '', fallback: [] } });
    }
  });

  test('a session button is named by its title, with the time as its description', async () => {
    const { chat } = server.app.services;
    const session = chat.createSession('explain this repo', false);
    const { page, context, errors } = await openPage(browser, server);
    try {
      const button = page.locator('.sessions').getByRole('button', { name: 'explain this repo', exact: true });
      assert.equal(await button.count(), 1);
      const description = await button.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby')!)?.textContent);
      assert.equal(description, 'just now');
      assert.equal(await button.getAttribute('data-session-id'), session.id);
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });

  test('the composer shows a clear focus ring, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, context, errors } = await openPage(browser, server, { colorScheme });
      try {
        await page.locator('#composer-input').focus();
        const ring = await page.evaluate(() => {
          const style = getComputedStyle(document.querySelector('.composer')!);
          const bg = getComputedStyle(document.body).backgroundColor;
          if (style.outlineStyle !== 'none') return { color: style.outlineColor, width: parseFloat(style.outlineWidth), bg };
          // or a box-shadow ring: its first shadow's colour and spread
          const first = /^(rgba?\([^)]*\))\s+0px\s+0px\s+0px\s+([\d.]+)px/.exec(style.boxShadow);
          return { color: first?.[1] ?? 'rgb(255, 255, 255)', width: Number(first?.[2] ?? 0), bg };
        });
        assert.ok(ring.width >= 2, `${colorScheme}: ring width ${ring.width}`);
        assert.ok(contrast(ring.color, ring.bg) >= 3, `${colorScheme}: ring ${ring.color} on ${ring.bg}: ${contrast(ring.color, ring.bg).toFixed(2)}:1`);
        await shot(page, `composer-focus-${colorScheme}`);
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await context.close();
      }
    }
  });

  test('on a phone the status pill shows its word, inside the header', async () => {
    const { page, context, errors } = await openPage(browser, server, { width: 390, height: 844 });
    try {
      const pill = page.locator('.status-pill');
      // the word depends on whether this machine has the default provider's CLI (none is set up here)
      assert.match((await pill.textContent())?.trim() ?? '', /^(Ready|Not set up)$/);
      const seen = await pill.evaluate((el) => ({ font: parseFloat(getComputedStyle(el).fontSize), width: el.getBoundingClientRect().width, right: el.getBoundingClientRect().right }));
      assert.ok(seen.font >= 11, `readable text (${seen.font} px)`);
      assert.ok(seen.width >= 50 && seen.right <= 390, JSON.stringify(seen));
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing overflows');
      await shot(page, 'status-pill-phone');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});
