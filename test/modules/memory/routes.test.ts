// The memory routes through real HTTP on a real server: save → search → context, read, list, delete,
// bad paths refused with nothing written, outside edits re-indexed, reindex progress and joining,
// memory_status events, the /memory command and the secret embeddings key.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getJson, sendJson, startServer, tempHome, type TestServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { searchPaths, until, watching } from './helpers.ts';

/** Every file and folder under a directory, as relative paths. */
function tree(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const rel = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? [`${rel}/`, ...tree(join(dir, name), rel)] : [rel];
  });
}

describe('memory routes', () => {
  let server: TestServer;
  let memoryDir: string;
  const save = (body: unknown) => sendJson(`${server.url}/api/svc-memory/save`, 'POST', body);

  before(async () => {
    server = await startServer();
    memoryDir = join(server.home, 'memory');
  });
  after(() => server.close());

  test('save → search → context: indexed before the answer, announced as memory_status', async (t) => {
    const sse = await openSse(`${server.url}/api/events`);
    t.after(() => sse.close());
    const profile = await save({ path: 'profile.md', content: '# Profile\nThe user is Mina, a backend developer in Seoul. Prefers short answers.', mode: 'replace' });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    assert.deepEqual(profile.body, { path: 'profile.md', kind: 'profile', mode: 'replace', created: true, size: profile.body.size, chunks: 1 });
    const saved = await save({ path: 'notes/decisions.md', content: '# Decisions\n\n## Database\nWe chose Postgres 16 over MySQL for the billing service.' });
    assert.equal(saved.status, 200);
    assert.equal(saved.body.kind, 'note');
    assert.equal(saved.body.created, true);
    await save({ path: 'procedures/deploy.md', content: '# Deploy\nRun make release, then tag the commit. Never deploy the billing service on Fridays.' });
    assert.equal(readFileSync(join(memoryDir, 'notes/decisions.md'), 'utf8'), '# Decisions\n\n## Database\nWe chose Postgres 16 over MySQL for the billing service.\n');
    assert.equal(statSync(join(memoryDir, 'notes/decisions.md')).mode & 0o777, 0o600);

    // searchable at once (no waiting for a background job)
    const found = await getJson(`${server.url}/api/svc-memory/search?q=postgres`);
    assert.equal(found.status, 200);
    const [hit] = found.body.hits;
    assert.deepEqual(
      { path: hit.path, kind: hit.kind, heading: hit.heading, startLine: hit.startLine, endLine: hit.endLine, matchedBy: hit.matchedBy },
      { path: 'notes/decisions.md', kind: 'note', heading: 'Decisions > Database', startLine: 3, endLine: 4, matchedBy: ['words'] },
    );
    assert.equal(hit.snippet, 'We chose Postgres 16 over MySQL for the billing service.');
    assert.deepEqual(hit.marks.map((m: { start: number; end: number }) => hit.snippet.slice(m.start, m.end)), ['Postgres']);
    assert.ok(hit.score > 0);
    assert.deepEqual(await searchPaths(server.url, 'billing', '&kind=procedure'), ['procedures/deploy.md']);

    // the context: the profile first, then what is relevant, within the budget
    const context = await getJson(`${server.url}/api/svc-memory/context?q=${encodeURIComponent('Which database does billing use?')}&budget=1200`);
    assert.equal(context.status, 200);
    assert.deepEqual(context.body.parts.map((p: { role: string; path: string }) => `${p.role}:${p.path}`), ['profile:profile.md', 'hit:notes/decisions.md', 'hit:procedures/deploy.md']);
    assert.ok(context.body.text.length <= 1200);
    assert.match(context.body.text, /^# Memory\n/);
    assert.match(context.body.text, /## Profile \(profile\.md\)\n# Profile\nThe user is Mina/);
    assert.match(context.body.text, /## notes\/decisions\.md:3-4 \(note\)\n## Database\nWe chose Postgres 16/);
    const small = await getJson(`${server.url}/api/svc-memory/context?q=database&budget=0`);
    assert.deepEqual(small.body, { query: 'database', budget: 0, text: '', parts: [] });

    // each save published memory_status with the file and the new counts
    // (the background sync of the start may announce itself in between)
    const saves = () => sse.messages.map((m) => m.data).filter((d) => d.event === 'memory_status' && d.reason === 'save');
    await until(() => saves().length >= 3, 'three save events');
    const statuses = saves();
    assert.deepEqual(statuses.map((d) => [d.topic, d.reason, d.path]), [['memory', 'save', 'profile.md'], ['memory', 'save', 'notes/decisions.md'], ['memory', 'save', 'procedures/deploy.md']]);
    assert.equal(statuses.at(-1)!.status.files, 3);
    assert.deepEqual(statuses.at(-1)!.status.filesByKind, { profile: 1, note: 1, episode: 0, procedure: 1 });
  });

  test('append, section and replace modes; read with lines; list by kind; delete', async () => {
    await save({ path: 'notes/db.md', content: '# DB\n\n## Engine\nMariaDB 10' });
    await save({ path: 'notes/db.md', content: '## Backups\nNightly at 02:00' });
    const section = await save({ path: 'notes/db.md', content: '## Engine\nPostgres 16', mode: 'section' });
    assert.equal(section.body.created, false);
    assert.equal(section.body.chunks, 3);
    const expected = '# DB\n\n## Engine\nPostgres 16\n\n## Backups\nNightly at 02:00\n';
    assert.equal(readFileSync(join(memoryDir, 'notes/db.md'), 'utf8'), expected);
    assert.deepEqual(await searchPaths(server.url, 'mariadb'), [], 'the replaced section left the index');

    const read = await getJson(`${server.url}/api/svc-memory/read?path=notes/db.md&lines=3-4`);
    assert.equal(read.status, 200);
    assert.deepEqual({ ...read.body, mtime: 0 }, { path: 'notes/db.md', kind: 'note', content: '## Engine\nPostgres 16', startLine: 3, endLine: 4, totalLines: 7, size: Buffer.byteLength(expected), mtime: 0 });
    assert.equal((await getJson(`${server.url}/api/svc-memory/read?path=notes/db.md&lines=6-`)).body.content, '## Backups\nNightly at 02:00');
    assert.equal((await getJson(`${server.url}/api/svc-memory/read?path=notes/db.md&lines=x`)).body.error, 'INVALID_LINES');
    assert.equal((await getJson(`${server.url}/api/svc-memory/read?path=notes/none.md`)).status, 404);

    const notes = await getJson(`${server.url}/api/svc-memory/list?kind=note`);
    assert.ok(notes.body.files.every((f: { kind: string }) => f.kind === 'note'));
    assert.ok(notes.body.files.some((f: { path: string; chunks: number }) => f.path === 'notes/db.md' && f.chunks === 3));
    assert.equal(notes.body.truncated, false);

    await save({ path: 'notes/tmp.md', content: 'temporary quokka', mode: 'replace' });
    assert.deepEqual(await searchPaths(server.url, 'quokka'), ['notes/tmp.md']);
    const deleted = await getJson(`${server.url}/api/svc-memory/file?path=notes/tmp.md`, { method: 'DELETE' });
    assert.deepEqual(deleted.body, { deleted: 'notes/tmp.md' });
    assert.equal(existsSync(join(memoryDir, 'notes/tmp.md')), false);
    assert.deepEqual(await searchPaths(server.url, 'quokka'), []);
    assert.equal((await getJson(`${server.url}/api/svc-memory/file?path=notes/tmp.md`, { method: 'DELETE' })).status, 404);
  });

  test('bad paths and bad content are refused with nothing written', async () => {
    const outside = tempHome();
    writeFileSync(join(outside, 'victim.md'), 'untouched\n');
    mkdirSync(memoryDir, { recursive: true });
    symlinkSync(outside, join(memoryDir, 'escape'));
    const before = tree(memoryDir);
    const bad = ['../x.md', '/tmp/x.md', 'notes/../../x.md', '.secret.md', 'notes/.hidden/x.md', 'notes/x.txt', 'notes\\x.md', 'escape/victim.md', 'escape/new.md', '', 'a'.repeat(400)];
    for (const path of bad) {
      const answer = await save({ path, content: 'pwned', mode: 'replace' });
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.error, /^(INVALID_MEMORY_PATH|VALIDATION_FAILED)$/, path);
      assert.match(answer.body.message, /\S/);
    }
    assert.equal((await save({ path: 'notes/empty.md', content: '   ' })).body.error, 'INVALID_MEMORY_CONTENT');
    assert.equal((await save({ path: 'notes/s.md', content: 'no heading', mode: 'section' })).body.error, 'INVALID_MEMORY_CONTENT');
    assert.equal((await save({ path: 'notes/x.md', content: 'x', mode: 'overwrite' })).body.error, 'VALIDATION_FAILED');
    assert.equal((await getJson(`${server.url}/api/svc-memory/read?path=escape/victim.md`)).body.error, 'INVALID_MEMORY_PATH');
    assert.equal((await getJson(`${server.url}/api/svc-memory/file?path=escape/victim.md`, { method: 'DELETE' })).body.error, 'INVALID_MEMORY_PATH');
    assert.deepEqual(tree(memoryDir), before, 'nothing was written in the memory directory');
    assert.equal(readFileSync(join(outside, 'victim.md'), 'utf8'), 'untouched\n');
    assert.deepEqual(readdirSync(outside), ['victim.md']);
    rmSync(join(memoryDir, 'escape'));
  });

  test('edits made outside svc are indexed: a new file, a changed one, a removed folder', async () => {
    await watching(server.url);
    mkdirSync(join(memoryDir, 'projects', 'atlas'), { recursive: true });
    writeFileSync(join(memoryDir, 'projects', 'atlas', 'plan.md'), '# Atlas\nThe atlas launch is planned for March.\n');
    await until(async () => (await searchPaths(server.url, 'atlas launch')).includes('projects/atlas/plan.md'), 'a new file to be indexed');
    writeFileSync(join(memoryDir, 'projects', 'atlas', 'plan.md'), '# Atlas\nThe launch moved to April.\n');
    await until(async () => (await searchPaths(server.url, 'april')).includes('projects/atlas/plan.md'), 'the change to be indexed');
    assert.deepEqual(await searchPaths(server.url, 'march'), []);
    writeFileSync(join(memoryDir, 'notes', '회의.md'), '# 회의\n데이터베이스마이그레이션을 금요일에 하지 않기로 했다.\n');
    await until(async () => (await searchPaths(server.url, '마이그레이션')).includes('notes/회의.md'), 'a Korean file to be indexed');
    rmSync(join(memoryDir, 'projects'), { recursive: true });
    await until(async () => (await searchPaths(server.url, 'april')).length === 0, 'the removed folder to leave the index');
  });

  test('reindex re-reads everything, reports progress, and a second call joins the running one', async (t) => {
    for (let i = 0; i < 300; i++) writeFileSync(join(memoryDir, 'notes', `bulk-${i}.md`), `# Bulk ${i}\nfiller text number ${i}\n\n## More\nsecond section ${i}\n`);
    await until(async () => (await getJson(`${server.url}/api/memory/status`)).body.files >= 300, 'the bulk files to be indexed');
    const sse = await openSse(`${server.url}/api/events`);
    t.after(() => sse.close());
    const [first, second] = await Promise.all([
      sendJson(`${server.url}/api/memory/reindex`, 'POST', {}),
      sendJson(`${server.url}/api/memory/reindex`, 'POST', {}),
    ]);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.joined, second.body.joined].sort(), [false, true]);
    assert.equal(first.body.files, second.body.files);
    assert.ok(first.body.files >= 303 && first.body.chunks >= 600, JSON.stringify(first.body));
    assert.equal(first.body.status.index.state, 'ready');
    const status = (await until(() => sse.messages.find((m) => m.data.event === 'memory_status' && m.data.reason === 'reindex'), 'the reindex event'))!;
    assert.equal(status.data.status.files, first.body.files);
    const progress = sse.messages.filter((m) => m.data.event === 'memory_status' && m.data.reason === 'progress');
    assert.ok(progress.some((m) => m.data.status.index.state === 'indexing' && m.data.status.index.job === 'full'), 'progress while it ran');
    assert.equal(sse.messages.filter((m) => m.data.reason === 'reindex').length, 1, 'one job, announced once');
    assert.equal((await searchPaths(server.url, 'filler 299'))[0], 'notes/bulk-299.md');
  });

  test('status, the /memory command, and the embeddings key kept secret', async () => {
    const { body } = await getJson(`${server.url}/api/memory/status`);
    assert.equal(body.root, memoryDir);
    assert.equal(body.embeddings.state, 'off');
    assert.equal(body.summarize.everyMessages, 0);
    assert.equal(body.lastError, null);
    assert.ok(body.lastIndexedAt > 0);

    const saved = await postNdjson(`${server.url}/api/command`, { text: '/memory save notes/cmd.md "## Tea\nThe user drinks green tea."' });
    const savedLines = await saved.done;
    assert.equal(savedLines.at(-1).status, 'ok', JSON.stringify(savedLines));
    assert.match(savedLines.find((l) => l.type === 'text').content, /created notes\/cmd\.md \(note, append, 1 sections\)/);
    const found = await (await postNdjson(`${server.url}/api/command`, { text: '/memory search green tea' })).done;
    assert.match(found.find((l) => l.type === 'text').content, /^notes\/cmd\.md:1-2 \(note, Tea\)\n {2}The user drinks green tea\./);
    const status = await (await postNdjson(`${server.url}/api/command`, { text: '/memory status' })).done;
    assert.match(status.find((l) => l.type === 'text').content, /^memory: \d+ files, \d+ sections in /);
    const bad = await sendJson(`${server.url}/api/command`, 'POST', { text: '/memory save notes/x.txt hello' });
    assert.equal(bad.body.error, 'INVALID_MEMORY_PATH');

    const put = await sendJson(`${server.url}/api/settings`, 'PUT', { memory: { embeddings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-memory-secret' } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.memory.embeddings.apiKey, '***');
    assert.equal(put.body.memory.embeddings.model, 'm');
    assert.ok(!JSON.stringify((await getJson(`${server.url}/api/settings`)).body).includes('sk-memory-secret'));
    assert.equal(server.app.services.settings.get().memory.embeddings.apiKey, 'sk-memory-secret');
    await sendJson(`${server.url}/api/settings`, 'PUT', { memory: { embeddings: null } });
  });
});
