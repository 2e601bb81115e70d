// One request to a plain-http server over a connection of its own, the whole answer read back. Loading
// node:http (its parser, agent, client and server modules) was about 8 ms of the 60 that `svc status`
// and `svc token` take, and every one-shot command an agent runs from its shell paid it; node:net, which
// node:http is built on, costs a fraction of that. The messages are src/cli/http1-message.ts's. An https
// server and a streamed answer (`svc chat`) still go through node:http(s) (src/cli/http-client.ts).
import { dechunk, framingOf, parseHead, serializeRequest, type Framing } from './http1-message.ts';
import type { RequestOptions, TextResponse } from './http-types.ts';

export async function exchange(target: URL, options: RequestOptions): Promise<TextResponse> {
  const message = serializeRequest({
    method: options.method ?? 'GET',
    path: `${target.pathname}${target.search}`,
    host: target.host,
    headers: options.headers ?? {},
    body: options.body,
  });
  const { connect } = await import('node:net');
  const socket = connect({ host: target.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(target.port || 80) });
  return new Promise<TextResponse>((resolve, reject) => {
    const answer = new AnswerReader();
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.on('error', fail);
    const { timeoutMs } = options;
    if (timeoutMs) socket.setTimeout(timeoutMs, () => fail(new Error(`no answer within ${timeoutMs / 1000} s`)));
    const settle = (read: () => TextResponse | undefined) => {
      try {
        const response = read();
        if (!response) return;
        socket.destroy();
        resolve(response);
      } catch (err) {
        fail(err as Error);
      }
    };
    socket.on('data', (chunk: Buffer) => settle(() => answer.add(chunk)));
    socket.on('end', () => settle(() => answer.end()));
    // not end(): a half-closed request is one some servers and proxies take as abandoned
    socket.write(message);
  });
}

/** The bytes of one answer as they arrive, and the response once its framing says it is whole. */
class AnswerReader {
  private chunks: Buffer[] = [];
  private received = 0;
  private status = 0;
  private framing: Framing | undefined;
  /** The last bytes seen, where a chunked body's end shows. */
  private tail = '';

  add(chunk: Buffer): TextResponse | undefined {
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (!this.framing) {
      if (!this.readHead()) return undefined;
    } else {
      this.tail = (this.tail + chunk.toString('latin1', Math.max(0, chunk.length - 4))).slice(-4);
    }
    return this.whole();
  }

  /** The response, once the body its framing announces is all here. */
  private whole(): TextResponse | undefined {
    const framing = this.framing!;
    if (framing.kind === 'length') return this.received >= framing.length ? this.response(this.body().subarray(0, framing.length)) : undefined;
    // a chunked body ends with an empty line; only then is it worth decoding
    const body = framing.kind === 'chunked' && this.tail === '\r\n\r\n' ? dechunk(this.body()) : undefined;
    return body && this.response(body);
  }

  /** The server closed the connection: the answer is whole only if its framing says so. */
  end(): TextResponse {
    if (!this.framing) throw new Error('the server closed the connection before it answered');
    const body = this.framing.kind === 'close' ? this.body() : this.framing.kind === 'chunked' ? dechunk(this.body()) : undefined;
    if (!body) throw new Error('the server closed the connection in the middle of its answer');
    return this.response(body);
  }

  private readHead(): boolean {
    const bytes = this.body();
    const head = parseHead(bytes);
    if (!head) return false;
    this.status = head.status;
    this.framing = framingOf(head);
    const rest = bytes.subarray(head.bodyStart);
    this.chunks = [rest];
    this.received = rest.length;
    this.tail = rest.toString('latin1', Math.max(0, rest.length - 4));
    return true;
  }

  private body(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private response(body: Buffer): TextResponse {
    return { status: this.status, ok: this.status >= 200 && this.status < 300, text: body.toString('utf8') };
  }
}
