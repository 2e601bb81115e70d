// The executive console in the dashboard page, in real Chromium: a turn from the composer shows in the
// transcript, a completion appears live and is acknowledged, and a lifecycle action goes through a
// confirmation prompt (ask, Approve, Run) that is used up; the audit tail shows it; no console errors.
// A failed turn shows what failed, why and the command that fixes it (with a copy button), and the
// executive's settings are a form on the page whose secrets are write-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerInfo } from '../../../src/agent/providers/registry.ts';
import { FAKE_CLIS, isAlive, startAgentServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { startManager, until } from '../../modules/dashboard/helpers.ts';
import { buildWeb, launch, openPage, shot } from './helpers.ts';

test('the executive console: transcript, live completions, confirmation prompts', { timeout: 120_000 }, async () => {
  buildWeb();
  const instance = await startAgentServer({}, { classifyPeer: () => 'remote' as const });
  const manager = await startManager();
  const browser = await launch();
  const pids: number[] = [];
  try {
    const external = (await sendJson(`${manager.url}/api/dashboard/instances`, 'POST', { url: instance.url, token: instance.app.services.token, label: 'worker alpha' })).body.id;
    const owned = (await sendJson(`${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'worker owned' })).body;
    pids.push(owned.pid);
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${external}`)).body.stream === 'connected' ? true : undefined), 'bridge');
    // the executive runs the fake claude (a recorded answer)
    await sendJson(`${manager.url}/api/svc-ceo/settings`, 'PUT', { executable: join(FAKE_CLIS, 'claude'), env: { FAKE_CLI_STATE: mkdtempSync(join(tmpdir(), 'svc-ceo-fake-')) } });

    const { page, errors } = await openPage(browser, manager);
    const console_ = page.getByRole('region', { name: 'Executive', exact: true });
    await console_.getByLabel('Message to the executive').fill('hello executive scenario:text');
    await console_.getByRole('button', { name: 'Send' }).click();
    await console_.locator('.ceo-user', { hasText: 'hello executive' }).waitFor();
    await console_.locator('.ceo-executive').first().waitFor();

    // a completion shows up live, and is acknowledged from the console
    await sendJson(`${manager.url}/api/svc-ceo/send`, 'POST', { instanceId: external, text: 'run X scenario:text' });
    const pending = console_.locator('.ceo-pending li');
    await pending.first().waitFor({ timeout: 10_000 });
    assert.match((await pending.first().textContent()) ?? '', /worker alpha/);
    await pending.first().getByRole('button', { name: 'Acknowledge' }).click();
    await until(async () => ((await pending.count()) === 0 ? true : undefined), 'acknowledged');

    // lifecycle: ask for a confirmation, approve it, run it
    await console_.getByLabel('Action', { exact: true }).selectOption('stop');
    await console_.getByLabel('Instance', { exact: true }).selectOption(owned.id);
    await console_.getByRole('button', { name: 'Ask for confirmation' }).click();
    const prompt = console_.locator('li.confirmation.pending');
    await prompt.waitFor();
    assert.match((await prompt.textContent()) ?? '', /stop worker owned/);
    await prompt.getByRole('button', { name: 'Approve' }).click();
    const approved = console_.locator('li.confirmation.approved');
    await approved.waitFor();
    await approved.getByRole('button', { name: 'Run stop' }).click();
    await until(async () => ((await getJson(`${manager.url}/api/dashboard/instances/${owned.id}`)).body.status === 'offline' ? true : undefined), 'stopped', 15_000);
    // offline once it stops answering; the process itself may take a moment more to close its database
    await until(async () => (isAlive(owned.pid) ? undefined : true), 'the process exited', 15_000);
    await until(async () => ((await console_.locator('li.confirmation').count()) === 0 ? true : undefined), 'the used confirmation is gone');
    await console_.locator('.ceo-audit li', { hasText: 'lifecycle stop' }).waitFor();
    await shot(page, 'executive');
    assert.deepEqual(errors, []);
  } finally {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await browser.close();
    await manager.close();
    await instance.close();
  }
});

test('a failed turn shows what failed, why and the fix to copy; the settings form keeps secrets write-only', { timeout: 120_000 }, async () => {
  buildWeb();
  const manager = await startManager();
  const browser = await launch();
  const secret = 'sk-ant-test-secret-4711';
  try {
    const { page, errors } = await openPage(browser, manager);
    const settings = page.getByRole('region', { name: 'Executive settings', exact: true });
    await settings.getByLabel('Executable').fill('/nonexistent/svc-test/claude');
    await settings.getByLabel('New variable name').fill('ANTHROPIC_API_KEY');
    await settings.getByLabel('New variable value').fill(secret);
    await settings.getByRole('button', { name: 'Add variable' }).click();
    await settings.getByRole('button', { name: 'Save executive settings' }).click();
    await settings.locator('.settings-status', { hasText: 'Saved.' }).waitFor();
    const saved = (await getJson(`${manager.url}/api/svc-ceo/settings`)).body;
    assert.equal(saved.executable, '/nonexistent/svc-test/claude');
    assert.deepEqual(saved.env, { ANTHROPIC_API_KEY: '***' });
    // shown as saved, never filled in: the value is nowhere in the page
    const value = settings.getByLabel('Value of ANTHROPIC_API_KEY');
    assert.equal(await value.inputValue(), '');
    assert.equal(await value.getAttribute('placeholder'), 'Saved (hidden). Type to replace.');
    const everything = await page.evaluate(() => document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea')].map((el) => (el as HTMLInputElement).value).join(' '));
    assert.ok(!everything.includes(secret), 'the secret is not in the page');
    // a refused value shows under its field
    await settings.getByLabel('Realtime endpoint').fill('not a url');
    await settings.getByRole('button', { name: 'Save executive settings' }).click();
    await settings.locator('#ceo-set-rt-url-error', { hasText: /http/ }).waitFor();
    await settings.getByLabel('Realtime endpoint').fill('');

    // the turn fails: its card says what failed, why, and the command that fixes it
    const console_ = page.getByRole('region', { name: 'Executive', exact: true });
    await console_.getByLabel('Message to the executive').fill('how is the fleet?');
    await console_.getByRole('button', { name: 'Send' }).click();
    const failure = console_.locator('.ceo-failure');
    await failure.waitFor();
    assert.equal((await failure.locator('.ui-failure-title').textContent())?.trim(), 'The executive could not answer: not installed');
    const why = (await failure.locator('.ui-failure-text').textContent()) ?? '';
    assert.match(why, /is not installed \('\/nonexistent\/svc-test\/claude' was not found\)/);
    assert.doesNotMatch(why, /cli_missing/, 'no failure code for a person to decode');
    const install = providerInfo('claude').install!.command;
    assert.equal(await failure.locator('.cmd-chip code').textContent(), install);
    await failure.getByRole('button', { name: 'Copy the command that fixes it' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), install);
    await shot(page, 'executive-failure');
    await failure.getByRole('button', { name: 'Dismiss' }).click();
    await failure.waitFor({ state: 'detached' });
    assert.deepEqual(
      errors.filter((e) => !e.includes('status of 400')),
      [],
    );
  } finally {
    await browser.close();
    await manager.close();
  }
});
