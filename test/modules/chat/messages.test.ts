import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { openSse } from '../../support/sse.ts';

describe('messages and chat sessions', () => {
  let server: TestServer;
  let sessionId: string;
  before(async () => {
    server = await startServer();
    const { chat } = server.app.services;
    sessionId = chat.activeSession().id;
    for (let i = 1; i <= 120; i++) {
      chat.saveMessage({ sessionId, role: i % 2 ? 'user' : 'assistant', content: `message number ${i}` });
    }
  });
  after(() => server.close());

  test('the latest page by default, chronological, with cursors', async () => {
    const { status, body } = await getJson(`${server.url}/api/messages?limit=10`);
    assert.equal(status, 200);
    assert.equal(body.messages.length, 10);
    assert.deepEqual(body.messages.map((m: any) => m.content).slice(-2), ['message number 119', 'message number 120']);
    assert.equal(body.hasMore, true);
    assert.equal(body.before, body.messages[0].id);
    const m = body.messages[0];
    assert.equal(typeof m.id, 'number');
    assert.equal(m.sessionId, sessionId);
    assert.ok(['user', 'assistant'].includes(m.role));
  });

  test('paging backwards with before= reaches the first message exactly once', async () => {
    const seen: number[] = [];
    let cursor: number | undefined;
    let pages = 0;
    for (;;) {
      const { body } = await getJson(`${server.url}/api/messages?limit=50${cursor ? `&before=${cursor}` : ''}`);
      seen.unshift(...body.messages.map((m: any) => m.id));
      pages++;
      if (!body.hasMore) break;
      cursor = body.before;
    }
    assert.equal(pages, 3);
    assert.equal(seen.length, 120);
    assert.equal(new Set(seen).size, 120);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  });

  test('after= returns newer messages', async () => {
    const { body: latest } = await getJson(`${server.url}/api/messages?limit=5`);
    const { body } = await getJson(`${server.url}/api/messages?limit=3&after=${latest.messages[0].id}`);
    assert.deepEqual(body.messages.map((m: any) => m.id), latest.messages.slice(1, 4).map((m: any) => m.id));
    assert.equal(body.hasMore, true);
  });

  test('after= on the last page says hasMore: false, also when exactly limit messages remain', async () => {
    const { body: latest } = await getJson(`${server.url}/api/messages?limit=5`);
    const ids = latest.messages.map((m: any) => m.id);
    const exact = await getJson(`${server.url}/api/messages?limit=4&after=${ids[0]}`);
    assert.deepEqual(exact.body.messages.map((m: any) => m.id), ids.slice(1));
    assert.equal(exact.body.hasMore, false);
    const short = await getJson(`${server.url}/api/messages?limit=10&after=${ids[2]}`);
    assert.deepEqual(short.body.messages.map((m: any) => m.id), ids.slice(3));
    assert.equal(short.body.hasMore, false);
    const none = await getJson(`${server.url}/api/messages?limit=10&after=${ids[4]}`);
    assert.deepEqual(none.body.messages, []);
    assert.equal(none.body.hasMore, false);
    // and backwards: the page holding the first message, exactly limit long, is the last
    const first = (await getJson(`${server.url}/api/messages?limit=1&after=0`)).body.messages[0].id;
    const oldest = await getJson(`${server.url}/api/messages?limit=3&before=${first + 3}`);
    assert.equal(oldest.body.messages.length, 3);
    assert.equal(oldest.body.hasMore, false);
  });

  test('limits are bounded and bad cursors are 400s naming the field', async () => {
    const tooMany = await getJson(`${server.url}/api/messages?limit=100000`);
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.field, 'limit');
    const bad = await getJson(`${server.url}/api/messages?before=abc`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'VALIDATION_FAILED');
    assert.equal(bad.body.field, 'before');
    const both = await getJson(`${server.url}/api/messages?before=5&after=2`);
    assert.equal(both.status, 400);
    const unknown = await getJson(`${server.url}/api/messages?sessionId=ses_missing`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'NOT_FOUND');
  });

  test('count', async () => {
    const { body } = await getJson(`${server.url}/api/messages/count`);
    assert.deepEqual(body, { sessionId, count: 120 });
  });

  test('full-text search ranks, snippets and escapes; operators in the query are literal', async () => {
    const { chat } = server.app.services;
    chat.saveMessage({ sessionId, role: 'user', content: 'The <b>pineapple</b> is on the table, pineapple again' });
    chat.saveMessage({ sessionId, role: 'assistant', content: 'A pineapple.' });
    const { status, body } = await getJson(`${server.url}/api/messages/search?q=pineapple`);
    assert.equal(status, 200);
    assert.equal(body.results.length, 2);
    assert.ok(body.results[0].rank <= body.results[1].rank);
    const escaped = body.results.find((r: any) => r.snippet.includes('table'));
    assert.match(escaped.snippet, /&#60;b&#62;<mark>pineapple<\/mark>&#60;\/b&#62;/);
    for (const q of ['"', 'AND', '(pine', 'pine*', 'a OR', 'NEAR(', '*']) {
      const answer = await getJson(`${server.url}/api/messages/search?q=${encodeURIComponent(q)}`);
      assert.equal(answer.status, 200, q);
    }
    const prefix = await getJson(`${server.url}/api/messages/search?q=pinea*`);
    assert.equal(prefix.body.results.length, 2);
    const empty = await getJson(`${server.url}/api/messages/search?q=`);
    assert.equal(empty.status, 400);
    assert.equal(empty.body.field, 'q');
  });

  test('creating and switching sessions publishes events and changes the active session', async () => {
    const sse = await openSse(`${server.url}/api/events`);
    const created = await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: 'Research' });
    assert.equal(created.status, 201);
    const newId = created.body.session.id;
    assert.equal(created.body.session.active, true);
    const events = await sse.waitFor(3);
    assert.deepEqual(events.map((e) => e.data.event), ['session_created', 'session_switched', 'session_list']);
    assert.equal(events[1]!.data.sessionId, newId);
    assert.equal((await getJson(`${server.url}/api/messages/count`)).body.count, 0, 'new session is empty');
    const back = await sendJson(`${server.url}/api/chat-sessions/${sessionId}/switch`, 'POST', {});
    assert.equal(back.status, 200);
    const switched = await sse.waitFor(5);
    assert.equal(switched[3]!.data.event, 'session_switched');
    assert.equal(switched[3]!.data.sessionId, sessionId);
    sse.close();
    const list = await getJson(`${server.url}/api/chat-sessions`);
    assert.equal(list.body.activeId, sessionId);
    assert.equal(list.body.sessions.filter((s: any) => s.active).length, 1);
    const missing = await sendJson(`${server.url}/api/chat-sessions/ses_nope/switch`, 'POST', {});
    assert.equal(missing.status, 404);
    const wrongType = await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: 42 });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.field, 'title');
  });
});

describe('persistence', () => {
  test('messages survive a server restart', async () => {
    const first = await startServer();
    const { chat } = first.app.services;
    const sessionId = chat.activeSession().id;
    chat.saveMessage({ sessionId, role: 'user', content: 'remember me' });
    await first.close({ removeHome: false });
    const second = await startServer({ home: first.home });
    const { body } = await getJson(`${second.url}/api/messages`);
    assert.equal(body.sessionId, sessionId);
    assert.deepEqual(body.messages.map((m: any) => m.content), ['remember me']);
    await second.close();
  });
});
