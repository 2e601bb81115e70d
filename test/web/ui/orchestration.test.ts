// The phase stepper and the workers panel in real Chromium against the real server (fake CLIs): the
// current phase and its gate follow orc_state live, Approve moves past the gate as a human (recorded
// as such), Reject sends it back, and a running worker shows up live and is cancelled from the panel.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { sendJson } from '../../support/server.ts';
import { buildWeb, documentedShot, launch, openPage, realErrors, shot, until } from './helpers.ts';

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
      const current = page.locator('.orc-step[aria-current="step"] .orc-letter');
      await until(async () => (await current.count()) === 1 && (await current.innerText()) === 'P', 'P highlighted (live, from orc_state)');
      assert.equal(await page.locator('.orc-gate').innerText(), 'Waiting on the plan gate: a submitted plan.');
      // the bar is under the header, which keeps its title and provider picker on one row
      assert.equal(await page.locator('.topbar .orc').count(), 0);

      // Approve says what it approves, and asks first
      await page.getByRole('button', { name: 'Approve…' }).click();
      const approve = page.getByRole('dialog', { name: 'Approve the plan gate?' });
      await approve.waitFor();
      assert.match(await approve.innerText(), /from P \(plan\) to A \(audit\) without a submitted plan/);
      await approve.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await (await fetch(`${server.url}/api/orchestrate/state?sessionId=${session}`)).json()).phase, 'P', 'declining moves nothing');
      await page.getByRole('button', { name: 'Approve…' }).click();
      await approve.getByRole('button', { name: 'Approve and move to A' }).click();
      await until(async () => (await current.innerText()) === 'A', 'A after the approval');
      assert.match(await page.locator('.orc-gate').innerText(), /Waiting on the audit gate/);
      const state = (await (await fetch(`${server.url}/api/orchestrate/state?sessionId=${session}`)).json());
      assert.deepEqual(state.history.at(-1), { at: state.history.at(-1).at, from: 'P', to: 'A', actor: 'human', approved: ['plan'] });

      // sending back takes a reason the agent reads
      await page.getByRole('button', { name: 'Send back…' }).click();
      const back = page.getByRole('dialog', { name: 'Send the chat back to P (plan)?' });
      await back.getByRole('textbox').fill('the plan misses the migration');
      await back.getByRole('button', { name: 'Send back to P' }).click();
      await until(async () => (await current.innerText()) === 'P', 'back to P');
      const sentBack = (await (await fetch(`${server.url}/api/orchestrate/state?sessionId=${session}`)).json()).history.at(-1);
      assert.deepEqual([sentBack.from, sentBack.to, sentBack.reason], ['A', 'P', 'the plan misses the migration']);

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

  test('on a phone the bar stacks under the header: the title and the provider stay, nothing overflows, Approve is reachable by keyboard', { timeout: 60_000 }, async () => {
    const session = server.app.services.chat.activeSession().id;
    await sendJson(`${server.url}/api/orchestrate/reset`, 'POST', { sessionId: session });
    await sendJson(`${server.url}/api/orchestrate/state`, 'PUT', { phase: 'P', sessionId: session });
    for (const width of [390, 1280]) {
      const { page, errors, context } = await openPage(browser, server, { width, height: 800 });
      try {
        await page.locator('.orc').waitFor();
        for (const selector of ['.session-name', '.picker-btn']) {
          const box = await page.locator(selector).boundingBox();
          assert.ok(box && box.width > 20 && box.x >= 0 && box.x + box.width <= width, `${width} px: ${selector} is shown (${JSON.stringify(box)})`);
        }
        // the controls keep one row (the picker beside Settings); on a phone the title has a slim line under them
        const picker = (await page.locator('.picker-btn').boundingBox())!;
        const settings = (await page.locator('.topbar-right').getByRole('button', { name: 'Settings' }).boundingBox())!;
        assert.ok(Math.abs(picker.y + picker.height / 2 - (settings.y + settings.height / 2)) < 4, `${width} px: the picker and Settings share a row`);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${width} px: no horizontal overflow`);
        const bar = (await page.locator('.orc').boundingBox())!;
        assert.ok(bar.x >= 0 && bar.x + bar.width <= width, `${width} px: the bar is inside the window`);
        await documentedShot(page, `orchestration-${width}`);
        let reached = false;
        for (let i = 0; i < 40 && !reached; i++) {
          await page.keyboard.press('Tab');
          reached = (await page.evaluate(() => document.activeElement?.textContent)) === 'Approve…';
        }
        assert.ok(reached, `${width} px: Approve… is reachable with Tab`);
        await page.keyboard.press('Enter');
        await page.getByRole('dialog', { name: 'Approve the plan gate?' }).waitFor();
        await shot(page, `orchestration-approve-${width}`);
        await page.keyboard.press('Escape');
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await context.close();
      }
    }
  });
});
