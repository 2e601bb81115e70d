// The manager dashboard's page in real Chromium: instances with their latest answer (live, from the
// manager's stream), the board, memory search, the activity feed; no console errors (CSP included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, ask } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, shot } from './helpers.ts';

test('the dashboard page shows instances live, the board and memory search', async () => {
  buildWeb();
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  const browser = await launch();
  try {
    const token = instance.app.services.token;
    const id = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token, label: 'worker alpha' })).body.id;
    const { page, errors } = await openPage(browser, manager);
    const row = page.locator(`li.instance[data-id="${id}"]`);
    await row.locator('text=worker alpha').waitFor();
    assert.equal(await row.locator('.status').textContent(), 'online');

    // an answer in the instance appears without a reload
    const answer = await ask(instance.url, token, 'say something scenario:text');
    const text = JSON.parse(answer.trim().split('\n').at(-1)!).text as string;
    await row.locator('.latest', { hasText: text.slice(0, 20) }).waitFor({ timeout: 5000 });

    await page.getByLabel('New item').fill('Plan the release');
    await page.getByLabel('New item').press('Enter');
    await page.locator('[data-lane="backlog"] .card', { hasText: 'Plan the release' }).waitFor();
    await page.getByLabel('Move Plan the release on').click();
    await page.locator('[data-lane="ready"] .card', { hasText: 'Plan the release' }).waitFor();

    // a note an agent leaves through its connector shows live, as that agent's
    const credential = (await sendJson(`${manager.url}/api/dashboard/connectors/credentials`, 'POST', { instanceId: id })).body.credential as string;
    const noted = await fetch(`${manager.url}/api/dashboard/connectors/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-connector': credential },
      body: JSON.stringify({ title: 'Build is green', body: 'All 12 suites pass.' }),
    });
    assert.equal(noted.status, 201);
    const note = page.locator(`.notes li[data-instance="${id}"]`, { hasText: 'Build is green' });
    await note.waitFor();
    assert.match((await note.textContent()) ?? '', /by the agent of worker alpha.*All 12 suites pass\./s);

    await page.getByLabel('Search memory').fill('anything');
    await page.getByLabel('Search memory').press('Enter');
    await page.locator('ul.hits').waitFor({ state: 'attached' });
    assert.ok((await page.locator('.feed li').count()) > 0, 'the activity feed shows what happened');

    // the settings panel: only the changed field is sent, the start-up flags' fields stay theirs
    const settings = page.locator('section.settings');
    await settings.getByLabel('Scan every (s)').fill('90');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.locator('.settings-status', { hasText: 'Saved and applied.' }).waitFor();
    const saved = (await getJson(`${manager.url}/api/dashboard/settings`)).body;
    assert.equal(saved.settings.scan.intervalSec, 90);
    assert.ok(saved.overridden.includes('scan.from'), 'untouched fields keep their start-up value');
    assert.equal(await settings.locator('label', { hasText: 'First port to scan' }).locator('.override').count(), 1);
    assert.deepEqual(errors, []);
    await settings.getByLabel('Scan every (s)').fill('1');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.locator('.settings-status', { hasText: 'scan.intervalSec' }).waitFor();
    await page.locator('.feed li', { hasText: 'scan.intervalSec 60 → 90' }).waitFor();
    await shot(page, 'dashboard');
    assert.deepEqual(errors, ['Failed to load resource: the server responded with a status of 400 (Bad Request)'], 'only the refused setting');
  } finally {
    await browser.close();
    await manager.close();
    await instance.close();
  }
});
