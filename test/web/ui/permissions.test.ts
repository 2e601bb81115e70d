// The chat's permission card in real Chromium, with the real Claude Code CLI against the fake model
// (`scenario:write` asks to write hello-from-tool.txt) and agent.autoApprove off: the held call shows
// in its run live, and again after a reload; at 390 px nothing sticks out; Allow once from the keyboard
// alone lets the file land; a call held while the page's event channel was down shows once it is back,
// and Deny with a reason (keyboard alone) keeps the file from being written and the reason reaches the
// agent's answer. SVC_SCREENSHOTS=1 also writes docs/screenshots/permissions-{1280,390}.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startFakeModel, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, documentedShot, launch, openPage, realErrors, until } from './helpers.ts';
import { focused, overflowing, tabTo } from './keyboard.ts';

const skip = realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh';

describe('web UI: tool permissions in the chat', { skip }, () => {
  let fake: FakeModel;
  let server: TestServer;
  let browser: Browser;
  let cwd: string;
  const file = () => join(cwd, 'hello-from-tool.txt');

  before(async () => {
    buildWeb();
    fake = await startFakeModel();
    server = await startServer({ retryBaseMs: 10 });
    const prepared = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-perm-ui-')));
    cwd = prepared.cwd;
    // a person is asked: no skipped permissions, so no sandbox flag either
    const { IS_SANDBOX: _sandbox, ...env } = prepared.env;
    server.app.services.settings.update({
      agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0, autoApprove: false, approvalTimeoutSec: 120 },
    });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  /** A new chat (the fake model calls its tool in a conversation's first turn) and its run; the answer once it ends. */
  async function startRun(title: string): Promise<{ done: Promise<string> }> {
    rmSync(file(), { force: true });
    assert.equal((await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title })).status, 201);
    return { done: sendJson(`${server.url}/api/message`, 'POST', { prompt: 'Write the greeting file. scenario:write' }).then((r) => r.body as string) };
  }
  const pendingOnServer = async () => (await getJson(`${server.url}/api/permissions`)).body.requests as { id: string; runId: string }[];
  /** The run's held call (a run that ends without asking fails the test with its answer). */
  const held = (done: Promise<string>) =>
    Promise.race([
      until(async () => (await pendingOnServer())[0], 'the held call', 60_000) as Promise<{ id: string; runId: string }>,
      done.then((answer) => Promise.reject(new Error(`the run ended without asking: ${answer}`))),
    ]);
  const answerText = (ndjson: string) => (JSON.parse(ndjson.trim().split('\n').at(-1)!) as { text: string }).text;
  const card = (page: Page) => page.locator('.run .perm-card').last();

  test('live, after a reload, 390 px; Allow once from the keyboard lets the file land', async () => {
    const { page, errors } = await openPage(browser, server);
    const { done } = await startRun('allow');
    const asked = await held(done);
    // live: in the run that asked, with what and where
    const live = page.locator(`.run[data-trace-id="${asked.runId}"] [data-permission-id="${asked.id}"]`);
    await live.waitFor({ timeout: 15_000 });
    const text = await live.innerText();
    assert.match(text, /Allow Write\?/);
    assert.match(text, /Write hello-from-tool\.txt/);
    assert.match(text, /hello-from-tool\.txt/, 'the path');
    assert.match(text, /\+hello-from-tool/, 'the change');
    assert.match(text, /expires in 1 min \d+ s|expires in 2 min/, 'the time left');
    assert.equal(await live.getAttribute('aria-labelledby'), `perm-${asked.id}-title`, 'named for a screen reader');

    // a reload: the card is back (read from GET /api/permissions), still answerable
    await page.reload();
    await page.waitForSelector('#app[data-ready]');
    await live.waitFor({ timeout: 15_000 });
    assert.equal(await live.getAttribute('data-status'), 'pending');

    await page.setViewportSize({ width: 390, height: 844 });
    await live.scrollIntoViewIfNeeded();
    assert.deepEqual(await overflowing(page, '.perm-card'), [], 'nothing sticks out at 390 px');
    await documentedShot(page, 'permissions-390');
    await page.setViewportSize({ width: 1280, height: 800 });
    await live.scrollIntoViewIfNeeded();
    await documentedShot(page, 'permissions-1280');

    // keyboard alone: Tab to Allow once, Enter
    await tabTo(page, `[data-permission-id="${asked.id}"] button`, { text: 'Allow once' });
    await page.keyboard.press('Enter');
    await until(async () => (await live.getAttribute('data-status')) === 'allowed', 'the card decided');
    assert.match(await live.innerText(), /Allowed by a person/);
    assert.match(await focused(page), /^p/, 'the focus stays on the card: its outcome line');
    await done;
    assert.equal(existsSync(file()), true, 'the tool ran');
    const audited = server.app.services.audit.page({ limit: 10, action: 'permission.decide' }).entries;
    assert.deepEqual(audited.map((e) => [e.target, e.outcome]), [[asked.id, 'ok']], 'decided once, by the page');
    assert.deepEqual(realErrors(errors), []);
    await page.context().close();
  });

  test('asked while the event channel was down: shown once it is back; Deny with a reason from the keyboard', async () => {
    const { page, errors } = await openPage(browser, server, { colorScheme: 'dark' });
    const phase = () => page.evaluate(() => (window as unknown as { svcState(): { conn: { phase: string } } }).svcState().conn.phase);
    await until(async () => (await phase()) === 'open', 'the event channel');
    // the page's event channel drops and cannot come back until the call is held
    await page.route('**/api/events**', (route) => route.abort('connectionrefused'));
    server.app.http.server.closeAllConnections();
    await until(async () => (await phase()) !== 'open', 'the channel down');
    const { done } = await startRun('deny');
    const asked = await held(done);
    assert.equal(await page.locator(`[data-permission-id="${asked.id}"]`).count(), 0, 'not seen while down');
    await page.unroute('**/api/events**');
    const live = card(page);
    await live.waitFor({ timeout: 15_000 });
    assert.equal(await live.getAttribute('data-permission-id'), asked.id);

    await tabTo(page, `[data-permission-id="${asked.id}"] button`, { text: 'Deny' });
    await page.keyboard.press('Space');
    // the reason field takes the focus; Escape goes back to Deny…, Space opens it again
    await until(async () => (await focused(page)).startsWith('input#'), 'the reason field focused');
    await page.keyboard.press('Escape');
    await until(async () => /Deny…/.test(await focused(page)), 'back on Deny…');
    await page.keyboard.press('Space');
    await until(async () => (await focused(page)).startsWith('input#'), 'the reason field focused again');
    await page.keyboard.type('not in this folder, please');
    await page.keyboard.press('Enter');
    await until(async () => (await live.getAttribute('data-status')) === 'denied', 'the card decided');
    assert.match(await live.innerText(), /Denied by a person Write hello-from-tool\.txt — not in this folder, please/);

    const decided = server.app.services.permissions.get(asked.id)!;
    assert.deepEqual([decided.status, decided.decidedBy, decided.reason], ['denied', 'person', 'not in this folder, please'], 'the decision reached the server');
    assert.match(answerText(await done), /not in this folder, please/, 'the reason reached the agent');
    assert.equal(existsSync(file()), false, 'nothing written');
    assert.deepEqual(await pendingOnServer(), []);
    assert.deepEqual(realErrors(errors), []);
    await page.context().close();
  });
});
