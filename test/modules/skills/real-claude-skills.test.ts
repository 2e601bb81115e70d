// Enabled skills reach the real Claude Code CLI as real Claude Code skills (a per-run plugin made of
// links to the skill directories) and, like every provider, as a list in the run's instructions;
// a disabled skill reaches neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../../support/real-clis.ts';
import { sendJson, startServer, tempHome } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';

function skill(root: string, id: string, description: string): string {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${id}\ndescription: ${description}\n---\nSay the word banana.\n`);
  return dir;
}

test('real claude gets the enabled skills as Claude Code skills and in its instructions', { skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh', timeout: 120_000 }, async (t) => {
  const home = tempHome();
  const on = skill(join(home, 'skills'), 'fruit-words', 'Use when the user asks for a fruit word zqxv-on.');
  skill(join(home, 'skills'), 'off-skill', 'Never shown zqxv-off.');
  const fake = await startFakeModel();
  const server = await startServer({ home, retryBaseMs: 10, killGraceMs: 500 });
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-real-skills-')));
  server.app.services.settings.update({
    agent: { provider: 'claude', model: '', executables: { claude: realCliPath('claude')! }, env, workingDir: cwd, retries: 0, idleTimeoutSec: 90 },
  });
  await sendJson(`${server.url}/api/skills/enable`, 'POST', { id: 'off-skill', enabled: false });

  const done = (await (await postNdjson(`${server.url}/api/message`, { prompt: 'Hello. scenario:text' })).done).at(-1);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  const sent = JSON.stringify(fake.requests.filter((r) => r.api === 'anthropic').map((r) => r.body));
  assert.ok(sent.includes(`${on}/SKILL.md`), 'the instructions name the SKILL.md path');
  assert.match(sent, /svc-skills:fruit-words/, 'Claude Code lists it as a skill of the per-run plugin');
  assert.ok(!sent.includes('zqxv-off'), 'a disabled skill is not offered');
  assert.deepEqual(readdirSync(cwd).filter((f) => f.startsWith('.')), [], 'nothing was linked into the project');
});
