import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/store/db.ts';
import { MessageRepo, SEARCH_WINDOW } from '../../../src/modules/chat/messages.repo.ts';

test('search ranks among the most recent SEARCH_WINDOW matches, per session when asked', () => {
  const db = openDatabase(':memory:');
  db.prepare("INSERT INTO chat_sessions VALUES ('a','A',1,1,1), ('b','B',0,1,1)").run();
  const repo = new MessageRepo(db);
  // the most relevant message is the oldest: outside the window once enough newer matches exist
  const oldest = repo.insert({ sessionId: 'a', role: 'user', content: 'kiwi kiwi kiwi kiwi' });
  const first = repo.search('kiwi', { limit: 5 });
  assert.equal(first[0]!.id, oldest.id);
  for (let i = 0; i < SEARCH_WINDOW; i++) repo.insert({ sessionId: 'b', role: 'user', content: `a long message about many things and one kiwi number ${i}` });
  const newest = repo.insert({ sessionId: 'a', role: 'assistant', content: 'kiwi kiwi kiwi' });
  const hits = repo.search('kiwi', { limit: 5 });
  assert.equal(hits[0]!.id, newest.id, 'the best match of the window ranks first');
  assert.ok(!hits.some((h) => h.id === oldest.id), 'older than the window');
  // within one session the window counts that session's matches only: both 'a' messages are in it
  const inA = repo.search('kiwi', { limit: 5, sessionId: 'a' });
  assert.deepEqual(inA.map((h) => h.id).sort(), [oldest.id, newest.id].sort());
  db.close();
});
