import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { getJson, sendJson } from '../../support/server.ts';

describe('POST /api/message with attachments', () => {
  let server: AgentTestServer;
  before(async () => {
    server = await startAgentServer();
  });
  after(() => server.close());

  const upload = async (name: string, bytes: Buffer<ArrayBuffer>) => {
    const answer = await getJson(`${server.url}/api/upload?filename=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    assert.equal(answer.status, 201);
    return answer.body as { filename: string; path: string };
  };
  const messages = async () => (await getJson(`${server.url}/api/messages?limit=200`)).body.messages as { role: string; content: string }[];

  test('the agent and the saved history get the prompt plus one block naming each file by absolute path', async () => {
    const photo = await upload('photo.png', Buffer.alloc(12_595, 1));
    const notes = await upload('notes.txt', Buffer.from('ten bytes!'));
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'describe these scenario:text', attachments: [photo.filename, notes.filename] });
    assert.equal(stream.status, 200);
    assert.equal((await stream.done).at(-1).status, 'ok');
    const expected = `describe these scenario:text\n\nAttached files:\n- ${photo.path} (image/png, 12.3 KB)\n- ${notes.path} (text/plain, 10 B)`;
    const user = (await messages()).filter((m) => m.role === 'user').at(-1);
    assert.equal(user?.content, expected);
    assert.ok(server.invocations().some((i) => i.prompt.includes(expected)), 'the CLI got the same text');
  });

  test('attachments alone are a message; neither prompt nor attachments is still a 400', async () => {
    const file = await upload('alone.csv', Buffer.from('a,b\n'));
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: '  ', attachments: [file.filename] });
    assert.equal(stream.status, 200);
    await stream.done;
    const user = (await messages()).filter((m) => m.role === 'user').at(-1);
    assert.equal(user?.content, `Attached files:\n- ${file.path} (text/csv, 4 B)`);
    for (const body of [{ prompt: ' ' }, { prompt: '', attachments: [] }, {}]) {
      const answer = await sendJson(`${server.url}/api/message`, 'POST', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.field, 'prompt');
    }
  });

  test('an unknown or unsafe attachment, or more than 10, is refused and nothing is saved', async () => {
    const file = await upload('ok.png', Buffer.from('png'));
    const count = (await messages()).length;
    const cases: [unknown, number, string][] = [
      [['20990101-000000-aaaaaa-missing.png'], 404, 'NOT_FOUND'],
      [[file.filename, 'missing.png'], 404, 'NOT_FOUND'],
      [['../token'], 400, 'INVALID_FILENAME'],
      [['.hidden'], 400, 'INVALID_FILENAME'],
      [Array(11).fill(file.filename), 400, 'VALIDATION_FAILED'],
      [[''], 400, 'VALIDATION_FAILED'],
      ['ok.png', 400, 'VALIDATION_FAILED'],
    ];
    for (const [attachments, status, code] of cases) {
      const answer = await sendJson(`${server.url}/api/message`, 'POST', { prompt: 'look scenario:text', attachments });
      assert.equal(answer.status, status, JSON.stringify(attachments));
      assert.equal(answer.body.error, code, JSON.stringify(attachments));
    }
    assert.equal((await messages()).length, count, 'nothing saved');
    const ten = await postNdjson(`${server.url}/api/message`, { prompt: 'ten scenario:text', attachments: Array(10).fill(file.filename) });
    assert.equal(ten.status, 200, 'ten is allowed');
    await ten.done;
  });
});
