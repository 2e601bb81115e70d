// The skills panel and Pi's profiles in the provider picker, in real Chromium against the real server:
// list with sources and unmet requirements, enable/disable through the API, read a SKILL.md; a Pi
// profile's models offered as <profile>/<model>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, sendJson, startServer, tempHome } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

test('web UI: the skills panel, and Pi models in the picker', { timeout: 120_000 }, async (t) => {
  buildWeb();
  const home = tempHome();
  const dir = join(home, 'skills', 'pdf');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), '---\nname: PDF reader\ndescription: Reads PDF files\nrequires:\n  bins: [svc-no-such-binary]\n---\n# Reading PDFs\n\nUse **pdftotext** first.\n');
  const models = createServer((_req, res) => res.end(JSON.stringify({ data: [{ id: 'qwen3-coder' }] })));
  await new Promise<void>((r) => models.listen(0, '127.0.0.1', r));
  const server = await startServer({ home });
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.close();
    await new Promise<void>((r) => models.close(() => r()));
  });

  const { page, errors } = await openPage(browser, server);
  await page.getByRole('button', { name: 'Skills' }).click();
  const dialog = page.getByRole('dialog', { name: 'Skills' });
  await dialog.waitFor();
  const row = dialog.locator('.skill[data-id="pdf"]');
  await row.waitFor();
  assert.equal(await row.locator('.skill-source').textContent(), 'home');
  assert.match((await row.locator('.skill-req').textContent()) ?? '', /missing: svc-no-such-binary/);
  assert.equal(await dialog.locator('.skill').count(), 5, 'four built-in skills and one of <home>/skills');

  // Disable through the switch: the server keeps it.
  await row.getByLabel('Enable PDF reader').uncheck();
  await until(async () => (await getJson(`${server.url}/api/skills`)).body.skills.find((s: { id: string }) => s.id === 'pdf').enabled === false, 'pdf disabled on the server');
  await dialog.locator('.skill[data-id="browser"]').getByLabel('Enable Browser').uncheck();
  await until(async () => (await getJson(`${server.url}/api/skills`)).body.skills.find((s: { id: string }) => s.id === 'browser').enabled === false, 'browser disabled');
  assert.match((await dialog.locator('.memory-status').textContent()) ?? '', /3 of 5 enabled/);

  // Read its SKILL.md, rendered.
  await row.locator('.skill-main').click();
  await until(async () => (await dialog.locator('.skill-read h1').textContent()) === 'Reading PDFs', 'the SKILL.md');
  assert.equal(await dialog.locator('.skill-read strong').textContent(), 'pdftotext');
  assert.match((await dialog.locator('.skill-frontmatter').textContent()) ?? '', /^name: PDF reader\ndescription: Reads PDF files/);
  await shot(page, 'skills-panel');
  await dialog.getByRole('button', { name: 'Close skills' }).click();
  await until(async () => !(await dialog.isVisible()), 'the panel closed');

  // A Pi profile's models appear in the picker once Pi is chosen.
  const registered = await sendJson(`${server.url}/api/pi/profiles/register`, 'POST', { id: 'local', label: 'Local', mode: 'openai', endpoint: `http://127.0.0.1:${(models.address() as AddressInfo).port}/v1` });
  assert.equal(registered.status, 200, JSON.stringify(registered.body));
  await page.reload();
  await page.waitForSelector('#app[data-ready]');
  await page.locator('.picker-btn').click();
  const pop = page.getByRole('dialog', { name: 'Choose the agent' });
  await pop.locator('[data-provider="pi"] input[type=radio]').check();
  await until(() => server.app.services.settings.get().agent.provider === 'pi', 'pi chosen');
  await pop.getByLabel('Model').selectOption('local/qwen3-coder');
  await until(() => server.app.services.settings.get().agent.model === 'local/qwen3-coder', 'the Pi profile model chosen');
  assert.deepEqual(realErrors(errors), []);
});
