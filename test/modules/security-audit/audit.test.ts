import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { getJson, sendJson, startServer } from '../../support/server.ts';

test('settings changes are logged by name, secrets never by value, and the chain verifies', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const secret = 'sk-audit-secret-1234567890';
  assert.equal((await sendJson(`${server.url}/api/settings`, 'PUT', { memory: { embeddings: { apiKey: secret } } })).status, 200);
  assert.equal((await sendJson(`${server.url}/api/settings`, 'PUT', { memory: { contextBudget: 1234 } })).status, 200);

  const page = await getJson(`${server.url}/api/security-audit/entries?action=settings`);
  assert.equal(page.status, 200);
  const [secretChange, plainChange] = page.body.entries;
  assert.equal(secretChange.action, 'settings.secrets');
  assert.deepEqual(secretChange.details.secrets, ['memory.embeddings.apiKey']);
  assert.equal(plainChange.action, 'settings.change');
  assert.deepEqual(plainChange.details, { fields: ['memory.contextBudget'], secrets: [] });
  assert.equal(plainChange.prevHash, secretChange.hash);
  assert.ok(!JSON.stringify(page.body).includes(secret), 'the secret value is never logged');

  assert.deepEqual((await getJson(`${server.url}/api/security-audit/verify`)).body, { ok: true, entries: 2 });
});

test('a remote peer refused for its token is logged, flood-limited, and the token handed out locally is logged', async (t) => {
  const server = await startServer({ classifyPeer: () => 'remote' });
  t.after(() => server.close());
  for (let i = 0; i < 15; i++) {
    assert.equal((await getJson(`${server.url}/api/settings`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
  }
  const token = server.app.services.token;
  const page = await getJson(`${server.url}/api/security-audit/entries?action=auth.refused&limit=100`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(page.status, 200);
  assert.equal(page.body.entries.length, 10, 'at most 10 a minute per peer and reason');
  assert.equal(page.body.entries[0].outcome, 'refused');
  assert.equal(page.body.entries[0].target, 'GET /api/settings');
  assert.match(page.body.entries[0].actor, /^remote:/);
  assert.equal(page.body.entries[0].details.code, 'UNAUTHORIZED');
  assert.ok(!JSON.stringify(page.body).includes(token));
});

test('paging: since gives what came after, without since the newest; filters by outcome', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  for (let i = 0; i < 5; i++) server.app.services.audit.record({ actor: 'agent', action: i % 2 ? 'channel.send' : 'channel.pair', target: `c${i}`, outcome: i === 4 ? 'refused' : 'ok' });
  const first = (await getJson(`${server.url}/api/security-audit/entries?since=0&limit=2`)).body;
  assert.deepEqual(first.entries.map((e: { seq: number }) => e.seq), [1, 2]);
  assert.equal(first.hasMore, true);
  const next = (await getJson(`${server.url}/api/security-audit/entries?since=${first.nextSince}&limit=10`)).body;
  assert.deepEqual(next.entries.map((e: { seq: number }) => e.seq), [3, 4, 5]);
  assert.equal(next.hasMore, false);
  const tail = (await getJson(`${server.url}/api/security-audit/entries?limit=2`)).body;
  assert.deepEqual(tail.entries.map((e: { seq: number }) => e.seq), [4, 5]);
  const sends = (await getJson(`${server.url}/api/security-audit/entries?action=channel.send`)).body;
  assert.deepEqual(sends.entries.map((e: { target: string }) => e.target), ['c1', 'c3']);
  const refused = (await getJson(`${server.url}/api/security-audit/entries?outcome=refused`)).body;
  assert.deepEqual(refused.entries.map((e: { seq: number }) => e.seq), [5]);
  assert.equal((await getJson(`${server.url}/api/security-audit/entries?limit=0`)).status, 400);
  assert.equal((await getJson(`${server.url}/api/security-audit/entries?action=DROP%20TABLE`)).status, 400);
});

test('the table refuses edits; an edit or a deletion made anyway is found and named by verify', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  for (let i = 1; i <= 4; i++) server.app.services.audit.record({ actor: 'local', action: 'channel.send', target: `chat-${i}`, outcome: 'ok', details: { messageId: i } });
  const db = new Database(join(server.home, 'svc.db'));
  t.after(() => db.close());
  assert.throws(() => db.prepare("UPDATE security_audit SET target = 'x' WHERE seq = 2").run(), /append-only/);
  assert.throws(() => db.prepare('DELETE FROM security_audit WHERE seq = 2').run(), /append-only/);

  db.exec('DROP TRIGGER security_audit_no_update; DROP TRIGGER security_audit_no_delete;');
  db.prepare(`UPDATE security_audit SET details = '{"messageId":99}' WHERE seq = 3`).run();
  const edited = (await getJson(`${server.url}/api/security-audit/verify`)).body;
  assert.equal(edited.ok, false);
  assert.equal(edited.firstBadSeq, 3);
  assert.equal(edited.entries, 3);

  db.prepare(`UPDATE security_audit SET details = '{"messageId":3}' WHERE seq = 3`).run();
  assert.equal((await getJson(`${server.url}/api/security-audit/verify`)).body.ok, true, 'putting it back restores the chain');
  db.prepare('DELETE FROM security_audit WHERE seq = 2').run();
  const deleted = (await getJson(`${server.url}/api/security-audit/verify`)).body;
  assert.deepEqual({ ok: deleted.ok, firstBadSeq: deleted.firstBadSeq }, { ok: false, firstBadSeq: 2 });
  assert.match(deleted.problem, /missing/);
});

test('media fetched outside the UI and vision actions on the desktop are logged', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const upload = await getJson(`${server.url}/api/upload?filename=a.txt`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'hello' });
  assert.equal(upload.status, 201);
  assert.equal((await getJson(`${server.url}/media/${upload.body.filename}`, { headers: { 'sec-fetch-site': 'same-origin' } })).status, 200);
  assert.equal((await getJson(`${server.url}/media/${upload.body.filename}`)).status, 200);
  const served = (await getJson(`${server.url}/api/security-audit/entries?action=media`)).body.entries;
  assert.deepEqual(served.map((e: { target: string; actor: string }) => [e.target, e.actor]), [[upload.body.filename, 'local']], 'only the fetch from outside the UI');

  const desktop = await sendJson(`${server.url}/api/vision-click`, 'POST', { action: 'click', description: 'the OK button', target: 'desktop', dryRun: true });
  const vision = (await getJson(`${server.url}/api/security-audit/entries?action=vision.desktop`)).body.entries;
  assert.equal(vision.length, 1);
  assert.equal(vision[0].target, 'click');
  assert.equal(vision[0].outcome, desktop.status === 200 ? 'ok' : 'failed');
  assert.deepEqual(vision[0].details.description, 'the OK button');
});
