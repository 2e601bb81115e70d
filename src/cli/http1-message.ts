// HTTP/1.1 messages as bytes, for the CLI's one-shot requests (src/cli/http1-exchange.ts): the request
// written, and the response read back. Pure functions: the socket is the caller's.

export interface OutgoingRequest {
  method: string;
  /** The path and query, as the URL has them. */
  path: string;
  /** The Host header: the URL's host, port included when not the default. */
  host: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** A header's name or value that would end the header or the head early (CR, LF, NUL) or is not Latin-1. */
const UNSAFE_NAME = /[^!#$%&'*+.^_`|~0-9A-Za-z-]/;
const UNSAFE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export class InvalidHeaderError extends Error {}

/** The request's head and body as one buffer; `Connection: close`, so the server's closing ends the answer. */
export function serializeRequest(request: OutgoingRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const headers: [string, string][] = [['Host', request.host], ...Object.entries(request.headers), ['Connection', 'close']];
  if (body) headers.push(['Content-Length', String(body.length)]);
  const lines = headers.map(([name, value]) => {
    if (!name || UNSAFE_NAME.test(name)) throw new InvalidHeaderError(`the header name '${name}' is not a valid HTTP token`);
    if (UNSAFE_VALUE.test(value)) throw new InvalidHeaderError(`the value of the header '${name}' holds a character a header cannot carry`);
    return `${name}: ${value}\r\n`;
  });
  const head = Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\n${lines.join('')}\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}

export interface ResponseHead {
  status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  headers: Map<string, string>;
  /** Where the body begins in the bytes the head was read from. */
  bodyStart: number;
}

export class MalformedResponseError extends Error {}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** A head longer than this is refused rather than buffered on (Node's own parser stops at 16 KB). */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * The final response head at the start of `bytes` (1xx interim heads skipped), or undefined while it has
 * not all arrived.
 */
export function parseHead(bytes: Buffer): ResponseHead | undefined {
  for (let start = 0; ; ) {
    const end = bytes.indexOf(HEAD_END, start);
    if (end < 0) {
      if (bytes.length - start > MAX_HEAD_BYTES) throw new MalformedResponseError(`the response head is longer than ${MAX_HEAD_BYTES} bytes`);
      return undefined;
    }
    const [statusLine = '', ...fields] = bytes.toString('latin1', start, end).split('\r\n');
    const status = /^HTTP\/1\.[01] ([1-5]\d\d)(?: .*)?$/.exec(statusLine)?.[1];
    if (!status) throw new MalformedResponseError(`not an HTTP/1.1 response: '${statusLine.slice(0, 80)}'`);
    const head = { status: Number(status), headers: headerMap(fields), bodyStart: end + HEAD_END.length };
    // 100 Continue, 103 Early Hints: a final answer follows (101 would switch protocols, never asked for here)
    if (head.status >= 200 || head.status === 101) return head;
    start = head.bodyStart;
  }
}

function headerMap(fields: string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (const field of fields) {
    const colon = field.indexOf(':');
    if (colon <= 0) throw new MalformedResponseError(`a malformed header line: '${field.slice(0, 80)}'`);
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field.slice(colon + 1).trim();
    const before = headers.get(name);
    headers.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return headers;
}

/** How the body's end is known: a length, the last chunk, or the connection's close. */
export type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' };

export function framingOf(head: ResponseHead): Framing {
  if (head.status === 204 || head.status === 304) return { kind: 'length', length: 0 };
  const encoding = head.headers.get('transfer-encoding');
  if (encoding !== undefined) {
    if (/(?:^|,)\s*chunked\s*$/i.test(encoding)) return { kind: 'chunked' };
    return { kind: 'close' };
  }
  const length = head.headers.get('content-length');
  if (length === undefined) return { kind: 'close' };
  if (!/^\d{1,15}$/.test(length)) throw new MalformedResponseError(`a Content-Length that is not a length: '${length.slice(0, 40)}'`);
  return { kind: 'length', length: Number(length) };
}

/**
 * A chunked body decoded, or undefined while its last chunk has not arrived. Chunk extensions and
 * trailers are read past and dropped.
 */
export function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const lineEnd = bytes.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return undefined;
    const sizeText = bytes.toString('latin1', at, lineEnd).split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new MalformedResponseError(`a malformed chunk size: '${sizeText.slice(0, 40)}'`);
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // the last chunk's line, any trailer lines, then the empty line that ends the body
      return bytes.indexOf(HEAD_END, lineEnd) >= 0 ? Buffer.concat(parts) : undefined;
    }
    const dataStart = lineEnd + 2;
    if (bytes.length < dataStart + size + 2) return undefined;
    if (bytes.toString('latin1', dataStart + size, dataStart + size + 2) !== '\r\n') throw new MalformedResponseError('a chunk is not followed by CRLF');
    parts.push(bytes.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
