// The goal banner and the tasks panel in real Chromium against the real server: a goal set through the
// API appears live (SSE), checkpoints and the budget used follow, the agent's pause request shows the gate,
// Pause/Resume/Cancel act, and tasks come and go as task_update events arrive.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { buildWeb, documentedShot, launch, openPage, realErrors, shot } from './helpers.ts';

describe('web UI: the goal banner and tasks', () => {
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

  test('goal and tasks live over SSE; the gate; pause, resume and cancel', async () => {
    const { page, errors } = await openPage(browser, server);
    const banner = page.getByTestId('goal-banner');
    assert.equal(await banner.count(), 0, 'no goal, no task: no banner');

    const goal = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      getJson(`${server.url}/api/goal`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    await goal({ action: 'set', objective: 'Ship the release notes', budget: { maxTurns: 8 } });
    await banner.waitFor();
    assert.match(await banner.innerText(), /Ship the release notes/);
    assert.equal(await page.getByTestId('goal-status').innerText(), 'active, assist');
    assert.match(await page.getByTestId('goal-budget').innerText(), /0\/8 turns/);

    await goal({ action: 'update', summary: 'drafted the notes', nextAction: 'proofread' });
    await page.getByTestId('goal-checkpoints').getByText('drafted the notes').waitFor();

    // the agent's first pause request: the gate shows, the goal stays active
    const sessionId = server.app.services.chat.activeSession().id;
    const token = server.app.services.credentials.issue({ runId: 'tr_ui', sessionId }, 60_000);
    await goal({ action: 'pause', reason: 'waiting for the changelog' }, { 'x-svc-run-token': token });
    const gate = page.getByTestId('goal-gate');
    await gate.waitFor();
    assert.match(await gate.innerText(), /waiting for the changelog/);
    await shot(page, 'goal-gate');

    // Resume withdraws the request; Pause pauses at once; Resume again; Cancel ends it
    await banner.getByRole('button', { name: 'Resume' }).click();
    await gate.waitFor({ state: 'detached' });
    await banner.getByRole('button', { name: 'Pause' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="goal-status"]')?.textContent === 'paused');
    assert.equal((await getJson(`${server.url}/api/goal`)).body.goal.status, 'paused');
    await banner.getByRole('button', { name: 'Resume' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="goal-status"]')?.textContent === 'active, assist');

    const added = await sendJson(`${server.url}/api/task`, 'POST', { action: 'add', content: 'Proofread the notes', owner: 'worker-1' });
    const item = page.locator(`[data-task="${added.body.task.id}"]`);
    await item.waitFor();
    assert.match(await item.innerText(), /Proofread the notes\s*worker-1/);
    await page.getByRole('button', { name: 'Mark done: Proofread the notes' }).click();
    await item.waitFor({ state: 'detached' });
    assert.equal((await getJson(`${server.url}/api/task?status=done`)).body.tasks.length, 1);

    // cancelling cannot be undone: it asks first, and declining (Escape, or Keep it) keeps the goal
    await banner.getByRole('button', { name: 'Cancel goal…' }).click();
    const ask = page.getByRole('dialog', { name: 'Cancel this goal?' });
    await ask.waitFor();
    assert.match(await ask.innerText(), /cannot be resumed/);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Keep it', 'Enter alone does not cancel');
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'hidden' });
    assert.equal((await getJson(`${server.url}/api/goal`)).body.goal.status, 'active');
    await banner.getByRole('button', { name: 'Cancel goal…' }).click();
    await ask.getByRole('button', { name: 'Cancel the goal' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="goal-status"]')?.textContent === 'cancelled');
    assert.equal((await getJson(`${server.url}/api/goal`)).body.goal.runStatus, 'stopped', 'an ended goal has no run going');
    assert.equal(await banner.getByRole('button', { name: 'Cancel goal…' }).count(), 0, 'nothing to cancel any more');
    await shot(page, 'goal-cancelled');
    assert.deepEqual(realErrors(errors), []);
    await page.context().close();
  });

  test('on a phone and wide: the banner fits, its actions are reached by Tab', async () => {
    await sendJson(`${server.url}/api/goal`, 'POST', { action: 'set', objective: 'Publish the 2.0 release notes and announce them on the blog', budget: { maxTurns: 12, maxMinutes: 90 }, replace: true });
    await sendJson(`${server.url}/api/goal`, 'POST', { action: 'update', summary: 'drafted the notes from the changelog', nextAction: 'proofread and link the migration guide' });
    for (const width of [390, 1280]) {
      const { page, errors, context } = await openPage(browser, server, { width, height: 800 });
      try {
        const banner = page.getByTestId('goal-banner');
        await banner.getByText('drafted the notes from the changelog').waitFor();
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${width} px: no horizontal overflow`);
        const box = (await banner.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= width, `${width} px: the banner is inside the window`);
        let reached = false;
        for (let i = 0; i < 40 && !reached; i++) {
          await page.keyboard.press('Tab');
          reached = (await page.evaluate(() => document.activeElement?.textContent)) === 'Cancel goal…';
        }
        assert.ok(reached, `${width} px: Cancel goal… is reached by Tab`);
        await documentedShot(page, `goals-${width}`);
        // a toast (Pause answers with one) never covers the composer's send and microphone buttons
        await page.getByTestId('goal-banner').getByRole('button', { name: 'Pause' }).click();
        const toast = page.locator('.toast').first();
        await toast.waitFor();
        const over = (a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }) =>
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        const toastBox = (await toast.boundingBox())!;
        for (const button of ['.send-btn', '.mic-btn']) {
          const box = await page.locator(button).boundingBox();
          assert.ok(box && !over(toastBox, box), `${width} px: the toast leaves ${button} uncovered`);
        }
        await sendJson(`${server.url}/api/goal`, 'POST', { action: 'resume' });
        assert.deepEqual(realErrors(errors), []);
      } finally {
        await context.close();
      }
    }
  });
});
