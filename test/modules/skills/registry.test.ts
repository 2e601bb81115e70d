// The skills registry over HTTP: sources, requirements, reading, enabling, installing by path, and
// what a run is told (the system prompt lists enabled skills with their SKILL.md path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, sendJson, startServer, tempHome } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';

function skillDir(root: string, id: string, frontmatter: string): string {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n# ${id}\n\nDo the thing.\n`);
  return dir;
}

test('GET /api/skills lists built-in, <home>/skills and added skills with their requirements', async (t) => {
  const home = tempHome();
  const pdf = skillDir(join(home, 'skills'), 'pdf', 'name: PDF reader\ndescription: Reads PDFs\nrequires:\n  bins: [node, svc-no-such-binary]\n  env: [SVC_TEST_NO_SUCH_VAR]');
  skillDir(join(home, 'skills'), '.hidden', 'name: hidden\ndescription: ignored');
  const server = await startServer({ home });
  t.after(() => server.close());

  const list = (await getJson(`${server.url}/api/skills`)).body.skills as any[];
  assert.deepEqual(list.filter((s) => s.source === 'built-in').map((s) => s.id), ['browser', 'vision-click', 'web-routing', 'web-ai']);
  assert.ok(list.filter((s) => s.source === 'built-in').every((s) => s.enabled && s.met && s.command.startsWith('/')));
  const entry = list.find((s) => s.id === 'pdf');
  assert.deepEqual(entry, {
    id: 'pdf', name: 'PDF reader', description: 'Reads PDFs', category: 'installed', source: 'home', enabled: true, path: pdf,
    requirements: { bins: ['node', 'svc-no-such-binary'], env: ['SVC_TEST_NO_SUCH_VAR'] },
    met: false, missing: { bins: ['svc-no-such-binary'], env: ['SVC_TEST_NO_SUCH_VAR'] },
  });
  assert.ok(!list.some((s) => s.id === '.hidden'));

  const detail = await getJson(`${server.url}/api/skills/pdf`);
  assert.match(detail.body.markdown, /^---\nname: PDF reader/);
  assert.match((await getJson(`${server.url}/api/skills/browser`)).body.markdown, /svc browser open/);
  assert.equal((await getJson(`${server.url}/api/skills/nope`)).status, 404);
  assert.equal((await getJson(`${server.url}/api/skills/Bad..Id`)).status, 400);

  // Added by reference from a local path: nothing is copied into <home>.
  const elsewhere = skillDir(mkdtempSync(join(tmpdir(), 'svc-skill-src-')), 'notes', 'name: Notes\ndescription: Keeps notes\ncategory: productivity');
  const added = await sendJson(`${server.url}/api/skills/install`, 'POST', { path: elsewhere });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  assert.equal(added.body.skill.source, 'path');
  assert.equal(added.body.skill.path, elsewhere);
  assert.deepEqual(readdirSync(join(home, 'skills')).sort(), ['.hidden', 'pdf']);
  assert.equal((await sendJson(`${server.url}/api/skills/install`, 'POST', { path: elsewhere })).status, 409);
  assert.equal((await sendJson(`${server.url}/api/skills/install`, 'POST', { path: home })).body.error, 'INVALID_SKILL');

  // Disabling is remembered and changes what the run is told.
  const off = await sendJson(`${server.url}/api/skills/enable`, 'POST', { id: 'pdf', enabled: false });
  assert.equal(off.body.skill.enabled, false);
  assert.equal((await sendJson(`${server.url}/api/skills/enable`, 'POST', { id: 'web-ai', enabled: false })).status, 200);
  assert.equal((await sendJson(`${server.url}/api/skills/enable`, 'POST', { id: '../etc', enabled: true })).status, 400);

  const cmd = await postNdjson(`${server.url}/api/command`, { text: '/skills' });
  const text = (await cmd.done).filter((l) => l.type === 'text').map((l) => l.content).join('');
  assert.match(text, /· pdf \(home\) — Reads PDFs \[missing: svc-no-such-binary, SVC_TEST_NO_SUCH_VAR\]/);
  assert.match(text, /✓ notes \(path\)/);
  assert.match(text, /· web-ai \(built-in\)/);
  assert.equal(existsSync(join(elsewhere, 'SKILL.md')), true);
});

test('POST /api/skills/install {package}: npm install into <home>/skills-npm; a package without SKILL.md registers nothing', { timeout: 60_000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const pkg = (name: string, withSkill: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-skill-pkg-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
    if (withSkill) writeFileSync(join(dir, 'SKILL.md'), '---\nname: Charts\ndescription: Draws charts\n---\nUse it.\n');
    return dir;
  };
  const res = await sendJson(`${server.url}/api/skills/install`, 'POST', { package: pkg('svc-test-charts-skill', true) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.skill.id, 'svc-test-charts-skill');
  assert.equal(res.body.skill.source, 'npm');
  assert.equal(res.body.skill.path, join(server.home, 'skills-npm', 'node_modules', 'svc-test-charts-skill'));
  const bad = await sendJson(`${server.url}/api/skills/install`, 'POST', { package: pkg('svc-test-not-a-skill', false) });
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /no SKILL.md/);
  const ids = (await getJson(`${server.url}/api/skills`)).body.skills.map((s: { id: string }) => s.id);
  assert.ok(!ids.includes('svc-test-not-a-skill'));
  assert.equal((await sendJson(`${server.url}/api/skills/install`, 'POST', { package: 'x; rm -rf /' })).status, 400);
});
