// The web UI in real Chromium against the real server: history a page at a time, sessions,
// search, settings, reload.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { getJson, sendJson, startServer, type TestServer } from '../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

const TOTAL = 300;

describe('web UI: history, sessions, search, settings', () => {
  let server: TestServer;
  let browser: Browser;
  let mainId: string;
  let otherId: string;

  before(async () => {
    buildWeb();
    server = await startServer();
    const { chat } = server.app.context;
    mainId = chat.activeSession().id;
    for (let i = 1; i <= TOTAL; i++) {
      const long = i % 7 === 0 ? `\n\n${'A longer paragraph that wraps over several lines. '.repeat(6)}\n\n\`\`\`js\nconsole.log(${i});\n\`\`\`` : '';
      chat.saveMessage({ sessionId: mainId, role: i % 2 ? 'user' : 'assistant', content: `message number ${i}${long}` });
    }
    const other = chat.createSession('Zoo notes', false);
    otherId = other.id;
    chat.saveMessage({ sessionId: otherId, role: 'user', content: 'tell me about zebra stripes' });
    chat.saveMessage({ sessionId: otherId, role: 'assistant', content: 'Zebra stripes may deter biting flies.' });
    // the main session stays the most recent one
    chat.sessions.touch(mainId, Date.now() + 1000);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const visibleIds = (page: Page) =>
    page.$$eval('.vl-row [data-message-id]', (els) => {
      const box = document.querySelector('.vl-scroller')!.getBoundingClientRect();
      return els
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.bottom > box.top && r.top < box.bottom;
        })
        .map((el) => Number((el as HTMLElement).dataset.messageId));
    });

  test('history loads the latest page, then one older page at a time while scrolling up', async () => {
    const requests: URL[] = [];
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        p.on('request', (r) => {
          const url = new URL(r.url());
          // (an `after=` request is the catch-up when the event channel opened after the first page)
          if (url.pathname === '/api/messages' && !url.searchParams.has('after')) requests.push(url);
        });
      },
    });
    const ids = await visibleIds(page);
    const lastId = server.app.context.chat.messages.page(mainId, { limit: 1 }).messages[0]!.id;
    assert.ok(ids.includes(lastId), 'the newest message is in view');
    assert.equal(requests.length, 1);
    assert.equal(requests[0]!.searchParams.get('limit'), '50');
    assert.equal(requests[0]!.searchParams.get('before'), null);
    assert.equal(await page.locator(`[data-message-id="${lastId - TOTAL + 1}"]`).count(), 0, 'the first message is not loaded');
    await shot(page, 'history-latest');

    // Scroll to the very top: one older page comes, and what was at the top stays where it was.
    const topBefore = lastId - 49;
    await page.evaluate(() => (document.querySelector('.vl-scroller')!.scrollTop = 0));
    await until(() => requests.length >= 2, 'the second page request');
    await until(async () => (await page.locator('.loading-older').count()) === 0, 'the page to load');
    assert.equal(requests[1]!.searchParams.get('limit'), '50');
    assert.equal(Number(requests[1]!.searchParams.get('before')), lastId - 49, 'before = the oldest loaded id');
    const scrollTop = await page.evaluate(() => document.querySelector('.vl-scroller')!.scrollTop);
    assert.ok(scrollTop > 300, `the view did not jump to the new top (scrollTop ${scrollTop})`);
    const after = await visibleIds(page);
    assert.ok(after.includes(topBefore), `message ${topBefore} is still in view after the older page arrived (${after.join(',')})`);

    // Keep scrolling up to the first message.
    const firstId = lastId - TOTAL + 1;
    for (let i = 0; i < 40 && (await page.locator(`[data-message-id="${firstId}"]`).count()) === 0; i++) {
      await page.mouse.move(700, 300);
      await page.mouse.wheel(0, -4000);
      await page.waitForTimeout(60);
    }
    await until(async () => (await visibleIds(page)).includes(firstId) || (await page.evaluate(() => (document.querySelector('.vl-scroller')!.scrollTop = 0, false))), 'the first message', 5000).catch(() => undefined);
    assert.ok((await visibleIds(page)).includes(firstId), 'reached the first message');
    assert.equal(requests.length, TOTAL / 50, 'one request per page, never the whole table');
    assert.ok(requests.slice(1).every((u) => u.searchParams.get('before') && u.searchParams.get('limit') === '50'));
    // every row keeps its measured height when it leaves the DOM (a lost one would collapse to 0)
    const innerHeight = await page.evaluate(() => document.querySelector('.vl-inner')!.getBoundingClientRect().height);
    assert.ok(innerHeight > TOTAL * 40, `the list is as tall as its ${TOTAL} rows (${innerHeight} px)`);
    const rendered = await page.locator('.vl-row').count();
    assert.ok(rendered < 60, `only rows near the viewport are in the DOM (${rendered})`);
    await shot(page, 'history-top');

    // Reload: the history shows again (latest page).
    await page.reload();
    await page.waitForSelector('#app[data-ready]');
    assert.ok((await visibleIds(page)).includes(lastId));
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sessions: list, switch (both ways), create', async () => {
    const { page, context, errors } = await openPage(browser, server);
    const items = page.locator('.sessions .session');
    assert.deepEqual(await items.locator('.session-title').allTextContents(), ['New chat', 'Zoo notes']);
    assert.equal(await page.locator('.session.active .session-title').textContent(), 'New chat');

    await page.locator(`[data-session-id="${otherId}"]`).click();
    await page.waitForSelector('.msg-user .bubble >> text=tell me about zebra stripes');
    assert.equal(await page.locator('.session.active .session-title').textContent(), 'Zoo notes');
    await until(async () => (await getJson(`${server.url}/api/chat-sessions`)).body.activeId === otherId, 'the server to switch');
    assert.equal(await page.locator('.vl-row').count(), 2);

    // switched elsewhere (another tab, the CLI): this page follows
    await sendJson(`${server.url}/api/chat-sessions/${mainId}/switch`, 'POST', {});
    await page.waitForSelector('text=message number 300');
    assert.equal(await page.locator('.session.active .session-title').textContent(), 'New chat');

    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.waitForSelector('.empty h2');
    const sessions = (await getJson(`${server.url}/api/chat-sessions`)).body;
    assert.equal(sessions.sessions.length, 3);
    assert.equal(await page.locator('.sessions .session').count(), 3);
    assert.equal(await page.locator('.session.active').getAttribute('data-session-id'), sessions.activeId);
    assert.notEqual(sessions.activeId, mainId);
    await shot(page, 'session-new');
    await page.locator(`[data-session-id="${mainId}"]`).click();
    await page.waitForSelector('text=message number 300');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('search finds messages in every session; a result opens its session at that message', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await page.keyboard.press('Control+k');
    await until(async () => (await page.evaluate(() => document.activeElement?.id)) === 'search-input', 'Ctrl+K to focus the search');
    await page.keyboard.type('zebra');
    const result = page.locator('.search-results .result').first();
    await result.waitFor();
    assert.equal(await page.locator('.search-results .result').count(), 2);
    assert.equal(await result.locator('mark').first().textContent(), 'zebra');
    assert.match((await result.locator('.result-meta').textContent()) ?? '', /Zoo notes/);
    await shot(page, 'search');
    const id = Number(await result.getAttribute('data-message-id'));
    await result.click();
    await page.waitForSelector(`.vl-row [data-message-id="${id}"]`);
    assert.ok((await visibleIds(page)).includes(id));
    assert.equal(await page.locator('.session-name').textContent(), 'Zoo notes');
    assert.equal((await getJson(`${server.url}/api/chat-sessions`)).body.activeId, otherId);

    // a message deep in the history: the page around it, without loading everything before
    await page.fill('#search-input', 'number 123');
    await page.locator('.search-results .result').first().waitFor();
    const deep = page.locator('.search-results .result', { hasText: 'number 123' }).first();
    const deepId = Number(await deep.getAttribute('data-message-id'));
    await deep.click();
    await page.waitForSelector(`.vl-row [data-message-id="${deepId}"]`);
    assert.ok((await visibleIds(page)).includes(deepId), 'the result is in view');
    assert.ok((await page.locator('.vl-row').count()) <= 50);
    // newer messages load when scrolling down from there
    for (let i = 0; i < 60 && (await page.locator('text=message number 300').count()) === 0; i++) {
      await page.mouse.move(700, 300);
      await page.mouse.wheel(0, 5000);
      await page.waitForTimeout(50);
    }
    assert.equal(await page.locator('text=message number 300').count(), 1, 'scrolled down to the latest');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('settings: read, change, validation errors, secrets stay write-only', async () => {
    const { page, context, errors } = await openPage(browser, server);
    await page.getByRole('button', { name: 'Settings', exact: true }).first().click();
    await page.waitForSelector('#settings-title');
    assert.equal(await page.inputValue('#set-agent-retries'), '1');
    // every setting the server has is on the page (the form is built from GET /api/settings)
    const all = (await getJson(`${server.url}/api/settings`)).body as Record<string, Record<string, unknown>>;
    for (const [section, fields] of Object.entries(all)) {
      for (const key of Object.keys(fields)) {
        assert.equal(await page.locator(`[data-field="${section}.${key}"]`).count(), 1, `${section}.${key} is shown`);
      }
    }

    await page.fill('#set-agent-retries', '3');
    await page.fill('#set-agent-systemPrompt', 'Answer briefly.');
    const env = page.locator('[data-field="agent.env"]');
    await env.locator('input[aria-label="New name"]').fill('MY_API_KEY');
    await env.locator('input[aria-label="New value"]').fill('super-secret-value');
    await env.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('.saved', { timeout: 5000 }).catch(async (err) => {
      await shot(page, 'settings-save-failed');
      throw err;
    });
    const saved = server.app.context.settings.get().agent;
    assert.equal(saved.retries, 3);
    assert.equal(saved.systemPrompt, 'Answer briefly.');
    assert.equal(saved.env.MY_API_KEY, 'super-secret-value');
    // the secret never comes back to the page
    assert.ok(!(await page.content()).includes('super-secret-value'));
    assert.equal(await page.locator('input[aria-label="Value of MY_API_KEY"]').inputValue(), '');
    assert.match((await page.locator('input[aria-label="Value of MY_API_KEY"]').getAttribute('placeholder')) ?? '', /hidden/);

    // saving something else keeps the secret
    await page.fill('#set-agent-retries', '2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('.saved');
    assert.equal(server.app.context.settings.get().agent.retries, 2);
    assert.equal(server.app.context.settings.get().agent.env.MY_API_KEY, 'super-secret-value');

    // an invalid value: the server's message, next to the field; nothing saved
    await page.fill('#set-agent-maxRunSec', '1');
    await page.getByRole('button', { name: 'Save' }).click();
    const fieldError = page.locator('[data-field="agent.maxRunSec"] .field-error');
    await fieldError.waitFor();
    assert.match((await fieldError.textContent()) ?? '', /maxRunSec/);
    assert.equal(server.app.context.settings.get().agent.maxRunSec, 3600);
    await shot(page, 'settings-error');
    await page.getByRole('button', { name: 'Revert' }).click();

    // remove the secret
    await page.getByRole('button', { name: 'Remove MY_API_KEY' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await until(() => !('MY_API_KEY' in server.app.context.settings.get().agent.env), 'the variable to be removed');
    assert.deepEqual(realErrors(errors).filter((e) => !/400/.test(e)), []);
    await context.close();
  });
});
