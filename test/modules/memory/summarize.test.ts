// Optional summaries with the fake provider CLIs: every N messages a short CLI run writes 1-3 sentences
// into today's episode; the counter and the watermark survive restarts, so nothing is forgotten or repeated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { cleanSummary, episodeEntry, episodePath, summaryPrompt } from '../../../src/modules/memory/summarize.ts';

test('what a summary asks and keeps', () => {
  const prompt = summaryPrompt([{ id: 1, role: 'user', content: 'We move the launch to April.' }, { id: 2, role: 'assistant', content: 'Noted.' }]);
  assert.match(prompt, /1 to 3 short sentences/);
  assert.match(prompt, /<messages>\nuser: We move the launch to April\.\n\nassistant: Noted\.\n<\/messages>$/);
  assert.equal(cleanSummary('SKIP'), undefined);
  assert.equal(cleanSummary('  skip — nothing new'), undefined);
  assert.equal(cleanSummary('- One.\n- Two! Three? Four.'), 'One. Two! Three?');
  assert.equal(cleanSummary('"The user prefers tea."'), 'The user prefers tea.');
  assert.equal(cleanSummary('런칭을 4월로 미뤘다. 다음 주에 다시 본다.'), '런칭을 4월로 미뤘다. 다음 주에 다시 본다.');
  const at = new Date(2025, 2, 4, 9, 5);
  assert.equal(episodePath(at), 'episodes/2025-03-04.md');
  assert.equal(episodeEntry('Done.', at), '## 09:05\n\nDone.');
});

const summaries = (server: AgentTestServer) => server.invocations().filter((i) => i.prompt.startsWith('You keep the diary'));

test('every N messages a summary goes into today\'s episode, counted across restarts and never repeated', { timeout: 60_000 }, async (t) => {
  let server = await startAgentServer();
  const home = server.home;
  t.after(async () => {
    await server.close({ removeHome: false });
    rmSync(home, { recursive: true, force: true });
  });
  server.app.services.settings.update({ memory: { summarize: { everyMessages: 4 } } });
  const send = async (prompt: string) => {
    const lines = await (await postNdjson(`${server.url}/api/message`, { prompt })).done;
    assert.equal(lines.at(-1).status, 'ok', JSON.stringify(lines.at(-1)));
  };
  const status = async () => (await getJson(`${server.url}/api/memory/status`)).body.summarize;

  await send('We decided to move the atlas launch to April. scenario:text');
  assert.deepEqual(await status(), { everyMessages: 4, counter: 2, watermark: 0, lastRunAt: null });

  // a restart keeps the count
  await server.close({ removeHome: false });
  server = await startAgentServer({}, { home });
  assert.equal((await status()).counter, 2);

  await send('And the budget stays at 40k. scenario:text');
  await server.app.services.memory.settled();
  const [run] = summaries(server);
  assert.ok(run, 'the summary ran through the provider CLI');
  assert.equal(run.provider, 'claude');
  assert.equal(run.resume, undefined, 'a fresh session, not the chat\'s');
  // the messages of both servers' lifetimes, in order
  assert.match(run.prompt, /user: We decided to move the atlas launch to April\. scenario:text\n\nassistant: Hello from the fake model\.[\s\S]*user: And the budget stays at 40k\./);

  const after = await status();
  assert.equal(after.counter, 0);
  assert.ok(after.watermark > 0 && after.lastRunAt > 0, JSON.stringify(after));
  const path = episodePath(new Date());
  const text = readFileSync(join(home, 'memory', path), 'utf8');
  assert.match(text, /^## \d\d:\d\d\n\nHello from the fake model\. This is a plain text answer\.\n$/);
  const found = await getJson(`${server.url}/api/svc-memory/search?q=${encodeURIComponent('plain text answer')}&kind=episode`);
  assert.deepEqual(found.body.hits.map((h: { path: string }) => h.path), [path]);

  // another restart: nothing is summarised again until N new messages came
  await server.close({ removeHome: false });
  server = await startAgentServer({}, { home });
  await send('One more thing. scenario:text');
  await server.app.services.memory.settled();
  assert.equal(summaries(server).length, 0);
  assert.equal((await status()).counter, 2);
  assert.equal(readFileSync(join(home, 'memory', path), 'utf8'), text);
});
