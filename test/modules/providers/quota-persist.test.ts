// Rate limits the runner observed are kept in the database: /api/quota knows them after a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, closeDatabase, schemaVersion } from '../../../src/store/db.ts';
import { QuotaObservationRepo } from '../../../src/agent/quota.repo.ts';
import { startAgentServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { getJson, startServer, tempHome } from '../../support/server.ts';

test('migration 4 and the repository: one JSON record per provider, replaced on save', () => {
  const db = openDatabase(join(tempHome(), 'q.db'));
  assert.ok(schemaVersion(db) >= 4);
  const repo = new QuotaObservationRepo(db);
  repo.save('claude', { limit: { at: 1, message: '429' } });
  repo.save('claude', { limit: { at: 1, message: '429' }, okAt: 2 });
  repo.save('codex', { okAt: 3 });
  assert.deepEqual(repo.load(), [['claude', { limit: { at: 1, message: '429' }, okAt: 2 }], ['codex', { okAt: 3 }]]);
  assert.throws(() => db.prepare("INSERT INTO quota_observations VALUES ('x', 'not json', 1)").run(), /CHECK/);
  closeDatabase(db);
});

test('an observed rate limit survives a restart; a later success clears it, also across a restart', async (t) => {
  const first = await startAgentServer({ retries: 0 });
  const home = first.home;
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const failed = (await (await postNdjson(`${first.url}/api/message`, { prompt: 'hi fail:claude' })).done).at(-1);
  assert.equal(failed.status, 'error');
  assert.equal(failed.failure, 'rate_limit');
  const before = (await getJson(`${first.url}/api/quota`)).body.providers.claude;
  assert.equal(before.status, 'limited');
  await first.close({ removeHome: false });

  const second = await startServer({ home });
  const after = (await getJson(`${second.url}/api/quota`)).body.providers.claude;
  assert.deepEqual(after, before, 'the same answer from the stored observation');
  await second.close({ removeHome: false });

  // a successful run on the same data ends the limit, and that too is remembered
  const third = await startAgentServer({ retries: 0 }, { home });
  assert.equal((await (await postNdjson(`${third.url}/api/message`, { prompt: 'hi scenario:text' })).done).at(-1).status, 'ok');
  await third.close({ removeHome: false });
  const fourth = await startServer({ home });
  const cleared = (await getJson(`${fourth.url}/api/quota`)).body.providers.claude;
  await fourth.close({ removeHome: false });
  assert.notEqual(cleared.status, 'limited');
  assert.equal(cleared.lastLimitedAt, before.lastLimitedAt, 'the last limit is still reported as past');
});
