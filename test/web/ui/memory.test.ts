// The memory panel in real Chromium against the real server: browse by kind, search with highlighted
// snippets (Korean inside a word), open a hit at its lines, edit and save through the API, a new file, a
// refused path, outside edits and reindex progress arriving live over memory_status events.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { sendJson, startServer, type TestServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { watching } from '../../modules/memory/helpers.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

describe('web UI: the memory panel', () => {
  let server: TestServer;
  let browser: Browser;
  const save = (path: string, content: string) => sendJson(`${server.url}/api/svc-memory/save`, 'POST', { path, content, mode: 'replace' });

  before(async () => {
    buildWeb();
    server = await startServer();
    await save('profile.md', '# Profile\nMina, a backend developer in Seoul.');
    await save('notes/decisions.md', '# Decisions\n\n## Database\nWe chose Postgres 16 for billing.\n\n## Hosting\nEverything runs on Hetzner.');
    await save('notes/회의.md', '# 회의\n데이터베이스마이그레이션을 금요일에 하지 않기로 했다.');
    await save('procedures/deploy.md', '# Deploy\nRun make release, then tag the commit.');
    await watching(server.url);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const paths = (page: Page, selector: string) => page.$$eval(selector, (els) => els.map((el) => (el as HTMLElement).dataset.path));

  test('browse, search, open a hit at its lines, edit and save, create a file', async () => {
    const { page, errors } = await openPage(browser, server);
    await page.getByRole('button', { name: 'Memory' }).click();
    const dialog = page.getByRole('dialog', { name: 'Memory' });
    await dialog.waitFor();
    await until(async () => (await paths(page, '.memory-file')).length === 4, 'the four files');
    assert.match(await page.locator('.memory-status').innerText(), /4 files · \d+ sections · up to date/);

    await page.getByRole('button', { name: /^Procedures/ }).click();
    await until(async () => JSON.stringify(await paths(page, '.memory-file')) === '["procedures/deploy.md"]', 'only procedures');
    await page.getByRole('button', { name: /^All/ }).click();

    // Korean found inside a word, the match highlighted
    await page.fill('#memory-search', '마이그레이션');
    await page.waitForSelector('.memory-hit');
    assert.deepEqual(await paths(page, '.memory-hit'), ['notes/회의.md']);
    assert.deepEqual(await page.$$eval('.memory-hit mark', (els) => els.map((el) => el.textContent)), ['마이그레이션']);

    // a hit opens its file with its lines selected
    await page.fill('#memory-search', 'hetzner');
    await until(async () => JSON.stringify(await paths(page, '.memory-hit')) === '["notes/decisions.md"]', 'the hosting hit');
    assert.equal(await page.locator('.memory-hit .memory-heading').innerText(), 'Decisions > Hosting');
    await page.locator('.memory-hit').click();
    await until(async () => (await page.inputValue('#memory-text')).includes('Hetzner'), 'the file in the editor');
    const selected = await page.$eval('#memory-text', (el) => {
      const area = el as HTMLTextAreaElement;
      return area.value.slice(area.selectionStart, area.selectionEnd);
    });
    assert.equal(selected, '## Hosting\nEverything runs on Hetzner.');
    await shot(page, 'memory-search');

    // edit and save: written through the API and searchable at once
    await page.locator('#memory-text').press('End');
    await page.locator('#memory-text').pressSequentially(' Backups go to Backblaze.');
    assert.equal(await page.getByTestId('memory-file-state').innerText(), 'Unsaved changes');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved notes/decisions.md').waitFor();
    assert.match(readFileSync(join(server.home, 'memory/notes/decisions.md'), 'utf8'), /Everything runs on Hetzner\. Backups go to Backblaze\.\n$/);
    await page.fill('#memory-search', 'backblaze');
    await until(async () => JSON.stringify(await paths(page, '.memory-hit')) === '["notes/decisions.md"]', 'the saved text found');

    // a new file; a bad path is refused and nothing is written
    await page.fill('#memory-search', '');
    await page.getByRole('button', { name: 'New file' }).click();
    // an empty new file has nothing unsaved: it says what to do, and opening another asks nothing
    assert.equal(await page.getByTestId('memory-file-state').innerText(), 'New file: write something to save it');
    await page.fill('#memory-path', '../outside.md');
    await page.fill('#memory-text', '# Nope');
    assert.equal(await page.getByTestId('memory-file-state').innerText(), 'Not saved yet');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid memory path' }).waitFor();
    assert.equal(existsSync(join(server.home, 'outside.md')), false);
    await page.fill('#memory-path', 'notes/ideas.md');
    await page.fill('#memory-text', '# Ideas\nA dark mode for the dashboard.');
    await page.getByRole('button', { name: 'Save' }).click();
    await until(async () => (await paths(page, '.memory-file')).includes('notes/ideas.md'), 'the new file in the list');
    assert.equal(readFileSync(join(server.home, 'memory/notes/ideas.md'), 'utf8'), '# Ideas\nA dark mode for the dashboard.\n');
    await shot(page, 'memory-edit');
    assert.deepEqual(realErrors(errors), []);
    await page.context().close();
  });

  test('outside edits and reindex progress arrive live', async () => {
    const { page, errors } = await openPage(browser, server);
    await page.getByRole('button', { name: 'Memory' }).click();
    await page.getByRole('dialog', { name: 'Memory' }).waitFor();
    await page.locator('.memory-file[data-path="procedures/deploy.md"]').click();
    await until(async () => (await page.inputValue('#memory-text')).includes('make release'), 'the file open');

    // written by another program: the list and the open (unchanged) file follow without a reload
    writeFileSync(join(server.home, 'memory/procedures/deploy.md'), '# Deploy\nRun make ship now.\n');
    writeFileSync(join(server.home, 'memory/notes/outside.md'), '# Outside\nWritten by an editor.\n');
    await until(async () => (await paths(page, '.memory-file')).includes('notes/outside.md'), 'the outside file listed');
    await until(async () => (await page.inputValue('#memory-text')).includes('make ship'), 'the open file reloaded');

    for (let i = 0; i < 400; i++) writeFileSync(join(server.home, `memory/notes/bulk-${i}.md`), `# Bulk ${i}\nfiller ${i}\n`);
    await until(async () => /40\d files/.test(await page.locator('.memory-status').innerText()), 'the bulk files counted', 20_000);
    // progress while the reindex runs (the same memory_status events the page follows), then its result
    const sse = await openSse(`${server.url}/api/events`);
    const sawProgress = page.waitForSelector('.memory-progress', { timeout: 20_000 });
    await page.getByRole('button', { name: 'Reindex' }).click();
    await sawProgress;
    await page.getByText(/Reindexed 40\d files/).waitFor({ timeout: 30_000 });
    const progress = sse.messages.filter((m) => m.data.event === 'memory_status' && m.data.reason === 'progress').map((m) => m.data.status.index);
    sse.close();
    assert.ok(progress.some((i) => i.state === 'indexing' && i.job === 'full' && i.total >= 400), JSON.stringify(progress));
    assert.equal(await page.locator('.memory-progress').count(), 0);
    assert.match(await page.locator('.memory-status').innerText(), /up to date/);
    await shot(page, 'memory-reindexed');
    assert.deepEqual(realErrors(errors), []);
    await page.context().close();
  });
});
