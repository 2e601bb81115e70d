// Opening an instance from the dashboard: the chat UI served through the manager's /i/<id>/ proxy,
// in real Chromium. Its assets, API calls and event stream all resolve under the prefix; it sends a
// message to a fake-CLI instance and shows the streamed answer; an answer the instance gives to
// someone else arrives over the proxied event stream; the instance's token never reaches the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Request } from 'playwright-core';
import { startAgentServer } from '../../support/agent.ts';
import { sendJson } from '../../support/server.ts';
import { startManager, ask } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

test('the dashboard opens an instance\'s chat UI through /i/<id>/: send, stream, live events, no token in the page', async () => {
  buildWeb();
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  const browser = await launch();
  try {
    const token = instance.app.services.token;
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token, label: 'worker beta' })).body.id as string;
    const { page: dashboard, context } = await openPage(browser, manager);
    const open = dashboard.locator(`li.instance[data-id="${id}"] a`, { hasText: 'open' });
    assert.equal(await open.getAttribute('href'), `/i/${id}/`);

    // every request and answer of the chat page, to check where they went and what they carried
    const requests: { page: Page | null; url: string }[] = [];
    const bodies: Promise<string>[] = [];
    const pageOf = (r: Request) => {
      try {
        return r.frame().page();
      } catch {
        return null; // a new page's first navigation, before its frame exists
      }
    };
    context.on('request', (r) => void requests.push({ page: pageOf(r), url: r.url() }));
    // (an event stream never ends: its body is not read)
    context.on('response', (r) => void (/event-stream/.test(r.headers()['content-type'] ?? '') || bodies.push(r.text().catch(() => ''))));
    const [chat] = await Promise.all([context.waitForEvent('page'), open.click()]);
    const errors: string[] = [];
    chat.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    chat.on('pageerror', (e) => errors.push(String(e)));
    await chat.waitForSelector('#app[data-ready]', { timeout: 15_000 });
    assert.equal(new URL(chat.url()).pathname, `/i/${id}/`);

    await chat.locator('#composer-input').fill('hello through the proxy scenario:text delay:30');
    await chat.locator('#composer-input').press('Enter');
    await chat.locator('.msg-user .bubble', { hasText: 'hello through the proxy' }).waitFor();
    const run = chat.locator('article.run').first();
    await until(async () => (await run.getAttribute('data-status')) === 'ok', 'the streamed answer', 20_000);
    const answered = (await run.locator('.md').textContent()) ?? '';
    assert.ok(answered.length > 0, 'the answer is shown');

    // an answer the instance gives to another client reaches this page only over its event stream
    const other = await ask(instance.url, token, 'from elsewhere scenario:text');
    const text = JSON.parse(other.trim().split('\n').at(-1)!).text as string;
    await chat.locator('.msg-user .bubble', { hasText: 'from elsewhere' }).waitFor({ timeout: 10_000 });
    await until(async () => (await chat.locator('article.run').count()) >= 2 || (await chat.locator('.msg-assistant', { hasText: text.slice(0, 20) }).count()) >= 2, 'the other answer, live', 10_000);
    await shot(chat, 'dashboard-open-instance');

    const prefix = `${new URL(manager.url).origin}/i/${id}/`;
    const chatRequests = requests.filter((r) => r.page !== dashboard && !/^(data|blob):/.test(r.url)).map((r) => r.url);
    assert.deepEqual(chatRequests.filter((u) => !u.startsWith(prefix)), [], 'the chat page stays under its prefix');
    assert.ok(chatRequests.some((u) => u.startsWith(`${prefix}assets/`)), 'its assets come through the proxy');
    assert.ok(chatRequests.some((u) => u.startsWith(`${prefix}api/events`)), 'its event stream goes through the proxy');
    assert.ok(!chatRequests.some((u) => u.startsWith(instance.url)), 'the page never talks to the instance directly');
    const seen = await Promise.all(bodies);
    assert.ok(!seen.some((b) => b.includes(token)), 'no answer the browser got carries the instance token');
    assert.ok(!(await chat.evaluate(() => JSON.stringify(localStorage))).includes(token));
    assert.deepEqual(realErrors(errors), []);
  } finally {
    await browser.close();
    await manager.close();
    await instance.close();
  }
});
