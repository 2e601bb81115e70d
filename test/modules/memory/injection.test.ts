// The agent reads memory before it answers: each main-agent run's system prompt carries how to save and
// the memory context for its prompt, within memory.contextBudget. With the fake CLIs (what svc passes),
// and with the real Claude Code against the fake model (what reaches the model).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentServer } from '../../support/agent.ts';
import { sendJson, startServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { startFakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';

const systemPromptOf = (args: string[]) => args.find((a) => a.startsWith('--append-system-prompt='))?.slice('--append-system-prompt='.length) ?? '';

test('the system prompt of a run holds the memory context of its prompt, within the budget', { timeout: 60_000 }, async (t) => {
  const server = await startAgentServer({ systemPrompt: 'Be brief.' });
  t.after(() => server.close());
  const save = (path: string, content: string) => sendJson(`${server.url}/api/svc-memory/save`, 'POST', { path, content, mode: 'replace' });
  await save('profile.md', '# Profile\nThe user is Mina; she prefers answers in Korean.');
  await save('notes/decisions.md', '# Database\nWe chose Postgres 16 for the billing service.');
  await save('notes/unrelated.md', '# Plants\nThe office ficus needs water on Mondays.');
  const send = async (prompt: string) => (await (await postNdjson(`${server.url}/api/message`, { prompt })).done).at(-1);

  assert.equal((await send('Which database does billing use? scenario:text')).status, 'ok');
  const system = systemPromptOf(server.invocations().at(-1)!.args);
  assert.match(system, /^Be brief\.\n\n/, 'the user\'s own system prompt first');
  assert.match(system, /svc memory save notes\/<topic>\.md <<'EOF'/, 'how to save');
  assert.match(system, /# Memory\n/);
  assert.match(system, /## Profile \(profile\.md\)\n# Profile\nThe user is Mina/);
  assert.match(system, /## notes\/decisions\.md:1-2 \(note\)\n# Database\nWe chose Postgres 16 for the billing service\./);
  assert.doesNotMatch(system, /ficus/, 'only what bears on the prompt');

  // the budget bounds the block; 0 leaves memory out (the saving instructions stay)
  server.app.services.settings.update({ memory: { contextBudget: 400 } });
  await send('Which database does billing use? scenario:text');
  const small = systemPromptOf(server.invocations().at(-1)!.args);
  assert.ok(small.includes('\n# Memory\n') && small.slice(small.indexOf('\n# Memory\n') + 1).length <= 400, small);
  server.app.services.settings.update({ memory: { contextBudget: 0 } });
  await send('Which database does billing use? scenario:text');
  const none = systemPromptOf(server.invocations().at(-1)!.args);
  assert.doesNotMatch(none, /\n# Memory\n|Postgres/);
  assert.match(none, /svc memory save/);
});

test('the worker context: the profile and the procedures relevant to a task', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const { memory } = server.app.services;
  await memory.save({ path: 'profile.md', content: '# Profile\nMina, backend developer.', mode: 'replace' });
  await memory.save({ path: 'procedures/release.md', content: '# Release\nRun make release, then tag the commit.', mode: 'replace' });
  await memory.save({ path: 'notes/release.md', content: '# Release notes\nThe last release was slow.', mode: 'replace' });
  const context = await memory.workerContext('Cut a release of the app', 2000);
  assert.deepEqual(context.parts.map((p) => `${p.role}:${p.path}`), ['profile:profile.md', 'hit:procedures/release.md']);
  assert.match(context.text, /Run make release/);
});

test('real claude: the request to the model carries the injected memory', { timeout: 120_000, skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh' }, async (t) => {
  const fake = await startFakeModel();
  const server = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-real-memory-')));
  server.app.services.settings.update({ agent: { provider: 'claude', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 90 } });
  await sendJson(`${server.url}/api/svc-memory/save`, 'POST', { path: 'notes/pets.md', content: '# Pets\nThe user\'s cat is called Mochi and is afraid of the vacuum cleaner.' });

  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'What is my cat called? scenario:text' })).done).at(-1);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  const calls = fake.requests.filter((r) => r.api === 'anthropic' && /What is my cat called/.test(JSON.stringify(r.body)));
  assert.ok(calls.length, `the model was asked (${fake.requests.map((r) => r.api).join(', ')})`);
  const system = JSON.stringify((calls[0]!.body as { system?: unknown }).system);
  assert.match(system, /# Memory/);
  assert.match(system, /notes\/pets\.md:1-2 \(note\)/);
  assert.match(system, /The user's cat is called Mochi/);
  assert.match(system, /svc memory save/);
});
