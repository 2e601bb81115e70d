// The review of an isolated worker run in real Chromium against the real server (fake CLIs, real git):
// opened from the workers panel and from its link, the files and the highlighted diff, a line comment
// by keyboard, Request changes threading the follow-up under it, Approve merging into the tree, and
// Discard on a phone's width without anything sticking out; and the dashboard's link to it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { sendJson } from '../../support/server.ts';
import { startManager } from '../../modules/dashboard/helpers.ts';
import { buildWeb, documentedShot, launch, openPage, realErrors, until } from './helpers.ts';
import { everyControlTabbable, overflowing, tabTo } from './keyboard.ts';

const writer = { name: 'Greeter', role: 'writes code', provider: 'claude', model: '', instructions: '', capability: 'mutable' };

describe('web UI: reviewing a worker\'s changes', () => {
  let server: AgentTestServer;
  let browser: Browser;
  let repo: string;
  before(async () => {
    buildWeb();
    repo = mkdtempSync(join(tmpdir(), 'svc-review-ui-'));
    writeFileSync(join(repo, 'README.md'), '# project\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start']]) execFileSync('git', args, { cwd: repo });
    server = await startAgentServer({ workingDir: repo });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(repo, { recursive: true, force: true });
  });

  const dispatch = async (task: string) => {
    const session = server.app.services.chat.activeSession().id;
    const run = (await sendJson(`${server.url}/api/orchestrate/dispatch`, 'POST', { sessionId: session, virtual: writer, isolation: 'worktree', task, wait: true })).body;
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    return run.runId as string;
  };

  test('1280 px, keyboard only: files and diff, a line comment, changes requested (the follow-up threads under it), approve merges', { timeout: 90_000 }, async () => {
    const runId = await dispatch('greet scenario:text write:greet.ts=const_greeting=1;');
    const { page, errors, context } = await openPage(browser, server);
    try {
      // from the workers panel
      await tabTo(page, 'button', { text: 'Workers' });
      await page.keyboard.press('Enter');
      await tabTo(page, 'button.orc-review');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: /Review · Greeter/ });
      await dialog.waitFor();
      await until(async () => (await dialog.locator('.review-files li').count()) === 1, 'the changed file listed');
      assert.match(await dialog.locator('.review-files li').innerText(), /added\s+greet\.ts\s+\+1 −0/);
      // diff2html drew the file, and highlight.js coloured its code
      await until(async () => (await dialog.locator('.d2h-file-wrapper .d2h-file-name').innerText()).includes('greet.ts'), 'the diff drawn');
      assert.ok((await dialog.locator('.d2h-code-line-ctn .hljs-keyword, .d2h-code-line-ctn [class^="hljs-"]').count()) > 0, 'syntax highlighted');
      const tabbable = await everyControlTabbable(page, '.review-panel');
      assert.deepEqual(tabbable.missed, [], `every control is reached by Tab (${tabbable.total})`);
      assert.deepEqual(await overflowing(page, '.review-actions'), []);

      // a comment by keyboard: Comment on the file, the line, the text; Escape first backs out of the form alone
      await tabTo(page, 'button', { text: 'Comment on greet.ts' });
      await page.keyboard.press('Enter');
      await until(async () => (await page.evaluate(() => document.activeElement?.tagName)) === 'TEXTAREA', 'the comment field focused');
      await page.keyboard.press('Escape');
      assert.equal(await dialog.locator('.review-comment-form').count(), 0, 'Escape closed the comment form');
      assert.ok(await dialog.isVisible(), 'and only the form');
      await tabTo(page, 'button', { text: 'Comment on greet.ts' });
      await page.keyboard.press('Enter');
      await until(async () => (await page.evaluate(() => document.activeElement?.tagName)) === 'TEXTAREA', 'the comment field focused again');
      await page.keyboard.type('Use a string write:greet.ts=const_greeting="hello";');
      await tabTo(page, 'input', { text: 'Line', back: true });
      await page.keyboard.type('1');
      await tabTo(page, 'button', { text: 'Add comment' });
      await page.keyboard.press('Enter');
      assert.match(await dialog.locator('.review-comment-list').innerText(), /greet\.ts:1\s+Use a string/);
      await documentedShot(page, 'review-1280');
      await tabTo(page, 'button', { text: 'Request changes (1)' });
      await page.keyboard.press('Enter');
      await until(async () => /Changes requested: follow-up run tr_/.test(await dialog.locator('.review-done').innerText().catch(() => '')), 'the follow-up dispatched');
      const followUp = page.locator('.review-thread li');
      await until(async () => (await followUp.count()) === 1 && /succeeded/.test(await followUp.innerText()), 'the follow-up threaded under the review, live to its end');
      await until(async () => /"hello"/.test(await dialog.locator('.review-diff').innerText()), 'the diff now has the follow-up\'s change');
      assert.equal(existsSync(join(repo, 'greet.ts')), false, 'nothing in the tree before the merge');

      await tabTo(page, 'button', { text: 'Approve and merge' });
      await page.keyboard.press('Enter');
      await until(async () => /Merged as [0-9a-f]{8}/.test(await dialog.innerText()), 'merged');
      assert.equal(readFileSync(join(repo, 'greet.ts'), 'utf8'), 'const_greeting="hello";\n');
      assert.equal((await (await fetch(`${server.url}/api/orchestrate/worker-runs/${runId}`)).json()).worktree.state, 'merged');
      await page.keyboard.press('Escape');
      await until(async () => !(await dialog.isVisible()), 'Escape closes the review');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });

  test('390 px from its link: unified diff, nothing sticks out, a merge conflict says what to do, Discard asks first', { timeout: 90_000 }, async () => {
    const first = await dispatch('one scenario:text write:clash.txt=one');
    const second = await dispatch('two scenario:text write:clash.txt=two');
    assert.equal((await sendJson(`${server.url}/api/orchestrate/worker-runs/${first}/merge`, 'POST', {})).status, 200);
    const { page, errors, context } = await openPage(browser, server, { width: 390, height: 800, path: `/#review=${second}` });
    try {
      const dialog = page.getByRole('dialog', { name: /Review · Greeter/ });
      await dialog.waitFor();
      await until(async () => (await dialog.locator('.d2h-file-wrapper').count()) === 1, 'the diff drawn');
      assert.equal(await dialog.locator('.d2h-file-side-diff').count(), 0, 'unified at this width');
      assert.equal(await dialog.getByRole('button', { name: 'Side by side' }).isVisible(), false);
      assert.deepEqual(await overflowing(page, '.review-panel'), []);
      await documentedShot(page, 'review-390');
      await tabTo(page, 'button', { text: 'Approve and merge' });
      await page.keyboard.press('Enter');
      await until(async () => (await dialog.getByRole('alert').count()) === 1, 'the conflict shown');
      assert.match(await dialog.getByRole('alert').innerText(), /conflict with your branch in clash\.txt; nothing was changed\. Resolve it yourself .* or discard/);
      assert.equal(readFileSync(join(repo, 'clash.txt'), 'utf8'), 'one\n');
      await tabTo(page, 'button', { text: 'Discard…' });
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('dialog', { name: 'Discard these changes?' });
      await confirm.waitFor();
      await tabTo(page, 'button', { text: 'Discard the worktree and its branch' });
      await page.keyboard.press('Enter');
      await until(async () => /Discarded/.test(await dialog.innerText()), 'discarded');
      assert.equal(execFileSync('git', ['branch', '--list', `svc/${second}`], { cwd: repo, encoding: 'utf8' }), '');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});

test('the dashboard lists an instance\'s changes to review, and its link opens the review in the instance\'s page', { timeout: 90_000 }, async () => {
  buildWeb();
  const repo = mkdtempSync(join(tmpdir(), 'svc-review-dash-'));
  writeFileSync(join(repo, 'README.md'), '# project\n');
  for (const args of [['init', '-q', '-b', 'main'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'start']]) execFileSync('git', args, { cwd: repo });
  const instance = await startAgentServer({ workingDir: repo });
  const manager = await startManager();
  const browser = await launch();
  try {
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token, label: 'alpha' })).body.id as string;
    const { page: dashboard, context, errors } = await openPage(browser, manager);
    const card = dashboard.getByRole('region', { name: 'Changes to review' });
    await card.getByText('Nothing to review').waitFor();
    const runId = (await sendJson(`${instance.url}/api/orchestrate/dispatch`, 'POST', { virtual: writer, isolation: 'worktree', task: 'x scenario:text write:x.txt=x', wait: true })).body.runId as string;
    // the instance's worker_run event, relayed by the manager, refreshes the card
    const link = card.getByRole('link', { name: `Review svc/${runId} on alpha (new tab)` });
    await link.waitFor({ timeout: 15_000 });
    assert.equal(await link.getAttribute('href'), `/i/${id}/#review=${runId}`);
    const [chat] = await Promise.all([context.waitForEvent('page'), link.focus().then(() => dashboard.keyboard.press('Enter'))]);
    await chat.waitForSelector('#app[data-ready]', { timeout: 15_000 });
    const dialog = chat.getByRole('dialog', { name: /Review · Greeter/ });
    await dialog.waitFor();
    await until(async () => (await dialog.locator('.review-files li').count()) === 1, 'the file, through the proxy');
    assert.deepEqual(realErrors(errors), []);
  } finally {
    await browser.close();
    await manager.close();
    await instance.close();
    rmSync(repo, { recursive: true, force: true });
  }
});
