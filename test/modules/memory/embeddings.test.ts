// Semantic search against a small local embeddings server speaking the OpenAI-compatible API over real
// HTTP: vectors are filled in the background, fused into the ranking, kept across a reindex (keyed by the
// text's hash), and a dead endpoint never breaks search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getJson, sendJson, startServer } from '../../support/server.ts';
import { buildEmbeddingsRequest, embeddingsUrl, parseEmbeddings } from '../../../src/modules/memory/embeddings.ts';

const DIMS = 256;
/** Words that mean the same thing land in the same dimension: what a real model learns, made explicit. */
const SYNONYMS: Record<string, string> = { automobile: 'car', vehicle: 'car', cars: 'car', sedan: 'car' };
/** Words a model learns to give little weight. */
const STOP = new Set(['the', 'and', 'are', 'our', 'next']);

function embed(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    if (word.length < 3 || STOP.has(word)) continue;
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    v[h % DIMS]! += 1;
  }
  return v;
}

interface FakeEmbeddings {
  url: string;
  requests: { auth?: string; model: string; inputs: string[] }[];
  failing: boolean;
  close(): Promise<void>;
}

async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const state = { requests: [] as FakeEmbeddings['requests'], failing: false };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      state.requests.push({ auth: req.headers.authorization, model, inputs: input });
      if (state.failing) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"model not loaded"}}');
        return;
      }
      // answered out of order, as some servers do: the index says which input each vector is for
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: embed(text) })).reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeEmbeddings = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() {
      return state.requests;
    },
    get failing() {
      return state.failing;
    },
    set failing(v: boolean) {
      state.failing = v;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return fake;
}

test('request and answer of the embeddings API', () => {
  assert.equal(embeddingsUrl('http://h:1/v1/'), 'http://h:1/v1/embeddings');
  assert.equal(embeddingsUrl('http://h:1/v1/embeddings'), 'http://h:1/v1/embeddings');
  const { url, init } = buildEmbeddingsRequest({ baseUrl: 'http://h/v1', model: 'm', apiKey: 'k' }, ['a', 'x'.repeat(5000)]);
  assert.equal(url, 'http://h/v1/embeddings');
  assert.equal((init.headers as Record<string, string>).authorization, 'Bearer k');
  assert.equal(JSON.parse(init.body as string).input[1].length, 2000);
  const [a, b] = parseEmbeddings({ data: [{ index: 1, embedding: [0, 2] }, { index: 0, embedding: [3, 4] }] }, 2);
  assert.deepEqual([...a!], [0.6000000238418579, 0.800000011920929]);
  assert.deepEqual([...b!], [0, 1]);
  assert.throws(() => parseEmbeddings({ data: [] }, 1), /0 vectors for 1 inputs/);
  assert.throws(() => parseEmbeddings({ data: [{ embedding: [1] }, { embedding: [1, 2] }] }, 2), /differ in length/);
});

test('with an embeddings endpoint, a search finds what the words do not; without one it is offline', async (t) => {
  const fake = await startFakeEmbeddings();
  const server = await startServer();
  t.after(async () => {
    await server.close();
    await fake.close();
  });
  const { memory } = server.app.services;
  const save = (path: string, content: string) => sendJson(`${server.url}/api/svc-memory/save`, 'POST', { path, content, mode: 'replace' });
  await save('notes/garage.md', '# Garage\nThe automobile is parked in the garage next to the bicycle.');
  await save('notes/fruit.md', '# Fruit\nBananas are yellow and taste sweet.');

  // offline: "car" is not a word of either note
  let answer = await getJson(`${server.url}/api/svc-memory/search?q=car`);
  assert.deepEqual(answer.body, { query: 'car', hits: [], semantic: false });
  assert.equal(fake.requests.length, 0, 'nothing is sent anywhere without the setting');

  await sendJson(`${server.url}/api/settings`, 'PUT', { memory: { embeddings: { baseUrl: fake.url, model: 'fake-embed', apiKey: 'sk-embed' } } });
  await memory.settled();
  const status = (await getJson(`${server.url}/api/memory/status`)).body;
  assert.deepEqual(status.embeddings, { state: 'ready', model: 'fake-embed', vectors: 2, pending: 0 });
  assert.equal(fake.requests[0]!.auth, 'Bearer sk-embed');
  assert.equal(fake.requests[0]!.model, 'fake-embed');

  answer = await getJson(`${server.url}/api/svc-memory/search?q=car`);
  assert.equal(answer.body.semantic, true);
  assert.deepEqual(answer.body.hits.map((h: { path: string; matchedBy: string[] }) => [h.path, h.matchedBy]), [['notes/garage.md', ['semantic']]]);
  // both lists agree: found by words and by meaning
  answer = await getJson(`${server.url}/api/svc-memory/search?q=garage%20vehicle`);
  assert.deepEqual(answer.body.hits[0].matchedBy, ['words', 'semantic']);

  // a new save is embedded; a reindex asks for nothing already embedded (vectors are keyed by text)
  await save('notes/sedan.md', '# Sedan\nOur sedan needs new tyres.');
  await memory.settled();
  const before = fake.requests.length;
  await sendJson(`${server.url}/api/memory/reindex`, 'POST', {});
  await memory.settled();
  assert.equal(fake.requests.length - before, 0, 'no text embedded twice');
  assert.equal((await getJson(`${server.url}/api/memory/status`)).body.embeddings.vectors, 3);

  // the endpoint fails: search still answers from the words, and the status says why
  fake.failing = true;
  answer = await getJson(`${server.url}/api/svc-memory/search?q=bananas`);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.semantic, false);
  assert.deepEqual(answer.body.hits.map((h: { path: string }) => h.path), ['notes/fruit.md']);
  const failed = (await getJson(`${server.url}/api/memory/status`)).body;
  assert.equal(failed.embeddings.state, 'error');
  assert.match(failed.lastError, /HTTP 500 .*model not loaded/);
});
