// The web UI in real Chromium against the real server: history a page at a time, sessions,
// search, settings, reload.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

const TOTAL = 300;
/** The main session's title: its first user message named it (it was "New chat"). */
const MAIN_TITLE = 'message number 1';

describe('web UI: history, sessions, search, settings', () => {
  let server: TestServer;
  let browser: Browser;
  let mainId: string;
  let otherId: string;

  before(async () => {
    buildWeb();
    server = await startServer();
    const { chat } = server.app.services;
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
    const lastId = server.app.services.chat.messages.page(mainId, { limit: 1 }).messages[0]!.id;
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
    await page.mouse.move(700, 300);
    // each poll scrolls up once more until the first message is in view (or the wait fails the test)
    await until(async () => (await visibleIds(page)).includes(firstId) || (await page.mouse.wheel(0, -4000), false), 'the first message', 20_000);
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
    assert.deepEqual(await items.locator('.session-title').allTextContents(), [MAIN_TITLE, 'Zoo notes']);
    assert.equal(await page.locator('.session.active .session-title').textContent(), MAIN_TITLE);

    await page.locator(`[data-session-id="${otherId}"]`).click();
    await page.waitForSelector('.msg-user .bubble >> text=tell me about zebra stripes');
    assert.equal(await page.locator('.session.active .session-title').textContent(), 'Zoo notes');
    await until(async () => (await getJson(`${server.url}/api/chat-sessions`)).body.activeId === otherId, 'the server to switch');
    assert.equal(await page.locator('.vl-row').count(), 2);

    // switched elsewhere (another tab, the CLI): this page follows
    await sendJson(`${server.url}/api/chat-sessions/${mainId}/switch`, 'POST', {});
    await page.waitForSelector('text=message number 300');
    assert.equal(await page.locator('.session.active .session-title').textContent(), MAIN_TITLE);

    await page.locator('.sidebar-top').getByRole('button', { name: 'New chat' }).click();
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
    await page.mouse.move(700, 300);
    await until(async () => (await page.locator('text=message number 300').count()) === 1 || (await page.mouse.wheel(0, 5000), false), 'scrolled down to the latest', 20_000);
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
    const saved = server.app.services.settings.get().agent;
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
    assert.equal(server.app.services.settings.get().agent.retries, 2);
    assert.equal(server.app.services.settings.get().agent.env.MY_API_KEY, 'super-secret-value');

    // an invalid value: the server's message, next to the field; nothing saved
    await page.fill('#set-agent-maxRunSec', '1');
    await page.getByRole('button', { name: 'Save' }).click();
    const fieldError = page.locator('[data-field="agent.maxRunSec"] .field-error');
    await fieldError.waitFor();
    assert.equal((await fieldError.textContent())?.trim(), 'Enter a whole number from 10 to 604800.', 'in plain words, from the schema\'s bounds');
    assert.equal(server.app.services.settings.get().agent.maxRunSec, 3600);
    await shot(page, 'settings-error');
    await page.getByRole('button', { name: 'Revert' }).click();

    // remove the secret
    await page.getByRole('button', { name: 'Remove MY_API_KEY' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await until(() => !('MY_API_KEY' in server.app.services.settings.get().agent.env), 'the variable to be removed');
    assert.deepEqual(realErrors(errors).filter((e) => !/400/.test(e)), []);
    await context.close();
  });

  // ── renaming and deleting sessions ──────────────────────────────────────────────────────

  /** The row of a session in the sidebar (also while its title is being edited). */
  const rowOf = (page: Page, id: string) => page.locator(`.sessions [data-row="${id}"]`);
  const titleIn = (page: Page, id: string) => rowOf(page, id).locator('.session-title').textContent();
  const opacity = (locator: ReturnType<Page['locator']>) => locator.evaluate((el) => getComputedStyle(el).opacity);
  const listed = async (id: string) =>
    ((await getJson(`${server.url}/api/chat-sessions`)).body.sessions as { id: string; title: string }[]).find((x) => x.id === id);
  /** PATCH and DELETE requests the page sends. */
  const recordWrites = (page: Page) => {
    const writes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH' || r.method() === 'DELETE') writes.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    return writes;
  };
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { tag: el?.tagName, text: el?.textContent?.trim(), label: el?.getAttribute('aria-label'), cls: el?.className, row: el?.closest('[data-row]')?.getAttribute('data-row') };
    });

  test('sessions: rename in the sidebar (Enter or leaving the field saves; Escape and an empty title send nothing)', async () => {
    const { chat } = server.app.services;
    const trip = chat.createSession('Trip plans', false);
    const { page, context, errors } = await openPage(browser, server);
    const writes = recordWrites(page);
    const row = rowOf(page, trip.id);
    const rename = row.getByRole('button', { name: 'Rename "Trip plans"' });
    const remove = row.getByRole('button', { name: 'Delete "Trip plans"' });
    assert.equal(await rename.getAttribute('title'), 'Rename chat');
    assert.equal(await remove.getAttribute('title'), 'Delete chat');
    // on a wide screen with a mouse the buttons show on hover only
    const actions = row.locator('.session-actions');
    await page.mouse.move(900, 400);
    assert.equal(await opacity(actions), '0');
    await row.hover();
    assert.equal(await opacity(actions), '1');
    // the title does not run under the buttons
    const [titleBox, actionsBox] = await Promise.all([row.locator('.session-title').boundingBox(), row.locator('.session-actions').boundingBox()]);
    assert.ok(titleBox!.x + titleBox!.width <= actionsBox!.x + 1, `title ${JSON.stringify(titleBox)} clear of ${JSON.stringify(actionsBox)}`);
    await shot(page, 'sessions-hover');

    // Escape: the title comes back unchanged and nothing is sent
    await rename.click();
    const input = row.getByRole('textbox', { name: 'Chat title' });
    await input.waitFor();
    assert.equal(await input.inputValue(), 'Trip plans');
    assert.deepEqual(
      await input.evaluate((el: HTMLInputElement) => [document.activeElement === el, el.selectionStart, el.selectionEnd]),
      [true, 0, 'Trip plans'.length],
      'the input has the focus and the title is selected',
    );
    await page.keyboard.type('Something else');
    await page.keyboard.press('Escape');
    await row.locator('.session-title').waitFor();
    assert.equal(await titleIn(page, trip.id), 'Trip plans');
    assert.equal((await focused(page)).label, 'Rename "Trip plans"', 'the focus is back on the rename button');
    assert.equal(await input.count(), 0);

    // Enter saves: typing replaces the selected title
    await page.keyboard.press('Enter');
    await input.waitFor();
    await page.keyboard.type('Holiday plans');
    await shot(page, 'sessions-rename');
    await page.keyboard.press('Enter');
    await until(async () => (await titleIn(page, trip.id)) === 'Holiday plans', 'the new title in the sidebar');
    await until(async () => (await listed(trip.id))?.title === 'Holiday plans', 'the new title on the server');
    assert.deepEqual(writes, [`PATCH /api/chat-sessions/${trip.id}`]);
    assert.equal(await row.getByRole('button', { name: 'Rename "Holiday plans"' }).count(), 1, 'the labels name the new title');

    // an empty title is not sent
    await row.hover();
    await row.getByRole('button', { name: 'Rename "Holiday plans"' }).click();
    await input.fill('   ');
    await input.press('Enter');
    await row.locator('.session-title').waitFor();
    assert.equal(await titleIn(page, trip.id), 'Holiday plans');

    // leaving the field saves
    await row.hover();
    await row.getByRole('button', { name: 'Rename "Holiday plans"' }).click();
    await input.fill('  Lisbon in May ');
    await page.locator('#search-input').click();
    await until(async () => (await listed(trip.id))?.title === 'Lisbon in May', 'the title saved on blur (trimmed)');
    assert.equal(await titleIn(page, trip.id), 'Lisbon in May');
    assert.equal(writes.length, 2, writes.join(', '));

    // refused by the server: a toast says why and the old title stays
    await page.route(`**/api/chat-sessions/${trip.id}`, (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: 'INTERNAL', message: 'The disk is full.' }) })
        : route.fallback(),
    );
    await row.hover();
    await row.getByRole('button', { name: 'Rename "Lisbon in May"' }).click();
    await input.fill('Never saved');
    await input.press('Enter');
    await page.locator('.toast', { hasText: 'Could not rename the chat: The disk is full.' }).waitFor();
    await until(async () => (await titleIn(page, trip.id)) === 'Lisbon in May', 'the old title back');
    assert.equal((await listed(trip.id))?.title, 'Lisbon in May');
    assert.equal(writes.length, 3);
    await page.unroute(`**/api/chat-sessions/${trip.id}`);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sessions: delete a chat that is not shown, after confirming in its row (Cancel and Escape keep it)', async () => {
    const { chat } = server.app.services;
    const draft = chat.createSession('Old draft', false);
    chat.saveMessage({ sessionId: draft.id, role: 'user', content: 'a draft to throw away' });
    const { activeId } = (await getJson(`${server.url}/api/chat-sessions`)).body;
    const { page, context, errors } = await openPage(browser, server);
    const writes = recordWrites(page);
    const row = rowOf(page, draft.id);
    const confirm = row.getByRole('group', { name: 'Delete this chat?' });

    // by keyboard: the buttons show when the focus is in the row
    await page.mouse.move(900, 400);
    await row.locator('.session').focus();
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Rename "Old draft"');
    assert.equal(await opacity(row.locator('.session-actions')), '1', 'shown on keyboard focus');
    assert.equal(await row.getByRole('button', { name: 'Rename "Old draft"' }).evaluate((el) => getComputedStyle(el).outlineStyle), 'solid', 'visible focus');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).label, 'Delete "Old draft"');
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    assert.equal(await confirm.locator('.session-confirm-text').textContent(), 'Delete this chat?');
    assert.deepEqual(await focused(page).then((f) => [f.text, f.row]), ['Cancel', draft.id], 'Cancel has the focus');
    await shot(page, 'sessions-delete-confirm');
    // Escape keeps it; the focus goes back to the delete button
    await page.keyboard.press('Escape');
    await until(async () => (await confirm.count()) === 0, 'the confirmation to close');
    assert.equal((await focused(page)).label, 'Delete "Old draft"');
    // Cancel keeps it
    await row.hover();
    await row.getByRole('button', { name: 'Delete "Old draft"' }).click();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await until(async () => (await confirm.count()) === 0, 'the confirmation to close');
    assert.equal(await titleIn(page, draft.id), 'Old draft');
    assert.ok(await listed(draft.id), 'still on the server');
    assert.deepEqual(writes, [], 'nothing was sent');

    // Delete
    await row.hover();
    await row.getByRole('button', { name: 'Delete "Old draft"' }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await until(async () => (await row.count()) === 0, 'the row to go');
    assert.deepEqual(writes, [`DELETE /api/chat-sessions/${draft.id}`]);
    assert.equal(await listed(draft.id), undefined, 'gone from GET /api/chat-sessions');
    assert.equal(chat.messages.count(draft.id), 0, 'its messages went with it');
    // what the page shows did not change
    assert.equal((await getJson(`${server.url}/api/chat-sessions`)).body.activeId, activeId);
    assert.equal(await page.locator('.session.active').getAttribute('data-session-id'), activeId);
    assert.equal((await focused(page)).cls, 'session' + ((await focused(page)).row === activeId ? ' active' : ''), 'the focus moved to another row');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sessions: deleting the chat on screen shows the most recent other one with its history', async () => {
    const { chat } = server.app.services;
    const scratch = chat.createSession('Scratch', false);
    chat.saveMessage({ sessionId: scratch.id, role: 'user', content: 'scratch work to delete' });
    // Zoo notes becomes the most recently used session after Scratch
    chat.sessions.touch(otherId, Date.now() + 60_000);
    const { page, context, errors } = await openPage(browser, server);
    await page.locator(`[data-session-id="${scratch.id}"]`).click();
    await page.waitForSelector('.msg-user .bubble >> text=scratch work to delete');
    await until(async () => (await getJson(`${server.url}/api/chat-sessions`)).body.activeId === scratch.id, 'the server to switch');
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const row = rowOf(page, scratch.id);
    await row.hover();
    await row.getByRole('button', { name: 'Delete "Scratch"' }).click();
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForSelector('.msg-user .bubble >> text=tell me about zebra stripes');
    assert.equal(await page.locator('text=scratch work to delete').count(), 0);
    assert.equal(await row.count(), 0);
    assert.equal(await page.locator('.session.active').getAttribute('data-session-id'), otherId);
    assert.equal(await page.locator('.session-name').textContent(), 'Zoo notes');
    const after = (await getJson(`${server.url}/api/chat-sessions`)).body;
    assert.equal(after.activeId, otherId);
    assert.ok(!after.sessions.some((x: { id: string }) => x.id === scratch.id));
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'no reload');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sessions: another page sees a rename and a delete as they happen (dark theme)', async () => {
    const { chat } = server.app.services;
    const shared = chat.createSession('Shared notes', false);
    chat.saveMessage({ sessionId: shared.id, role: 'user', content: 'notes both pages see' });
    const a = await openPage(browser, server);
    const b = await openPage(browser, server, { colorScheme: 'dark' });
    await b.page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    assert.equal(await titleIn(b.page, shared.id), 'Shared notes');

    // the dark theme: hover, rename and confirm look right
    const rowB = rowOf(b.page, shared.id);
    await rowB.hover();
    await shot(b.page, 'sessions-hover-dark');
    await rowB.getByRole('button', { name: 'Rename "Shared notes"' }).click();
    await rowB.getByRole('textbox', { name: 'Chat title' }).waitFor();
    await shot(b.page, 'sessions-rename-dark');
    await b.page.keyboard.press('Escape');
    await rowB.hover();
    await rowB.getByRole('button', { name: 'Delete "Shared notes"' }).click();
    await rowB.getByRole('button', { name: 'Cancel' }).waitFor();
    await shot(b.page, 'sessions-delete-confirm-dark');
    await b.page.keyboard.press('Escape');

    // renamed on page A: page B shows the new title
    const rowA = rowOf(a.page, shared.id);
    await rowA.hover();
    await rowA.getByRole('button', { name: 'Rename "Shared notes"' }).click();
    await a.page.keyboard.type('Shared plans');
    await a.page.keyboard.press('Enter');
    await until(async () => (await titleIn(b.page, shared.id)) === 'Shared plans', 'page B to show the new title');
    assert.equal(await rowB.getByRole('button', { name: 'Delete "Shared plans"' }).count(), 1);

    // page B shows the session; page A deletes it: page B shows the active one instead
    await b.page.locator(`[data-session-id="${shared.id}"]`).click();
    await b.page.waitForSelector('.msg-user .bubble >> text=notes both pages see');
    await a.page.waitForSelector('.msg-user .bubble >> text=notes both pages see');
    await rowA.hover();
    await rowA.getByRole('button', { name: 'Delete "Shared plans"' }).click();
    await rowA.getByRole('button', { name: 'Delete', exact: true }).click();
    await until(async () => (await rowB.count()) === 0, 'page B to drop the row');
    await b.page.waitForSelector('.msg-user .bubble >> text=tell me about zebra stripes');
    assert.equal(await b.page.locator('text=notes both pages see').count(), 0);
    assert.equal(await b.page.locator('.session.active').getAttribute('data-session-id'), otherId);
    assert.equal(await b.page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'page B did not reload');
    assert.deepEqual(realErrors(a.errors), []);
    assert.deepEqual(realErrors(b.errors), []);
    await a.context.close();
    await b.context.close();
  });

  test('sessions: a new chat takes its title from its first message, live', async () => {
    const { chat } = server.app.services;
    const { page, context, errors } = await openPage(browser, server);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await page.locator('.sidebar-top').getByRole('button', { name: 'New chat' }).click();
    await page.waitForSelector('.empty h2');
    const id = (await page.locator('.session.active').getAttribute('data-session-id'))!;
    assert.equal(await titleIn(page, id), 'New chat');
    // what the agent service does with a message sent to it (no provider CLI needed)
    chat.saveMessage({ sessionId: id, role: 'user', content: 'Plan a trip to Lisbon in May\nwith two days in Sintra' });
    await until(async () => (await titleIn(page, id)) === 'Plan a trip to Lisbon in May', 'the title from the first message');
    assert.equal(await page.locator('.session-name').textContent(), 'Plan a trip to Lisbon in May');
    await page.waitForSelector('.msg-user .bubble >> text=with two days in Sintra');
    assert.equal((await listed(id))?.title, 'Plan a trip to Lisbon in May');
    assert.equal(await rowOf(page, id).getByRole('button', { name: 'Rename "Plan a trip to Lisbon in May"' }).count(), 1);
    // later messages do not rename it
    chat.saveMessage({ sessionId: id, role: 'user', content: 'and a day in Porto' });
    await page.waitForSelector('.msg-user .bubble >> text=and a day in Porto');
    assert.equal(await titleIn(page, id), 'Plan a trip to Lisbon in May');
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'no reload');
    await shot(page, 'sessions-auto-title');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('sessions: on a phone the buttons always show, nothing overflows, Escape leaves the drawer open', async () => {
    const { chat } = server.app.services;
    const long = chat.createSession('A very long chat title that keeps going well past the edge of a phone screen', false);
    const { page, context, errors } = await openPage(browser, server, { width: 360, height: 740 });
    await page.getByRole('button', { name: 'Open sessions and search' }).click();
    const sidebar = page.locator('nav.sidebar');
    await until(() => sidebar.isVisible(), 'the drawer');
    await until(() => sidebar.evaluate((el) => el.getAnimations({ subtree: true }).every((a) => a.playState === 'finished')), 'the drawer to finish sliding in');
    const row = rowOf(page, long.id);
    await row.scrollIntoViewIfNeeded();
    // no hover on a phone: the buttons show anyway
    assert.equal(await opacity(row.locator('.session-actions')), '1');
    const fits = () =>
      page.evaluate(() => {
        const side = document.querySelector('nav.sidebar')!.getBoundingClientRect();
        const list = document.querySelector('.sessions') as HTMLElement;
        const outside = [...document.querySelectorAll('.sessions li *')].filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && (r.left < side.left - 0.5 || r.right > side.right + 0.5);
        });
        return { sideways: list.scrollWidth <= list.clientWidth && document.documentElement.scrollWidth <= window.innerWidth, outside: outside.map((el) => el.className) };
      });
    assert.deepEqual(await fits(), { sideways: true, outside: [] });
    const [titleBox, actionsBox] = await Promise.all([row.locator('.session-title').boundingBox(), row.locator('.session-actions').boundingBox()]);
    assert.ok(titleBox!.x + titleBox!.width <= actionsBox!.x + 1, 'the long title stops before the buttons');
    await shot(page, 'sessions-narrow');

    await row.getByRole('button', { name: /^Delete "A very long/ }).click();
    await row.getByRole('button', { name: 'Cancel' }).waitFor();
    assert.deepEqual(await fits(), { sideways: true, outside: [] });
    await shot(page, 'sessions-narrow-confirm');
    await page.keyboard.press('Escape');
    await until(async () => (await row.getByRole('button', { name: 'Cancel' }).count()) === 0, 'the confirmation to close');
    assert.ok(await sidebar.isVisible(), 'Escape closed the confirmation, not the drawer');

    await row.getByRole('button', { name: /^Rename "A very long/ }).click();
    await row.getByRole('textbox', { name: 'Chat title' }).waitFor();
    assert.deepEqual(await fits(), { sideways: true, outside: [] });
    await shot(page, 'sessions-narrow-rename');
    await page.keyboard.press('Escape');
    await row.locator('.session-title').waitFor();
    assert.ok(await sidebar.isVisible(), 'Escape ended the renaming, not the drawer');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });
});
