// The provider and model picker: the registry's providers, whether each CLI can answer (installed,
// logged in; one that cannot says what fixes it), and choosing writes the settings on the real server.
// /api/cli-status depends on what this machine has installed, so the page gets a fixed answer
// (and while the routes are not mounted yet, a fixed registry built from src/agent/providers/registry.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Route } from 'playwright-core';
import { PROVIDERS } from '../../../src/agent/providers/registry.ts';
import { sendJson, startServer, type TestServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

describe('web UI: provider and model picker', () => {
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

  test('shows install state, how to install a missing CLI, and changes provider and model', async () => {
    let statusCalls = 0;
    const json = (route: Route, body: unknown) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    const { page, context, errors } = await openPage(browser, server, {
      beforeGoto: async (p) => {
        await p.route('**/api/cli-registry', async (route) => {
          const real = await route.fetch();
          if (real.ok()) return route.fulfill({ response: real });
          const { provider, model, effort } = server.app.services.settings.get().agent;
          return json(route, { providers: PROVIDERS, active: { provider, model, effort } });
        });
        await p.route('**/api/cli-status**', (route) => {
          statusCalls++;
          const detecting = statusCalls < 2;
          const found = { state: 'found', source: '~/.claude/.credentials.json' };
          const missing = { state: 'missing' };
          const absent = (summary: string, fix: string) => ({ state: 'ready', installed: false, path: null, version: null, checkedAt: 1, credentials: missing, readiness: { state: 'not_installed', summary, fix } });
          return json(route, {
            refreshing: detecting,
            providers: {
              claude: { state: 'ready', installed: true, path: '/usr/bin/claude', version: '2.1.197', checkedAt: 1, credentials: found, readiness: { state: 'ready', summary: 'Claude Code is installed and has a login (~/.claude/.credentials.json).' } },
              codex: {
                state: 'ready', installed: true, path: '/usr/bin/codex', version: '0.169.0', checkedAt: 1, credentials: missing,
                readiness: { state: 'needs_login', summary: 'Codex CLI is installed but not logged in: run codex login in a terminal and sign in.', fix: 'codex login' },
              },
              gemini: absent('Gemini CLI is not installed. Install it with: npm install -g @google/gemini-cli', 'npm install -g @google/gemini-cli'),
              opencode: detecting ? { state: 'detecting' } : absent('OpenCode is not installed. Install it with: npm install -g opencode-ai', 'npm install -g opencode-ai'),
              copilot: absent('GitHub Copilot is not installed. Install it with: npm install -g @github/copilot', 'npm install -g @github/copilot'),
            },
          });
        });
      },
    });
    const button = page.locator('.picker-btn');
    await until(async () => (await button.textContent())?.includes('Claude Code'), 'the registry');
    await button.click();
    const pop = page.getByRole('dialog', { name: 'Choose the agent' });
    await pop.waitFor();
    const claude = pop.locator('[data-provider="claude"]');
    assert.equal(await claude.locator('.install-state').textContent(), 'Ready · 2.1.197');
    assert.equal(await claude.locator('input[type=radio]').isChecked(), true);
    assert.equal(await claude.locator('.setup-help').count(), 0, 'nothing to fix');
    // installed but not logged in: says so, with the command that logs in
    const codexRow = pop.locator('[data-provider="codex"]');
    assert.equal(await codexRow.locator('.install-state').textContent(), 'Not logged in');
    assert.match((await codexRow.locator('.setup-summary').textContent()) ?? '', /not logged in: run codex login/);
    assert.equal(await codexRow.locator('.cmd-chip code').textContent(), 'codex login');
    const gemini = pop.locator('[data-provider="gemini"]');
    assert.equal(await gemini.locator('.install-state').textContent(), 'Not installed');
    assert.equal(await gemini.locator('.cmd-chip code').textContent(), 'npm install -g @google/gemini-cli');
    assert.match((await gemini.locator('a').getAttribute('href')) ?? '', /^https:\/\//);
    // detection still running: polled until it settles
    await until(async () => (await pop.locator('[data-provider="opencode"] .install-state').textContent()) === 'Not installed', 'the detection to finish');
    assert.ok(statusCalls >= 2);
    await gemini.getByRole('button', { name: 'Copy the command that sets up Gemini CLI' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'npm install -g @google/gemini-cli');
    await shot(page, 'picker');

    await pop.locator('[data-provider="codex"] input[type=radio]').check();
    await until(() => server.app.services.settings.get().agent.provider === 'codex', 'the provider setting');
    await until(async () => (await button.textContent())?.includes('Codex CLI'), 'the button label');
    const codex = PROVIDERS.find((p) => p.id === 'codex')!;
    const model = codex.models.find((m) => m.id)!;
    await pop.getByLabel('Model').selectOption(model.id);
    await until(() => server.app.services.settings.get().agent.model === model.id, 'the model setting');
    const modelLabel = new RegExp(model.label.replace(/[()]/g, '.'));
    await until(async () => modelLabel.test((await button.textContent()) ?? ''), 'the model in the button label');
    if (codex.efforts.length) {
      await pop.getByLabel('Reasoning effort').selectOption(codex.efforts[0]!);
      await until(() => server.app.services.settings.get().agent.effort === codex.efforts[0], 'the effort setting');
    }
    await page.keyboard.press('Escape');
    await until(async () => (await pop.count()) === 0, 'the picker to close');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'picker-btn', 'focus returns to the button');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a provider change made elsewhere (a slash command, the API) shows in the header at once, no reload', async () => {
    const { page, context, errors } = await openPage(browser, server);
    try {
      const button = page.locator('.picker-btn');
      const provider = server.app.services.settings.get().agent.provider;
      await until(async () => (await button.textContent())?.includes(PROVIDERS.find((p) => p.id === provider)!.displayName), 'the current provider');
      await (await postNdjson(`${server.url}/api/command`, { text: '/cli gemini' })).done;
      await until(async () => (await button.textContent())?.includes('Gemini CLI'), 'the header to follow /cli');
      await sendJson(`${server.url}/api/settings`, 'PUT', { agent: { provider: 'opencode', model: 'anthropic/claude-sonnet-5' } });
      await until(async () => /OpenCode.*Claude Sonnet 5/s.test((await button.textContent()) ?? ''), 'the header to follow the API');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});
