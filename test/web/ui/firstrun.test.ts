// A new user's first runs in the browser, against the real server and the fake provider CLIs: a run
// that fails or is stopped leaves a visible record (what failed, why, the command that fixes it),
// live and after a reload, rendered the same from the same saved record; answers look the same live
// and reloaded; a CLI that keeps retrying is one updating notice; the empty chat says what is
// missing when the active provider cannot answer, and follows the settings.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#composer-input').fill(text);
  await page.locator('#composer-input').press('Enter');
}

/** What a run's rendering shows, part by part (closed step lists included). */
async function partsOf(run: Locator) {
  const text = async (selector: string) => (await run.locator(selector).count() ? ((await run.locator(selector).first().textContent()) ?? '').trim() : null);
  return {
    status: await run.getAttribute('data-status'),
    agent: await text('.run-head'),
    steps: await run.locator('.step').evaluateAll((els) => els.map((el) => el.querySelector('.step-head')?.textContent?.trim())),
    answer: await text('.md'),
    title: await text('.record-title'),
    record: await text('.record-text'),
    fix: await text('.record-fix code'),
    badge: await text('.msg-foot .badge'),
    usage: await text('.msg-foot .run-usage'),
  };
}

/** The providers' names come with the registry, which the page reads once it is interactive (not before). */
const namesShown = (page: Page, name: string) => page.locator('article.run .run-head', { hasText: name }).first().waitFor({ timeout: 15_000 });

const runByTrace = (page: Page, traceId: string) => page.locator(`article.run[data-trace-id="${traceId}"]`);

describe('web UI: first run to first answer', () => {
  let browser: Browser;
  before(async () => {
    buildWeb();
    browser = await launch();
  });
  after(() => browser?.close());

  test('a failed run leaves a record with what failed, why and the fix to copy, live and after a reload', async () => {
    const server = await startAgentServer({ provider: 'gemini', executables: { gemini: '/nonexistent/gemini' } });
    const { page, context, errors } = await openPage(browser, server);
    try {
      await send(page, 'hello there');
      const run = page.locator('article.run[data-status="error"]');
      await run.waitFor({ timeout: 15_000 });
      const traceId = (await run.getAttribute('data-trace-id'))!;
      await namesShown(page, 'Gemini CLI');
      const live = await partsOf(run);
      assert.equal(live.agent, 'Gemini CLI');
      assert.equal(live.title, 'Gemini CLI could not answer: not installed');
      assert.match(live.record!, /^Gemini CLI is not installed .*Install it with npm install -g @google\/gemini-cli/);
      assert.doesNotMatch(await run.innerText(), /cli_missing|`/, 'sentences, no raw failure code, no Markdown backticks');
      assert.equal(live.fix, 'npm install -g @google/gemini-cli');
      assert.equal(live.badge, 'Failed');
      await run.getByRole('button', { name: 'Copy the command that fixes it' }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'npm install -g @google/gemini-cli');
      // the record is the saved message, which the run's row shows (once)
      const saved = (await getJson(`${server.url}/api/messages`)).body.messages.at(-1);
      assert.equal(saved.role, 'system');
      assert.equal(saved.content, live.record);
      assert.equal(await page.locator(`[data-message-id="${saved.id}"]`).count(), 0, 'not also shown as a note');
      // once the chat has messages, what the empty chat said stays over the composer
      const warning = page.locator('.provider-warning');
      await warning.waitFor();
      assert.match(await warning.innerText(), /Gemini CLI is not installed: a message now fails unless a fallback provider answers it/);
      assert.equal(await warning.locator('.cmd-chip code').innerText(), 'npm install -g @google/gemini-cli');
      assert.equal(await page.locator('#composer-input').isDisabled(), false, 'sending stays possible');
      await shot(page, 'firstrun-failed-live');

      await page.reload();
      await page.waitForSelector('#app[data-ready]');
      const reloaded = runByTrace(page, traceId);
      await reloaded.waitFor();
      await namesShown(page, 'Gemini CLI');
      assert.equal(await page.locator(`[data-message-id="${saved.id}"] article.run`).count(), 1, 'rendered from the saved record');
      assert.deepEqual(await partsOf(reloaded), live, 'the same rendering after a reload');
      await shot(page, 'firstrun-failed-reloaded');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('not logged in, stopped, answered: each run renders the same live and after a reload, with no empty usage', async () => {
    const server = await startAgentServer({ provider: 'claude', retries: 0 });
    const { page, context, errors } = await openPage(browser, server);
    try {
      const runs = page.locator('article.run');
      await send(page, 'hi scenario:notloggedin');
      await until(async () => (await runs.first().getAttribute('data-status')) === 'error', 'the failed run', 15_000);
      await namesShown(page, 'Claude Code');
      const denied = await partsOf(runs.first());
      assert.equal(denied.title, 'Claude Code could not answer: not logged in');
      assert.match(denied.record!, /Run claude in a terminal and log in with \/login, or set ANTHROPIC_API_KEY in Settings \(agent\.env\)\.$/);
      assert.equal(denied.fix, 'claude');
      assert.equal(denied.answer, null, "the CLI's own words are in the record, not shown as an answer");
      assert.match(denied.usage!, /^\d+\.\d s$/, 'the duration, and no "0→0 tokens · $0.0000"');

      await send(page, 'wait hang');
      await page.getByRole('button', { name: 'Stop the agent' }).click();
      await until(async () => (await runs.nth(1).getAttribute('data-status')) === 'stopped', 'the stopped run', 15_000);
      const stopped = await partsOf(runs.nth(1));
      assert.equal(stopped.record, 'Stopped before Claude Code answered: stopped by user.');
      assert.equal(stopped.badge, 'Stopped');
      assert.equal(stopped.title, null);

      await send(page, 'run the tool scenario:tool');
      await until(async () => (await runs.nth(2).getAttribute('data-status')) === 'ok', 'the answer', 15_000);
      const answered = await partsOf(runs.nth(2));
      assert.equal(answered.agent, 'Claude Code');
      assert.equal(answered.answer, 'The tool finished. Its output was: hello-from-tool');
      assert.deepEqual(answered.steps, ['Bashecho hello-from-tool']);
      assert.match(answered.usage!, /^\d+\.\d s · 200→40 tokens · \$0\.0020$/);
      assert.equal(answered.badge, null);
      await shot(page, 'firstrun-three-runs-live');

      const traces = await runs.evaluateAll((els) => els.map((el) => el.getAttribute('data-trace-id')!));
      await page.reload();
      await page.waitForSelector('#app[data-ready]');
      await until(async () => (await page.locator('article.run').count()) === 3, 'the three runs from the history');
      await namesShown(page, 'Claude Code');
      assert.deepEqual(await partsOf(runByTrace(page, traces[0]!)), denied);
      assert.deepEqual(await partsOf(runByTrace(page, traces[1]!)), stopped);
      assert.deepEqual(await partsOf(runByTrace(page, traces[2]!)), answered);
      await shot(page, 'firstrun-three-runs-reloaded');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('a CLI that keeps retrying shows one notice that updates, not a stack of them', async () => {
    const server = await startAgentServer({ provider: 'codex', idleTimeoutSec: 2, retries: 0 });
    const { page, context, errors } = await openPage(browser, server);
    try {
      // the recording says "Reconnecting... waiting for network" every 150 ms until the idle watchdog ends it
      await send(page, 'hi scenario:network-down delay:150 loop');
      const run = page.locator('article.run').first();
      const notices = run.locator('.run-notice');
      let seen = 0;
      await until(async () => {
        seen = Math.max(seen, await notices.count());
        return /\(attempt [4-9]\)$/.test(((await run.locator('.notice-retry').textContent().catch(() => '')) ?? '').trim());
      }, 'the fourth attempt', 10_000);
      assert.equal(await notices.count(), 1, 'one notice');
      assert.ok(seen <= 1, `never more than one (saw ${seen})`);
      assert.match((await notices.textContent()) ?? '', /^Codex CLI is retrying on its own: waiting for the network: Connection failed/);
      await shot(page, 'firstrun-retrying');
      await until(async () => (await run.getAttribute('data-status')) === 'error', 'the watchdog to end it', 15_000);
      assert.equal((await partsOf(run)).title, 'Codex CLI could not answer: timed out');
      assert.equal(await notices.count(), 0, 'the retry was a passing state: the record says how it ended');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('until the providers\' state has come, the header says it is checking, not Ready', async () => {
    const server = await startAgentServer({ provider: 'gemini', executables: { gemini: '/nonexistent/gemini' } });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        await p.route('**/api/cli-status*', async (route) => {
          await held;
          await route.continue();
        });
      },
    });
    try {
      const pill = page.locator('.status-pill');
      await until(async () => (await pill.textContent())?.trim() === 'Checking…', 'the pill checking');
      // still held: it never said Ready meanwhile
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await pill.textContent())?.trim(), 'Checking…');
      release();
      await until(async () => (await pill.textContent())?.trim() === 'Not set up', 'the provider\'s state');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      release();
      await context.close();
      await server.close();
    }
  });

  test('the empty chat says what is missing, with the fix, and a way to choose another provider; it follows the settings', async () => {
    // Claude has a key in agent.env (ready whatever this machine has); Gemini's CLI is missing.
    const server = await startAgentServer({ provider: 'gemini', executables: { gemini: '/nonexistent/gemini' }, env: { ANTHROPIC_API_KEY: 'sk-test' } });
    const statusReads: number[] = [];
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        p.on('request', (r) => {
          if (new URL(r.url()).pathname === '/api/cli-status') statusReads.push(Date.now());
        });
      },
    });
    try {
      const setup = page.locator('.empty.setup');
      await setup.waitFor({ timeout: 15_000 });
      assert.equal(await setup.getByRole('heading').textContent(), 'Gemini CLI is not installed');
      assert.match((await setup.locator('.setup-summary').textContent()) ?? '', /^Gemini CLI is not installed\. Install it with: npm install -g @google\/gemini-cli$/);
      assert.equal(await setup.locator('.cmd-chip code').textContent(), 'npm install -g @google/gemini-cli');
      assert.equal((await page.locator('.status-pill').textContent())?.trim(), 'Not set up', 'the header does not say Ready');
      await setup.getByRole('button', { name: /^Copy the command/ }).click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'npm install -g @google/gemini-cli');
      await shot(page, 'firstrun-empty-missing');

      // the picker says, per provider, whether it can answer and what fixes it
      await setup.getByRole('button', { name: 'Choose another provider' }).click();
      const pop = page.getByRole('dialog', { name: 'Choose the agent' });
      await pop.waitFor();
      const label = (id: string) => pop.locator(`[data-provider="${id}"] .install-state`).textContent();
      await until(async () => /^Ready/.test((await label('claude')) ?? ''), 'claude ready (its key is set)');
      assert.equal(await label('gemini'), 'Not installed');
      assert.equal(await pop.locator('[data-provider="gemini"] .cmd-chip code').textContent(), 'npm install -g @google/gemini-cli');
      assert.equal(await label('custom'), 'Not set up');
      assert.equal(await pop.locator('[data-provider="claude"] .setup-help').count(), 0, 'nothing to fix');
      await shot(page, 'firstrun-picker-readiness');
      await pop.locator('[data-provider="claude"] input[type=radio]').check();
      await until(() => server.app.services.settings.get().agent.provider === 'claude', 'the provider setting');
      await page.keyboard.press('Escape');
      await until(async () => (await page.locator('.empty h2').textContent()) === 'What should we work on?', 'the invitation for a provider that can answer');
      assert.equal((await page.locator('.status-pill').textContent())?.trim(), 'Ready');

      // the custom provider, chosen elsewhere before it has a command: not set up
      await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { provider: 'custom' } });
      await until(async () => (await page.locator('.empty.setup h2').textContent().catch(() => '')) === 'Custom command is not set up', 'the custom provider to say what is missing');
      assert.match((await setup.locator('.setup-summary').textContent()) ?? '', /agent\.customCommand/);
      assert.equal(await setup.locator('.cmd-chip').count(), 0, 'no command to run: it is a setting');
      // configured: the page reads /api/cli-status again by itself (the picker stays closed)
      const readsBefore = statusReads.length;
      await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { customCommand: [process.execPath, '-e', 'console.log(process.argv[1])', '{prompt}'] } });
      await until(async () => (await page.locator('.empty h2').textContent()) === 'What should we work on?', 'the empty chat to follow the settings', 15_000);
      assert.ok(statusReads.length > readsBefore, 'the readiness was read again');
      await page.locator('.picker-btn').click();
      await until(async () => /^Ready/.test((await label('custom')) ?? ''), 'the custom provider ready in the picker');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      await server.close();
    }
  });
});
