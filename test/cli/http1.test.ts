// The CLI's one-shot HTTP/1.1 client: its messages as pure functions (property-based where the input
// space is wide: chunk boundaries, extensions, trailers), then whole exchanges with real servers on
// loopback, node:http's and raw sockets' that split, stall, close early or never close.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { exchange } from '../../src/cli/http1-exchange.ts';
import {
  dechunk,
  framingOf,
  InvalidHeaderError,
  MalformedResponseError,
  MAX_HEAD_BYTES,
  parseHead,
  serializeRequest,
} from '../../src/cli/http1-message.ts';
import { freePort } from '../support/ports.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED) || 20261127;
const bytes = (text: string) => Buffer.from(text, 'latin1');

/** A chunked encoding of `parts`, with an extension on some sizes and trailer fields after the last. */
function chunked(parts: Buffer[], options: { extensions?: boolean; trailers?: string[] } = {}): Buffer {
  const encoded = parts.filter((p) => p.length > 0).flatMap((p, i) => [bytes(`${p.length.toString(16)}${options.extensions && i % 2 ? ';name=value' : ''}\r\n`), p, bytes('\r\n')]);
  return Buffer.concat([...encoded, bytes(`0\r\n${(options.trailers ?? []).map((t) => `${t}\r\n`).join('')}\r\n`)]);
}

/** `body` cut at the given offsets. */
const cut = (body: Buffer, offsets: number[]) => {
  const points = [...new Set(offsets.map((o) => o % (body.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((from, i) => body.subarray(from, points[i] ?? body.length));
};

describe('HTTP/1.1 messages', () => {
  test('a request: its line, Host, the headers given, Connection: close and the body\'s length in bytes', () => {
    const message = serializeRequest({ method: 'POST', path: '/api/x?q=1', host: '127.0.0.1:3457', headers: { authorization: 'Bearer t' }, body: 'é€' });
    assert.equal(
      message.toString('utf8'),
      'POST /api/x?q=1 HTTP/1.1\r\nHost: 127.0.0.1:3457\r\nauthorization: Bearer t\r\nConnection: close\r\nContent-Length: 5\r\n\r\né€',
    );
    assert.equal(serializeRequest({ method: 'GET', path: '/', host: 'h', headers: {} }).toString('latin1'), 'GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
  });

  test('a header that would split the head (CR, LF, NUL) or a name that is no token is refused before a byte is sent', () => {
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\0b', 'snow ☃']) {
      assert.throws(() => serializeRequest({ method: 'GET', path: '/', host: 'h', headers: { authorization: value } }), InvalidHeaderError, JSON.stringify(value));
    }
    for (const name of ['', 'a b', 'a:b', 'x\r\n']) {
      assert.throws(() => serializeRequest({ method: 'GET', path: '/', host: 'h', headers: { [name]: 'v' } }), InvalidHeaderError, JSON.stringify(name));
    }
  });

  test('a head: undefined until its empty line, interim 1xx heads skipped, repeated fields joined, lower-case names', () => {
    const text = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nVary: a\r\nvary: b\r\nContent-Length: 2\r\n\r\nok';
    const whole = bytes(text);
    for (let end = 0; end < text.indexOf('\r\n\r\nok') + 4; end++) assert.equal(parseHead(whole.subarray(0, end)), undefined, `prefix of ${end}`);
    const head = parseHead(whole)!;
    assert.equal(head.status, 201);
    assert.equal(head.headers.get('content-type'), 'text/plain');
    assert.equal(head.headers.get('vary'), 'a, b');
    assert.equal(whole.subarray(head.bodyStart).toString(), 'ok');
    assert.deepEqual(framingOf(head), { kind: 'length', length: 2 });
  });

  test('a head that is not HTTP/1.x, has a line without a colon, or never ends is refused', () => {
    assert.throws(() => parseHead(bytes('SSH-2.0-OpenSSH\r\n\r\n')), MalformedResponseError);
    assert.throws(() => parseHead(bytes('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n')), MalformedResponseError);
    assert.throws(() => parseHead(Buffer.alloc(MAX_HEAD_BYTES + 1, 'a')), MalformedResponseError);
  });

  test('framing: 204 and 304 have no body, chunked wins over a length, a bad length is refused, else the close ends it', () => {
    const framing = (status: number, fields: string) => framingOf(parseHead(bytes(`HTTP/1.1 ${status} X\r\n${fields}\r\n`))!);
    assert.deepEqual(framing(204, ''), { kind: 'length', length: 0 });
    assert.deepEqual(framing(304, 'Content-Length: 10\r\n'), { kind: 'length', length: 0 });
    assert.deepEqual(framing(200, 'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n'), { kind: 'chunked' });
    assert.deepEqual(framing(200, 'Transfer-Encoding: gzip\r\n'), { kind: 'close' });
    assert.deepEqual(framing(200, ''), { kind: 'close' });
    assert.throws(() => framing(200, 'Content-Length: -1\r\n'), MalformedResponseError);
    assert.throws(() => framing(200, 'Content-Length: 1, 2\r\n'), MalformedResponseError);
  });

  test('property: any body, chunked at any boundaries with extensions and trailers, decodes to itself; every prefix is "not yet"', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), fc.array(fc.constantFrom('Expires: 0', 'X-Sum: 1'), { maxLength: 2 }), (raw, offsets, extensions, trailers) => {
        const body = Buffer.from(raw);
        const encoded = chunked(cut(body, offsets), { extensions, trailers });
        assert.deepEqual(dechunk(encoded), body);
        for (let end = 0; end < encoded.length; end++) assert.equal(dechunk(encoded.subarray(0, end)), undefined);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('a chunk size that is not hex, or a chunk without its CRLF, is refused', () => {
    assert.throws(() => dechunk(bytes('zz\r\nab\r\n0\r\n\r\n')), MalformedResponseError);
    assert.throws(() => dechunk(bytes('2\r\nabXY0\r\n\r\n')), MalformedResponseError);
  });
});

describe('one-shot exchanges with real servers', () => {
  let http: HttpServer;
  let httpUrl: string;
  before(async () => {
    http = createHttpServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        if (req.url === '/chunked') {
          // written in pieces a moment apart: node:http sends them as chunks
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          const pieces = ['grüß ', 'dich', ' — ', 'x'.repeat(70_000)];
          const next = () => (pieces.length ? res.write(pieces.shift()!, () => setTimeout(next, 2)) : res.end());
          return next();
        }
        res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(parts).toString('utf8') }));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpUrl = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  });
  after(() => http.close());

  test('node:http answers: the request arrives whole (method, path, query, headers, UTF-8 body); the status and text come back', async () => {
    const answer = await exchange(new URL(`${httpUrl}/api/echo?a=1&b=%C3%A9`), { method: 'PUT', headers: { authorization: 'Bearer abc' }, body: '{"name":"é"}' });
    assert.equal(answer.status, 200);
    assert.equal(answer.ok, true);
    const echoed = JSON.parse(answer.text);
    assert.equal(echoed.method, 'PUT');
    assert.equal(echoed.url, '/api/echo?a=1&b=%C3%A9');
    assert.equal(echoed.headers.authorization, 'Bearer abc');
    assert.equal(echoed.headers['content-length'], String(Buffer.byteLength('{"name":"é"}')));
    assert.equal(echoed.headers.host, new URL(httpUrl).host);
    assert.equal(echoed.body, '{"name":"é"}');
    const missing = await exchange(new URL(`${httpUrl}/missing`), {});
    assert.equal(missing.status, 404);
    assert.equal(missing.ok, false);
    assert.equal(JSON.parse(missing.text).method, 'GET');
  });

  test('a chunked answer written in pieces, multi-byte characters across them, reads as one text', async () => {
    const answer = await exchange(new URL(`${httpUrl}/chunked`), {});
    assert.equal(answer.text, `grüß dich — ${'x'.repeat(70_000)}`);
  });

  /** A raw server that answers each connection with `respond` once the request's head is in. */
  async function rawServer(respond: (socket: Socket) => void): Promise<{ url: URL; server: NetServer; sockets: Socket[] }> {
    const sockets: Socket[] = [];
    const server = createNetServer((socket) => {
      sockets.push(socket);
      let head = '';
      socket.on('data', (c) => {
        const had = head.includes('\r\n\r\n');
        head += c.toString('latin1');
        if (!had && head.includes('\r\n\r\n')) respond(socket);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/x`), server, sockets };
  }

  const closeRaw = ({ server, sockets }: { server: NetServer; sockets: Socket[] }) => {
    for (const s of sockets) s.destroy();
    return new Promise((resolve) => server.close(resolve));
  };

  test('property: an answer split anywhere, length-framed or chunked, reads the same; a length-framed one ends without waiting for the close', async () => {
    let plan: { wire: Buffer[] } = { wire: [] };
    // the server never closes: only the framing can end the answer
    const raw = await rawServer((socket) => {
      const pieces = [...plan.wire];
      const next = () => {
        const piece = pieces.shift();
        if (piece) socket.write(piece, () => setImmediate(next));
      };
      next();
    });
    try {
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 5 }), async (text, isChunked, offsets) => {
          const body = Buffer.from(text, 'utf8');
          const head = bytes(`HTTP/1.1 200 OK\r\n${isChunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`}\r\n\r\n`);
          const message = Buffer.concat([head, isChunked ? chunked(cut(body, offsets)) : body]);
          plan = { wire: cut(message, offsets.map((o) => o * 7)) };
          const answer = await exchange(raw.url, { timeoutMs: 5000 });
          assert.equal(answer.text, text);
        }),
        { seed: SEED, numRuns: 40 },
      );
    } finally {
      await closeRaw(raw);
    }
  });

  test('an answer with no length ends at the close; one cut short, or a close before any answer, is an error that says so', async () => {
    for (const [wire, expected] of [
      ['HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end', 'until the end'],
      ['HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort', /in the middle of its answer/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n', /in the middle of its answer/],
      ['', /before it answered/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nab', /not a length/],
    ] as const) {
      const raw = await rawServer((socket) => socket.end(wire));
      try {
        const result = exchange(raw.url, { timeoutMs: 5000 });
        if (typeof expected === 'string') assert.equal((await result).text, expected);
        else await assert.rejects(result, expected);
      } finally {
        await closeRaw(raw);
      }
    }
  });

  test('a server that never answers: rejected after the timeout; a closed port: ECONNREFUSED; a bad header: refused before connecting', async () => {
    const silent = await rawServer(() => undefined);
    try {
      await assert.rejects(exchange(silent.url, { timeoutMs: 200 }), /no answer within 0\.2 s/);
    } finally {
      await closeRaw(silent);
    }
    const port = await freePort();
    await assert.rejects(exchange(new URL(`http://127.0.0.1:${port}/`), {}), { code: 'ECONNREFUSED' });
    let connected = false;
    const watched = await rawServer(() => (connected = true));
    try {
      await assert.rejects(exchange(watched.url, { headers: { authorization: 'Bearer a\r\nX-Evil: 1' } }), InvalidHeaderError);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(connected, false);
      assert.equal(watched.sockets.length, 0, 'no connection was opened');
    } finally {
      await closeRaw(watched);
    }
  });

  test('IPv6 loopback: the brackets are the URL\'s, not the address\'s', async (t) => {
    const v6 = createHttpServer((_req, res) => res.end('six'));
    const listening = await new Promise<boolean>((resolve) => {
      v6.once('error', () => resolve(false));
      v6.listen(0, '::1', () => resolve(true));
    });
    if (!listening) return t.skip('no IPv6 loopback on this machine');
    try {
      const answer = await exchange(new URL(`http://[::1]:${(v6.address() as { port: number }).port}/`), {});
      assert.equal(answer.text, 'six');
    } finally {
      v6.close();
    }
  });
});
