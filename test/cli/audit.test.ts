// `svc audit tail|verify` against a running server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer } from '../support/server.ts';
import { runSvc } from '../support/cli.ts';


const svc = (args: string[]) => runSvc(args);

test('svc audit: tail with filters, verify ok and broken', { timeout: 120_000 }, async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const url = ['--url', server.url];
  const { audit } = server.app.services;
  audit.record({ actor: 'agent', action: 'channel.send', target: 'telegram:42', outcome: 'ok', details: { messageId: 7 } });
  audit.record({ actor: 'local', action: 'channel.pair', target: 'telegram:43', outcome: 'refused' });

  const tail = await svc(['audit', 'tail', '--action', 'channel.send', ...url]);
  assert.equal(tail.code, 0, tail.stderr);
  assert.match(tail.stdout, /^ +1 \d{4}-\d\d-\d\dT[\d:.]+Z ok +channel\.send telegram:42 \(agent\) \{"messageId":7\}\n$/);
  const json = JSON.parse((await svc(['audit', 'tail', '--outcome', 'refused', '--json', ...url])).stdout);
  assert.deepEqual(json.entries.map((e: { seq: number }) => e.seq), [2]);

  const ok = await svc(['audit', 'verify', ...url]);
  assert.deepEqual([ok.code, ok.stdout], [0, 'the audit log is intact (2 entries)\n']);

  const db = new Database(join(server.home, 'svc.db'));
  t.after(() => db.close());
  db.exec("DROP TRIGGER security_audit_no_update; UPDATE security_audit SET outcome = 'ok' WHERE seq = 2;");
  const broken = await svc(['audit', 'verify', ...url]);
  assert.equal(broken.code, 1);
  assert.match(broken.stdout, /broken at entry 2: entry 2 was changed/);
});
