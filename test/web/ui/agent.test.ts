// The web UI driving real agent runs: the real server with the fake provider CLIs of
// test/fixtures/fake-clis (they replay recorded real output). Send, stream, tool block, queue,
// stop, steer, slash commands.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson } from '../../support/server.ts';
import { buildWeb, launch, openPage, realErrors, shot, until } from './helpers.ts';

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#composer-input').fill(text);
  await page.locator('#composer-input').press('Enter');
}

const runs = (page: Page) => page.locator('article.run');
/** Lets a fake CLI started with `hold:<line>` go on past that line (test/fixtures/fake-clis/fake-cli.mjs). */
const release = (server: AgentTestServer, line: number) => writeFileSync(join(server.stateDir, `release-${line}`), '');

describe('web UI: agent runs (fake provider CLIs)', () => {
  let browser: Browser;
  before(async () => {
    buildWeb();
    browser = await launch();
  });
  after(() => browser?.close());

  test('send with Enter: the answer streams in with its tool step, then the final answer', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    // Shift+Enter is a new line, not a send
    await page.locator('#composer-input').fill('line one');
    await page.locator('#composer-input').press('Shift+Enter');
    await page.keyboard.type('line two');
    assert.equal(await page.inputValue('#composer-input'), 'line one\nline two');
    await page.waitForTimeout(200);
    assert.equal((await getJson(`${server.url}/api/messages`)).body.messages.length, 0, 'nothing was sent');

    await send(page, 'run the tool scenario:tool delay:40');
    assert.equal(await page.inputValue('#composer-input'), '', 'the box empties on send');
    await page.locator('.msg-user .bubble', { hasText: 'run the tool scenario:tool' }).waitFor();
    const run = runs(page).first();
    await run.waitFor();
    // while it runs: the tool block, live, and the controls of a run
    const tool = run.locator('details.step', { hasText: 'Bash' });
    await tool.waitFor({ timeout: 10_000 });
    await until(async () => (await run.getAttribute('data-status')) === 'ok', 'the run to finish', 15_000);
    assert.equal(await tool.getAttribute('data-status'), 'ok');
    await run.locator('details.steps > summary').click();
    await tool.locator('summary').click();
    assert.match((await tool.locator('.step-body').textContent()) ?? '', /echo hello-from-tool/);
    assert.match((await run.locator('.md').textContent()) ?? '', /The tool finished\. Its output was: hello-from-tool/);
    const history = (await getJson(`${server.url}/api/messages`)).body.messages;
    assert.equal(history.length, 2);
    assert.equal(await page.locator('.msg-assistant', { hasText: 'The tool finished' }).count(), 1, 'shown once');
    await shot(page, 'agent-tool-run');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a second message while the first runs is queued, then answered in order', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    // the first run holds after two text chunks until the second message is seen queued
    await send(page, 'first scenario:text delay:20 hold:6');
    await page.getByRole('button', { name: 'Stop the agent' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Queue message' }).count(), 1);
    await send(page, 'second scenario:text');
    const queued = page.locator('.msg-user', { hasText: 'second scenario:text' });
    await until(async () => (await queued.getAttribute('data-status')) === 'queued', 'the queued badge');
    assert.equal(await page.locator('.queue-chip').textContent(), '1 queued');
    await shot(page, 'agent-queued');
    release(server, 6);
    await until(async () => (await runs(page).count()) === 2 && (await runs(page).nth(1).getAttribute('data-status')) === 'ok', 'both answers', 20_000);
    assert.equal(await queued.getAttribute('data-status'), null, 'no longer queued');
    // the run's end and the queue's last update are two events: the chip goes with the second
    await until(async () => (await page.locator('.queue-chip').count()) === 0, 'the queue chip gone');
    // order on screen: first question, its answer, second question, its answer
    const order = () =>
      page.$$eval('.vl-row', (rows) =>
        rows
          .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
          .map((r) => (r.querySelector('article.run, .msg-assistant') ? 'answer' : r.textContent?.includes('first') ? 'first' : r.textContent?.includes('second') ? 'second' : '?')),
      );
    assert.deepEqual(await order(), ['first', 'answer', 'second', 'answer']);
    // the same order from the history after a reload (the queued message moved behind the first answer)
    await page.reload();
    await page.waitForSelector('#app[data-ready]');
    await until(async () => (await page.locator('.msg-assistant').count()) === 2, 'the history');
    assert.deepEqual(await order(), ['first', 'answer', 'second', 'answer']);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('Stop ends the run', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    await send(page, 'a long one scenario:text delay:20 hold:6');
    const run = runs(page).first();
    await until(async () => ((await run.locator('.md').count()) > 0), 'some streamed text', 10_000);
    await page.getByRole('button', { name: 'Stop the agent' }).click();
    await until(async () => (await run.getAttribute('data-status')) === 'stopped', 'the stopped run', 10_000);
    assert.equal(await run.locator('.badge').textContent(), 'Stopped');
    await until(async () => (await page.getByRole('button', { name: 'Stop the agent' }).count()) === 0, 'the stop button to go');
    assert.equal((await getJson(`${server.url}/api/runtime`)).body.agent.busy, false);
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('the steer box redirects the running agent', async (t) => {
    const server = await startAgentServer({ provider: 'codex' });
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    await send(page, 'write a poem scenario:text delay:20 hold:3');
    const first = runs(page).first();
    await until(async () => (await first.locator('.md').count()) > 0, 'some streamed text', 10_000);
    await page.locator('#steer-input').fill('make it about the sea');
    await page.locator('#steer-input').press('Enter');
    await first.locator('.notice-steer', { hasText: 'make it about the sea' }).waitFor({ timeout: 10_000 });
    await shot(page, 'agent-steer');
    await until(async () => (await runs(page).count()) === 2 && (await runs(page).nth(1).getAttribute('data-status')) === 'ok', 'the steered run', 15_000);
    assert.equal(await first.getAttribute('data-status'), 'stopped');
    assert.equal(server.invocations().at(-1)!.prompt, 'make it about the sea');
    assert.equal(await page.locator('.msg-user', { hasText: 'make it about the sea' }).count(), 0, 'the steer reads as a note of the run, not a new turn');
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a page opened during a run shows it running with its output so far, with Stop, and gets its final answer', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { postNdjson } = await import('../../support/ndjson.ts');
    // the fake CLI stops after its 6th line (two text chunks) and its 8th (the last one) until the test
    // releases it, so the page surely opens mid-run and sees the rest stream in while the run goes on
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'started elsewhere scenario:text delay:20 hold:6 hold:8' });
    const before = await until(async () => {
      const output = (await getJson(`${server.url}/api/runtime`)).body.agent.active?.output as string | undefined;
      return output?.includes('fake model.') ? output : undefined;
    }, 'the output before the page opens', 15_000);
    const { page, context, errors } = await openPage(browser, server);
    const run = runs(page).first();
    await run.waitFor();
    assert.equal(await run.getAttribute('data-status'), 'running');
    assert.ok(((await run.locator('.md').textContent()) ?? '').startsWith(before!.trim()), 'the output streamed before the page opened shows at once');
    await page.getByRole('button', { name: 'Stop the agent' }).waitFor();
    // the chunks after the snapshot continue it: the live preview is the whole answer, once
    release(server, 6);
    const answer = 'Hello from the fake model. This is a plain text answer.';
    await until(async () => ((await run.locator('.md').textContent()) ?? '').includes('text answer.'), 'the rest of the live output', 15_000);
    assert.equal(await run.getAttribute('data-status'), 'running');
    assert.equal((await run.locator('.md').textContent())?.trim(), answer);
    await shot(page, 'agent-opened-mid-run');
    release(server, 8);
    await until(async () => (await run.getAttribute('data-status')) === 'ok', 'the end of the run', 15_000);
    assert.equal((await run.locator('.md').textContent())?.trim(), answer);
    await stream.done;
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('attach files: picked files upload at once, go with the message to the agent, and show as a thumbnail and a chip (also after reload)', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    const png = new PNG({ width: 40, height: 30 });
    png.data.fill(200);
    const image = PNG.sync.write(png);
    const send = page.getByRole('button', { name: 'Send message' });
    // a file picked and removed again leaves nothing to send
    await page.setInputFiles('#attach-input', [{ name: 'unwanted.txt', mimeType: 'text/plain', buffer: Buffer.from('no') }]);
    await page.locator('.pending-file[data-state="ready"]').waitFor();
    await page.getByRole('button', { name: 'Remove unwanted.txt' }).click();
    assert.equal(await page.locator('.pending-file').count(), 0);
    assert.equal(await send.isDisabled(), true);

    await page.setInputFiles('#attach-input', [
      { name: 'red dot.png', mimeType: 'image/png', buffer: image },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello notes') },
    ]);
    await until(async () => (await page.locator('.pending-file[data-state="ready"]').count()) === 2, 'both uploads');
    await shot(page, 'attach-pending');
    await page.locator('#composer-input').fill('describe these scenario:text');
    await page.locator('#composer-input').press('Enter');
    assert.equal(await page.locator('.pending-file').count(), 0, 'the box is empty after sending');
    await until(async () => (await runs(page).first().getAttribute('data-status')) === 'ok', 'the answer', 15_000);

    // the agent got the text and the files' paths on the server's disk
    const invocations = server.invocations();
    const prompt = invocations.find((i) => i.prompt.startsWith('describe these'))?.prompt ?? '';
    const paths = [...prompt.matchAll(/^- (\S+) \(/gm)].map((m) => m[1]!);
    assert.equal(paths.length, 2, JSON.stringify(invocations.map((i) => ({ file: i.file, prompt: i.prompt }))));
    assert.ok(prompt.startsWith('describe these scenario:text\n\nAttached files:\n'));
    assert.deepEqual(readFileSync(paths[0]!), image);
    assert.equal(readFileSync(paths[1]!, 'utf8'), 'hello notes');

    const check = async () => {
      const user = page.locator('.msg-user');
      assert.equal(await user.count(), 1, 'one bubble: the message being sent became the saved one');
      assert.equal(await user.locator('.bubble').textContent(), 'describe these scenario:text');
      const img = user.locator('.attachment-image img');
      await until(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth === 40), 'the thumbnail to load');
      assert.equal(await img.getAttribute('alt'), 'red-dot.png');
      assert.match((await user.locator('.attachment-file').textContent()) ?? '', /^notes\.txt11 B$/);
    };
    await check();
    await shot(page, 'attach-sent');
    await page.reload();
    await page.waitForSelector('#app[data-ready]');
    await check();
    assert.deepEqual(realErrors(errors), []);
    await context.close();
  });

  test('a message the server refuses stays with its reason and a Retry button', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context } = await openPage(browser, server);
    await page.locator('#composer-input').fill('x'.repeat(100_001));
    await page.locator('#composer-input').press('Enter');
    const failed = page.locator('.msg-user[data-status="failed"]');
    await failed.waitFor();
    assert.match((await failed.locator('.send-error').textContent()) ?? '', /prompt/i);
    assert.equal(await failed.getByRole('button', { name: 'Retry' }).count(), 1);
    await failed.getByRole('button', { name: 'Dismiss' }).click();
    await until(async () => (await page.locator('.msg-user').count()) === 0, 'the bubble to go');
    await context.close();
  });

  test('slash commands: completion from /api/commands, output shown', async (t) => {
    const server = await startAgentServer();
    t.after(() => server.close());
    const { page, context, errors } = await openPage(browser, server);
    await until(() => page.evaluate(() => true), 'the page');
    const box = page.locator('#composer-input');
    await box.fill('/he');
    const list = page.getByRole('listbox', { name: 'Commands' });
    await list.waitFor();
    assert.deepEqual(await list.locator('.cmd-name').allTextContents(), ['/help']);
    await shot(page, 'slash-complete');
    await box.press('Tab');
    assert.equal(await box.inputValue(), '/help ');
    await box.press('Enter');
    const output = page.locator('.msg-command', { hasText: '/help' });
    await output.waitFor();
    await until(async () => /\/steer <text>/.test((await output.locator('.command-out').textContent()) ?? ''), 'the help text');
    // arrows choose among several
    await box.fill('/s');
    await list.waitFor();
    const names = await list.locator('.cmd-name').allTextContents();
    assert.ok(names.length >= 3 && names.every((n) => n.startsWith('/s')), names.join(' '));
    await box.press('ArrowDown');
    await box.press('Tab');
    assert.equal(await box.inputValue(), `${names[1]} `);
    await box.press('Escape');
    // an unknown command: the server's message, not a crash
    await box.fill('/nope');
    await box.press('Enter');
    const failed = page.locator('.msg-command', { hasText: '/nope' });
    await until(async () => (await failed.getAttribute('data-status')) === 'error', 'the error');
    assert.match((await failed.locator('.command-out').textContent()) ?? '', /Unknown command/);
    assert.deepEqual(realErrors(errors).filter((e) => !/400/.test(e)), []);
    await context.close();
  });
});
