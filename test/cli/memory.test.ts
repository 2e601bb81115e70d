// `svc memory …` against a running server: save (arguments or stdin, kept as written), search, context,
// read, list, status, reindex, --json, and the errors a person sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';
import { runSvc } from '../support/cli.ts';


const svc = (args: string[], stdin = '', env: NodeJS.ProcessEnv = {}) => runSvc(args, { stdin, env });

test('svc memory: save, search, context, read, list, status, reindex', { timeout: 120_000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const url = ['--url', server.url];

  const text = "## Deploys\nWe deploy with `make release`; a literal \\n stays as typed.\n";
  const saved = await svc(['memory', 'save', 'procedures/deploy.md', ...url], text);
  assert.equal(saved.code, 0, saved.stderr);
  assert.equal(saved.stdout.trim(), 'created procedures/deploy.md (procedure, append, 1 sections)');
  assert.equal(readFileSync(join(server.home, 'memory/procedures/deploy.md'), 'utf8'), text);
  // SVC_URL is what the agent's shell has
  const fromArgs = await svc(['memory', 'save', 'notes/tea.md', 'The', 'user', 'drinks', 'green', 'tea.'], '', { SVC_URL: server.url });
  assert.equal(fromArgs.code, 0, fromArgs.stderr);

  const found = await svc(['memory', 'search', 'release', ...url]);
  assert.equal(found.code, 0);
  assert.equal(found.stdout, 'procedures/deploy.md:1-2 procedure · Deploys\n  We deploy with `make release`; a literal \\n stays as typed.\n');
  const json = JSON.parse((await svc(['memory', 'search', 'green', 'tea', '--json', ...url])).stdout);
  assert.deepEqual(json.hits.map((h: { path: string }) => h.path), ['notes/tea.md']);
  assert.match((await svc(['memory', 'search', 'zebra', ...url])).stdout, /nothing in memory matches "zebra"/);

  const context = await svc(['memory', 'context', 'how', 'do', 'we', 'release', '--budget', '600', ...url]);
  assert.match(context.stdout, /^# Memory\n[\s\S]*## procedures\/deploy\.md:1-2 \(procedure\)\n## Deploys/);

  assert.equal((await svc(['memory', 'read', 'procedures/deploy.md', '--lines', '2', ...url])).stdout, 'We deploy with `make release`; a literal \\n stays as typed.\n');
  const list = await svc(['memory', 'list', '--kind', 'note', ...url]);
  assert.match(list.stdout, /^note {6}notes\/tea\.md \(1 sections, \d+ bytes\)\n$/);
  assert.match((await svc(['memory', 'status', ...url])).stdout, /^memory: 2 files, 2 sections in /);
  const reindex = JSON.parse((await svc(['memory', 'reindex', '--json', ...url])).stdout);
  assert.equal(reindex.files, 2);

  const bad = await svc(['memory', 'save', '../escape.md', 'x', ...url]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^svc memory save: Invalid memory path '\.\.\/escape\.md'/);
  await server.close();
  const down = await svc(['memory', 'status', ...url]);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot reach .*svc serve/);
});
