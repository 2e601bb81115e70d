// The message repository (src/modules/chat/messages.repo.ts) on an in-memory database: paging in
// each direction with its hasMore at the exact edge, search snippets and filters, counts and deletes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/store/db.ts';
import { MessageRepo, SEARCH_WINDOW, toFtsQuery } from '../../../src/modules/chat/messages.repo.ts';

function setup(t: { after(fn: () => void): void }) {
  const db = openDatabase(':memory:');
  t.after(() => db.close());
  db.prepare("INSERT INTO chat_sessions VALUES ('a','A',1,1,1), ('b','B',0,1,1)").run();
  return new MessageRepo(db);
}

/** Five messages in 'a' (ids 1, 2, 4, 5, 7) with one in 'b' between. */
function five(repo: MessageRepo) {
  const ids: number[] = [];
  for (let i = 1; i <= 5; i++) {
    ids.push(repo.insert({ sessionId: 'a', role: i % 2 ? 'user' : 'assistant', content: `message ${i}`, createdAt: 100 + i }).id);
    if (i % 2 === 0) repo.insert({ sessionId: 'b', role: 'user', content: `other ${i}` });
  }
  return ids;
}

const ids = (page: { messages: { id: number }[]; hasMore: boolean }) => [page.messages.map((m) => m.id), page.hasMore];

test('the latest page, then older pages: chronological, hasMore only while older messages remain', (t) => {
  const repo = setup(t);
  const [m1, m2, m3, m4, m5] = five(repo);
  assert.deepEqual(ids(repo.page('a', { limit: 2 })), [[m4, m5], true]);
  assert.deepEqual(ids(repo.page('a', { limit: 5 })), [[m1, m2, m3, m4, m5], false], 'exactly all: no more');
  assert.deepEqual(ids(repo.page('a', { limit: 4 })), [[m2, m3, m4, m5], true], 'one left: more');
  assert.deepEqual(ids(repo.page('a', { limit: 2, before: m4! })), [[m2, m3], true]);
  assert.deepEqual(ids(repo.page('a', { limit: 2, before: m3! })), [[m1, m2], false], 'the last page says so');
  assert.deepEqual(ids(repo.page('a', { limit: 2, before: m1! })), [[], false]);
  assert.deepEqual(ids(repo.page('b', { limit: 10 })), [[m2! + 1, m4! + 1], false]);
  assert.deepEqual(ids(repo.page('none', { limit: 10 })), [[], false]);
});

test('newer pages (after=): chronological, hasMore false on the last page', (t) => {
  const repo = setup(t);
  const [m1, m2, m3, m4, m5] = five(repo);
  assert.deepEqual(ids(repo.page('a', { limit: 2, after: 0 })), [[m1, m2], true]);
  assert.deepEqual(ids(repo.page('a', { limit: 2, after: m2! })), [[m3, m4], true]);
  assert.deepEqual(ids(repo.page('a', { limit: 2, after: m3! })), [[m4, m5], false], 'exactly the rest: no more');
  assert.deepEqual(ids(repo.page('a', { limit: 2, after: m4! })), [[m5], false]);
  assert.deepEqual(ids(repo.page('a', { limit: 2, after: m5! })), [[], false]);
  // after wins over before when both are given
  assert.deepEqual(ids(repo.page('a', { limit: 1, after: m1!, before: m1! })), [[m2], true]);
});

test('a message reads back as it was saved; meta only when there is some', (t) => {
  const repo = setup(t);
  const saved = repo.insert({ sessionId: 'a', role: 'assistant', content: 'hi', meta: { traceId: 't1', usage: { in: 3 } }, createdAt: 42 });
  assert.deepEqual(saved, { id: 1, sessionId: 'a', role: 'assistant', content: 'hi', createdAt: 42, meta: { traceId: 't1', usage: { in: 3 } } });
  assert.deepEqual(repo.get(saved.id), saved);
  const bare = repo.insert({ sessionId: 'a', role: 'user', content: 'x', meta: {}, createdAt: 43 });
  assert.deepEqual(bare, { id: 2, sessionId: 'a', role: 'user', content: 'x', createdAt: 43 });
  assert.deepEqual(repo.get(bare.id), bare);
  assert.equal(repo.get(99), undefined);
  const before = Date.now();
  const now = repo.insert({ sessionId: 'a', role: 'user', content: 'y' });
  assert.ok(now.createdAt >= before && now.createdAt <= Date.now());
  assert.deepEqual(repo.page('a', { limit: 1 }).messages[0], now);
});

test('counts, emptiness, the newest messages after an id, deleting a session', (t) => {
  const repo = setup(t);
  const [m1, , , m4, m5] = five(repo);
  assert.equal(repo.count('a'), 5);
  assert.equal(repo.count('b'), 2);
  assert.equal(repo.count(), 7);
  assert.equal(repo.isEmpty('a'), false);
  assert.deepEqual(repo.newestAfter(m1!, 3).map((m) => m.id), [m4, m4! + 1, m5], 'the newest 3 of every session, oldest first');
  assert.deepEqual(repo.newestAfter(m5!, 3), []);
  assert.equal(repo.deleteSession('a'), 5);
  assert.equal(repo.deleteSession('a'), 0);
  assert.equal(repo.count(), 2);
  assert.equal(repo.isEmpty('a'), true);
  assert.deepEqual(repo.search('message', { limit: 10 }), [], 'the index forgets deleted messages');
});

test('search: snippets HTML-escaped with <mark>, best match first, limited, per session when asked', (t) => {
  const repo = setup(t);
  const a = repo.insert({ sessionId: 'a', role: 'user', content: 'a <b>kiwi</b> & "ripe" \'one\'', createdAt: 5 });
  const b = repo.insert({ sessionId: 'b', role: 'assistant', content: 'kiwi kiwi kiwi', createdAt: 6 });
  const hits = repo.search('kiwi', { limit: 10 });
  assert.deepEqual(hits.map((h) => h.id), [b.id, a.id]);
  assert.ok(hits[0]!.rank <= hits[1]!.rank, 'ordered by bm25 rank, lower is better');
  assert.deepEqual({ ...hits[1]!, rank: 0 }, { id: a.id, sessionId: 'a', role: 'user', createdAt: 5, snippet: 'a &#60;b&#62;<mark>kiwi</mark>&#60;/b&#62; &#38; &#34;ripe&#34; &#39;one&#39;', rank: 0 });
  assert.equal(hits[0]!.snippet, '<mark>kiwi</mark> <mark>kiwi</mark> <mark>kiwi</mark>');
  assert.deepEqual(repo.search('kiwi', { limit: 1 }).map((h) => h.id), [b.id]);
  assert.deepEqual(repo.search('kiwi', { limit: 10, sessionId: 'a' }).map((h) => h.id), [a.id]);
  assert.deepEqual(repo.search('ki*', { limit: 10, sessionId: 'b' }).map((h) => h.id), [b.id], 'prefix search');
  assert.deepEqual(repo.search('kiwi ripe', { limit: 10 }).map((h) => h.id), [a.id], 'terms are AND-ed');
  assert.deepEqual(repo.search('   ', { limit: 10 }), []);
  assert.deepEqual(repo.search('"kiwi OR', { limit: 10 }), [], 'operators are literal');
});

test('FTS queries: at most 32 terms, a lone * is a literal term, spaces of any kind split', () => {
  assert.equal(toFtsQuery(Array.from({ length: 40 }, (_, i) => `t${i}`).join(' ')), Array.from({ length: 32 }, (_, i) => `"t${i}"`).join(' '));
  assert.equal(toFtsQuery('*'), '"*"');
  assert.equal(toFtsQuery('a**'), '"a*"*');
  assert.equal(toFtsQuery('\ta\n b  '), '"a" "b"');
  assert.equal(toFtsQuery(''), null);
  assert.equal(SEARCH_WINDOW, 1000);
});
