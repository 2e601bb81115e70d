// The phase stepper and the workers panel in real Chromium against the real server (fake CLIs): the
// current phase and its gate follow orc_state live, Approve moves past the gate as a human (recorded
// as such), Reject sends it back, and a running worker shows up live and is cancelled from the panel.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { sendJson } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

describe('web UI: orchestration', () => {
  let server: AgentTestServer;
  let browser: Browser;
  before(async () => {
    buildWeb();
    server = await startAgentServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the stepper shows the phase and its gate; Approve and Reject; the workers panel cancels a run', { timeout: 60_000 }, async () => {
    const { page, errors, context } = await openPage(browser, server);
    try {
      const session = server.app.services.chat.activeSession().id;
      assert.equal(await page.locator('.orc').count(), 0, 'no stepper while the chat is not orchestrating');
      await sendJson(`${server.url}/api/orchestrate/state`, 'PUT', { phase: 'P', sessionId: session });
      const current = page.locator('.orc-step[aria-current="step"]');
      await until(async () => (await current.count()) === 1 && (await current.innerText()) === 'P', 'P highlighted (live, from orc_state)');
      assert.equal(await page.locator('.orc-gate').innerText(), 'waits on plan');

      await page.getByRole('button', { name: 'Approve' }).click();
      await until(async () => (await current.innerText()) === 'A', 'A after the approval');
      assert.equal(await page.locator('.orc-gate').innerText(), 'waits on audit');
      const state = (await (await fetch(`${server.url}/api/orchestrate/state?sessionId=${session}`)).json());
      assert.deepEqual(state.history.at(-1), { at: state.history.at(-1).at, from: 'P', to: 'A', actor: 'human', approved: ['plan'] });

      await page.getByRole('button', { name: 'Reject' }).click();
      await until(async () => (await current.innerText()) === 'P', 'back to P');

      const runId = (await sendJson(`${server.url}/api/orchestrate/dispatch`, 'POST', { employee: 'tester', task: 'a long job hang', sessionId: session })).body.runId;
      await page.getByRole('button', { name: /^Workers/ }).click();
      const item = page.locator(`.orc-run[data-run="${runId}"]`);
      await until(async () => (await item.getAttribute('data-status')) === 'running', 'the run, live');
      await shot(page, 'orchestration-workers');
      await item.getByRole('button', { name: 'Cancel' }).click();
      await until(async () => (await item.getAttribute('data-status')) === 'cancelled', 'cancelled');
      assert.match(await item.locator('.orc-run-reason').innerText(), /cancelled in the UI/);
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});
