// What the conversation shows, driven by events published on the real server's bus (every tab
// renders runs from SSE): Markdown (sanitized, highlighted, copyable code), a streamed answer with
// thinking and tool steps, the final answer replacing the preview, queue state, retry/fallback
// notices; narrow and dark layouts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, documentedShot, launch, openPage, realErrors, shot, until } from './helpers.ts';

describe('web UI: rendering messages and live runs', () => {
  let server: TestServer;
  let browser: Browser;
  let sessionId: string;

  before(async () => {
    buildWeb();
    server = await startServer();
    sessionId = server.app.services.chat.activeSession().id;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('Markdown is rendered and sanitized; code is highlighted and has a copy button', async () => {
    const { chat } = server.app.services;
    chat.saveMessage({ sessionId, role: 'user', content: 'Show me <b>html</b> & a script' });
    const hostile = [
      '# Title',
      'Some **bold**, `inline`, a [link](https://example.com) and [bad](javascript:window.__pwned=1).',
      '<img src="x" onerror="window.__pwned=1"><script>window.__pwned=1</script>',
      '<iframe src="https://example.com"></iframe><a href="#" onclick="window.__pwned=1" style="color:red" id="clobber">click</a>',
      '```python\ndef greet(name):\n    return f"hi {name}"\n```',
      '| a | b |\n|---|---|\n| 1 | 2 |',
    ].join('\n\n');
    const saved = chat.saveMessage({ sessionId, role: 'assistant', content: hostile });
    const { page, context, errors } = await openPage(browser, server);
    const row = page.locator(`[data-message-id="${saved.id}"]`);
    await row.waitFor();
    assert.equal(await row.locator('h1').textContent(), 'Title');
    assert.equal(await row.locator('strong').first().textContent(), 'bold');
    assert.equal(await row.locator('table td').first().textContent(), '1');
    // user text is text, never markup
    assert.equal(await page.locator('.msg-user .bubble').first().textContent(), 'Show me <b>html</b> & a script');
    // raw HTML is shown as text, never as markup; nothing executable survived
    assert.match((await row.textContent()) ?? '', /<img src="x" onerror="window.__pwned=1"><script>/);
    assert.equal(await row.locator('img, script, iframe, [onerror], [onclick], [style], #clobber').count(), 0);
    assert.equal(await row.locator('a[href^="javascript"]').count(), 0);
    assert.equal(await row.locator('a[href="https://example.com"]').getAttribute('rel'), 'noopener noreferrer nofollow');
    // nothing that could run is in the DOM (checked above), so nothing can have set the flag
    assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
    // highlighted code with a copy button
    const code = row.locator('.code-block');
    assert.equal(await code.locator('.code-lang').textContent(), 'python');
    assert.ok((await code.locator('.hljs-keyword').count()) > 0, 'highlight.js spans');
    await code.getByRole('button', { name: 'Copy code' }).click();
    await until(async () => (await code.locator('.copy-code').textContent()) === 'Copied', 'the copied label');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'def greet(name):\n    return f"hi {name}"');
    await shot(page, 'markdown');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a run streams in live: thinking and tool steps, then the final answer replaces the preview', async () => {
    const { bus, chat } = server.app.services;
    const { page, context, errors } = await openPage(browser, server);
    const traceId = 'tr_render_test_0001';
    chat.saveMessage({ sessionId, role: 'user', content: 'Please list the files' });
    bus.publish('queue_update', { pending: 0, active: true });
    bus.publish('agent_status', { status: 'running', traceId, provider: 'claude', model: 'sonnet' });
    bus.publish('agent_tool', { traceId, stepId: `${traceId}-thinking-1`, name: 'thinking', step: 'thinking', status: 'ok', input: {}, output: 'The user wants a listing. I will run ls.' });
    bus.publish('agent_tool', { traceId, stepId: 'toolu_1', name: 'Bash', step: 'command', status: 'running', input: { command: 'ls -la' } });
    bus.publish('agent_output', { traceId, content: 'Here are the **files**', offset: 0 });
    const run = page.locator(`[data-trace-id="${traceId}"]`);
    await run.waitFor();
    await until(async () => ((await run.locator('.md').textContent()) ?? '').includes('Here are the files'), 'the first chunk');
    assert.equal(await run.getAttribute('data-status'), 'running');
    assert.equal(await run.locator('.md strong').textContent(), 'files');
    // steps: open while running, each a collapsible block
    const steps = run.locator('details.steps');
    assert.equal(await steps.getAttribute('open'), '');
    const tool = run.locator('details.step[data-step-id="toolu_1"]');
    assert.equal(await tool.getAttribute('data-status'), 'running');
    assert.equal(await tool.locator('.step-name').textContent(), 'Bash');
    assert.equal(await tool.locator('.step-summary').textContent(), 'ls -la');
    await tool.locator('summary').click();
    assert.match((await tool.locator('.step-body').textContent()) ?? '', /"command": "ls -la"/);
    const thinking = run.locator(`details.step-thinking`);
    assert.equal(await thinking.locator('.step-name').textContent(), 'Thinking');
    // controls of an active run
    assert.equal(await page.getByRole('button', { name: 'Stop the agent' }).count(), 1);
    assert.equal(await page.locator('#steer-input').count(), 1);
    assert.equal(await page.locator('.status-pill').textContent(), 'Running');

    bus.publish('agent_tool', { traceId, stepId: 'toolu_1', name: 'Bash', step: 'command', status: 'ok', input: {}, output: 'a.txt\nb.txt' });
    bus.publish('agent_output', { traceId, content: ':\n\n- a.txt\n', offset: 'Here are the **files**'.length });
    bus.publish('agent_retry', { traceId, provider: 'claude', attempt: 1, delayMs: 1500, reason: 'Claude Code hit its usage limit.', failure: 'rate_limit' });
    bus.publish('agent_retry', { traceId, provider: 'claude', attempt: 2, delayMs: 3000, reason: 'Claude Code hit its usage limit again.', failure: 'rate_limit' });
    bus.publish('agent_fallback', { traceId, from: 'claude', to: 'codex', reason: 'overloaded' });
    await until(async () => (await tool.getAttribute('data-status')) === 'ok', 'the tool to finish');
    assert.match((await tool.locator('.step-body').textContent()) ?? '', /a\.txt\nb\.txt/, 'the input stays, the output is added');
    assert.match((await tool.locator('.step-body').textContent()) ?? '', /ls -la/);
    await until(async () => (await run.locator('.notice-fallback').count()) === 1, 'the notices');
    // the retries of one provider: one notice, the latest attempt; a fallback ends them
    assert.equal(await run.locator('.notice-retry').count(), 0);
    assert.match((await run.locator('.notice-fallback').textContent()) ?? '', /Switched from Claude Code to Codex CLI: overloaded/);
    bus.publish('agent_retry', { traceId, provider: 'codex', attempt: 1, delayMs: 1500, reason: 'Codex CLI hit its usage limit.', failure: 'rate_limit' });
    await until(async () => (await run.locator('.notice-retry').count()) === 1, 'the retry notice');
    assert.equal((await run.locator('.notice-retry').textContent())?.trim(), 'Retrying Codex CLI (attempt 1) in 1.5 s… Codex CLI hit its usage limit.');
    await shot(page, 'run-streaming');

    // the final answer is authoritative (here it differs from the preview)
    const message = chat.saveMessage({ sessionId, role: 'assistant', content: 'Final: **two** files, a.txt and b.txt.' });
    bus.publish('agent_done', {
      traceId, status: 'ok', text: 'Final: **two** files, a.txt and b.txt.', provider: 'codex', messageId: message.id,
      toolLog: [{ stepId: 'toolu_1', name: 'Bash', step: 'command', status: 'ok', input: { command: 'ls -la' }, output: 'a.txt\nb.txt' }],
      usage: { inputTokens: 120, outputTokens: 30 }, durationMs: 2300,
    });
    bus.publish('agent_status', { status: 'done', traceId, provider: 'codex' });
    bus.publish('queue_update', { pending: 0, active: false });
    await until(async () => (await run.getAttribute('data-status')) === 'ok', 'the run to finish');
    assert.equal((await run.locator('.md').textContent())?.trim(), 'Final: two files, a.txt and b.txt.');
    assert.equal(await page.locator(`[data-message-id="${message.id}"]`).count(), 0, 'the saved reply is not shown twice');
    assert.equal(await page.locator('.msg-assistant', { hasText: 'Final: two files' }).count(), 1);
    assert.equal(await run.locator('details.steps').getAttribute('open'), null, 'steps fold away when done');
    assert.match((await run.locator('.msg-foot').textContent()) ?? '', /2\.3 s · 120→30 tokens/);
    await until(async () => (await page.getByRole('button', { name: 'Stop the agent' }).count()) === 0, 'the stop button to go');
    assert.equal(await page.locator('#steer-input').count(), 0);
    await documentedShot(page, 'chat-1280');

    // a reload shows the saved messages
    await page.reload();
    await page.waitForSelector('#app[data-ready]');
    await page.locator(`[data-message-id="${message.id}"]`).waitFor();
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('queued messages, a failed run and a stopped run', async () => {
    const { bus, chat } = server.app.services;
    const { page, context, errors } = await openPage(browser, server);
    const first = 'tr_render_queue_001';
    const second = 'tr_render_queue_002';
    chat.saveMessage({ sessionId, role: 'user', content: 'first question' });
    bus.publish('new_message', { role: 'user', content: 'first question', sessionId, queued: false });
    bus.publish('queue_update', { pending: 0, active: true });
    bus.publish('agent_status', { status: 'running', traceId: first, provider: 'claude' });
    bus.publish('agent_output', { traceId: first, content: 'Working on the first', offset: 0 });
    const queued = chat.saveMessage({ sessionId, role: 'user', content: 'second question' });
    bus.publish('new_message', { role: 'user', content: 'second question', sessionId, queued: true });
    bus.publish('queue_update', { pending: 1, active: true });
    const queuedRow = page.locator(`[data-message-id="${queued.id}"]`);
    await until(async () => (await queuedRow.locator('.badge').textContent()) === 'Queued', 'the queued badge');
    assert.equal(await page.locator('.queue-chip').textContent(), '1 queued');
    // the queued message sits below the running answer
    const order = await page.$$eval('.vl-row', (rows) =>
      rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map((r) => r.textContent ?? ''),
    );
    const at = (text: string) => order.findIndex((t) => t.includes(text));
    assert.ok(at('Working on the first') < at('second question'), order.join(' | '));
    await shot(page, 'run-queued');

    bus.publish('agent_done', { traceId: first, status: 'error', text: '', error: 'Claude Code is not logged in.', failure: 'auth', fix: 'claude', provider: 'claude', toolLog: [] });
    bus.publish('agent_status', { status: 'error', traceId: first, provider: 'claude' });
    bus.publish('queue_update', { pending: 0, active: true });
    bus.publish('agent_status', { status: 'running', traceId: second, provider: 'claude' });
    const failed = page.locator(`[data-trace-id="${first}"]`);
    await until(async () => (await failed.getAttribute('data-status')) === 'error', 'the failed run');
    assert.equal((await failed.locator('.record-title').textContent())?.trim(), 'Claude Code could not answer: not logged in');
    assert.equal(await failed.locator('.record-text').textContent(), 'Claude Code is not logged in.');
    assert.equal(await failed.locator('.record-fix code').textContent(), 'claude');
    await until(async () => (await queuedRow.locator('.badge').count()) === 0, 'the message to leave the queue');
    bus.publish('agent_output', { traceId: second, content: 'Partial answer', offset: 0 });
    bus.publish('agent_done', { traceId: second, status: 'stopped', text: 'Partial answer', provider: 'claude', toolLog: [] });
    bus.publish('queue_update', { pending: 0, active: false });
    const stopped = page.locator(`[data-trace-id="${second}"]`);
    await until(async () => (await stopped.getAttribute('data-status')) === 'stopped', 'the stopped run');
    assert.equal(await stopped.locator('.badge').textContent(), 'Stopped');
    assert.equal(await page.locator('.queue-chip').count(), 0);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('narrow (phone) window and dark theme: sidebar as a drawer, readable, focus visible', async () => {
    const { page, context, errors } = await openPage(browser, server, { width: 390, height: 844, colorScheme: 'dark' });
    const sidebar = page.locator('nav.sidebar');
    assert.equal(await sidebar.isVisible(), false, 'the sidebar is hidden on a phone');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(27, 28, 31)', 'dark background');
    // nothing overflows horizontally
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    await documentedShot(page, 'chat-390');
    await page.getByRole('button', { name: 'Open sessions and search' }).click();
    await until(() => sidebar.isVisible(), 'the drawer');
    await until(() => sidebar.evaluate((el) => el.getAnimations({ subtree: true }).every((a) => a.playState === 'finished')), 'the drawer to finish sliding in');
    await shot(page, 'narrow-drawer');
    await page.keyboard.press('Escape');
    await until(async () => !(await sidebar.isVisible()), 'the drawer to close');
    // keyboard focus is visible
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (let i = 0; i < 6 && (await page.evaluate(() => document.activeElement?.tagName)) !== 'BUTTON'; i++) await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { tag: el.tagName, label: el.getAttribute('aria-label'), outline: style.outlineStyle, width: style.outlineWidth };
    });
    assert.equal(outline.tag, 'BUTTON', JSON.stringify(outline));
    assert.equal(outline.outline, 'solid', JSON.stringify(outline));
    assert.equal(outline.width, '2px');
    await shot(page, 'narrow-focus');
    // the settings page fits the phone too
    await page.getByRole('button', { name: 'Settings', exact: true }).last().click();
    await page.waitForSelector('#settings-title');
    assert.ok(await page.evaluate(() => {
      const el = document.querySelector('.settings-page') as HTMLElement;
      return el.scrollWidth <= el.clientWidth;
    }), 'no sideways scrolling on the settings page');
    await shot(page, 'narrow-settings');
    await page.getByRole('button', { name: 'Back to the chat' }).click();
    await page.waitForSelector('#composer-input');
    // the light theme can be chosen over the system's dark one
    await page.getByRole('button', { name: /^Theme: system/ }).click();
    await until(() => page.evaluate(() => document.documentElement.dataset.theme === 'light'), 'the light theme');
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(255, 255, 255)');
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).color), 'rgb(29, 33, 39)', 'light text too');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a system in light mode: light by default, and the dark theme can be chosen', async () => {
    const { page, context, errors } = await openPage(browser, server, { colorScheme: 'light' });
    const colors = () => page.evaluate(() => ({ bg: getComputedStyle(document.body).backgroundColor, text: getComputedStyle(document.body).color }));
    assert.deepEqual(await colors(), { bg: 'rgb(255, 255, 255)', text: 'rgb(29, 33, 39)' });
    await page.getByRole('button', { name: /^Theme: system/ }).click();
    await page.getByRole('button', { name: /^Theme: light/ }).click();
    await until(() => page.evaluate(() => document.documentElement.dataset.theme === 'dark'), 'the dark theme');
    assert.deepEqual(await colors(), { bg: 'rgb(27, 28, 31)', text: 'rgb(232, 233, 235)' });
    await shot(page, 'wide-dark-chosen');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });
});
