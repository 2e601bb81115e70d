// MessageRepo.moveToEnd: a queued user message takes a new id behind the answers saved while it waited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/store/db.ts';
import { MessageRepo } from '../../../src/modules/chat/messages.repo.ts';

test('moveToEnd gives a message a new id after its session\'s newest, keeping content, meta and time', () => {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO chat_sessions VALUES ('a','A',1,1,1), ('b','B',0,1,1)").run();
  const repo = new MessageRepo(db);
  const first = repo.insert({ sessionId: 'a', role: 'user', content: 'first question' });
  const queued = repo.insert({ sessionId: 'a', role: 'user', content: 'queued papaya question', meta: { requestId: 'req_1' }, createdAt: 1234 });
  const answer = repo.insert({ sessionId: 'a', role: 'assistant', content: 'first answer' });
  const other = repo.insert({ sessionId: 'b', role: 'user', content: 'elsewhere' });

  const moved = repo.moveToEnd(queued.id)!;
  assert.ok(moved.id > other.id);
  assert.deepEqual({ ...moved, id: 0 }, { ...queued, id: 0 });
  assert.equal(repo.get(queued.id), undefined, 'the old id is gone');
  assert.deepEqual(repo.page('a', { limit: 10 }).messages.map((m) => m.id), [first.id, answer.id, moved.id]);
  assert.deepEqual(repo.search('papaya', { limit: 5 }).map((h) => h.id), [moved.id], 'the search index follows');
  assert.equal(repo.count('a'), 3);
  assert.equal(repo.isEmpty('a'), false);
  assert.equal(repo.isEmpty('nope'), true);

  assert.equal(repo.moveToEnd(moved.id), undefined, 'already the newest of its session: nothing changes');
  assert.equal(repo.moveToEnd(answer.id + 1000), undefined, 'unknown id');
  assert.deepEqual(repo.page('a', { limit: 10 }).messages.map((m) => m.id), [first.id, answer.id, moved.id]);
  db.close();
});
