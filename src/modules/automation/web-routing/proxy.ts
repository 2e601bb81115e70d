// The web-routing proxy: a local HTTP forward proxy that applies the rules to every request sent through it.
//
//   startRoutingProxy({ port: 3458, host: '127.0.0.1', rules })      (port 3458 is DEFAULT_PROXY_PORT)
//   curl -x http://127.0.0.1:3458 http://localhost:5173/api/users/1
//   HTTP_PROXY=http://127.0.0.1:3458 <dev server / test runner>
//
// - `http://` requests in absolute form (`GET http://host/path HTTP/1.1`, what clients send to a proxy) are matched
//   and then blocked, mocked, redirected, or forwarded (rewritten and/or transformed) to the upstream.
// - `https://` through the proxy uses CONNECT: the proxy opens a plain TCP tunnel and does NOT intercept (no TLS
//   man-in-the-middle, no certificates to trust), so rules do not apply to it. HTTPS rules apply in the controlled
//   browser (browser.ts), where interception happens before TLS. A rewrite may still send an http request to an
//   https:// upstream.
// - Origin-form requests (`GET /path`, i.e. the proxy used as a server) are forwarded to `upstream` when that
//   option is set (a dev server can point its API base URL at the proxy); otherwise they get 400 NOT_A_PROXY_REQUEST.
// - Answers of its own are JSON `{"error": CODE, "message": …}`: 403 BLOCKED_BY_RULE (block rules; status
//   configurable per rule), 502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT, 508 LOOP_DETECTED (a rule sent the request
//   back into the proxy), 413 PAYLOAD_TOO_LARGE (a body the rules must read is over `maxBodyBytes`).
// - Every response a rule touched carries `x-web-routing: <type>#<id>, …`.
// - Body replacements (`--replace`) apply to textual bodies (text/*, JSON, JavaScript, XML, SVG, form data, or no
//   content type) in UTF-8; the proxy asks the upstream for an uncompressed body (`accept-encoding: identity`) and
//   decompresses gzip/deflate/br if it gets one anyway. Bodies over `maxBodyBytes` pass through unchanged.
// - Listens on 127.0.0.1 by default; connections, bodies and upstream waits are bounded.
import http from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import type { ErrorBody } from '../../../core/errors.ts';
import { toMatchRequest } from './pattern.ts';
import {
  APPLIED_HEADER,
  appliedHeaderValue,
  applyHeaderOps,
  applyReplacements,
  isTextualContentType,
  type BodyEdits,
  type Plan,
  type RuleSource,
} from './rules.ts';

export const DEFAULT_PROXY_PORT = 3458;
const VIA = 'svc-web-routing';

export interface RoutingProxyOptions {
  rules: RuleSource;
  /** default 3458; 0 picks a free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** base URL that origin-form requests (`GET /path`) are forwarded to; without it they get 400 */
  upstream?: string;
  /** time to wait for upstream response headers, default 30 s */
  upstreamTimeoutMs?: number;
  /** largest body buffered for templates or replacements, default 10 MiB */
  maxBodyBytes?: number;
  /** default 1024 */
  maxConnections?: number;
  /** apply rules? (false: plain forward proxy, for benchmarks) default true */
  intercept?: boolean;
}

export interface RoutingProxy {
  readonly host: string;
  readonly port: number;
  /** http://host:port */
  readonly url: string;
  readonly server: http.Server;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

type Headers = Record<string, string | string[] | undefined>;

function stripHopByHop(headers: http.IncomingHttpHeaders): Headers {
  const out: Headers = {};
  const conn = headers.connection;
  const extra = conn ? conn.toLowerCase().split(',').map((s) => s.trim()) : null;
  for (const k in headers) {
    if (HOP_BY_HOP.has(k) || (extra !== null && extra.includes(k))) continue;
    out[k] = headers[k];
  }
  return out;
}

/** The proxy's own answers are errors in the service's one shape, with a code from its one list. */
function sendJson(res: http.ServerResponse, status: number, body: ErrorBody, extra: Headers = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...extra,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

interface Collected {
  chunks: Buffer[];
  size: number;
  /** true: stopped at the limit; the stream is paused with the rest unread */
  overflow: boolean;
}

function collect(stream: Readable, limit: number): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (overflow: boolean) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      resolve({ chunks, size, overflow });
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size > limit) {
        stream.pause();
        done(true);
      }
    };
    const onEnd = () => done(false);
    const onError = (e: Error) => {
      stream.off('data', onData).off('end', onEnd);
      reject(e);
    };
    stream.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

async function decode(buf: Buffer, encoding: string | undefined, limit: number): Promise<Buffer | null> {
  const enc = (encoding ?? '').trim().toLowerCase();
  const opts = { maxOutputLength: limit };
  if (enc === '' || enc === 'identity') return buf;
  // node:zlib loads with the first compressed body the proxy edits, not with every start
  const zlib = await import('node:zlib');
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(buf, opts);
    if (enc === 'br') return zlib.brotliDecompressSync(buf, opts);
    if (enc === 'deflate') {
      try {
        return zlib.inflateSync(buf, opts);
      } catch {
        return zlib.inflateRawSync(buf, opts);
      }
    }
  } catch {
    return null;
  }
  return null; // unknown encoding: leave the body alone
}

export function startRoutingProxy(options: RoutingProxyOptions): Promise<RoutingProxy> {
  const host = options.host ?? '127.0.0.1';
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 30_000;
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const intercept = options.intercept ?? true;
  const upstreamBase = options.upstream ? new URL(options.upstream) : null;
  const agentOptions = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 };
  const httpAgent = new http.Agent(agentOptions);
  // node:https (and with it node:tls) loads with the first https upstream, not with every start
  let https: Promise<{ module: typeof import('node:https'); agent: HttpsAgent }> | undefined;
  const httpsClient = () => (https ??= import('node:https').then((module) => ({ module, agent: new module.Agent(agentOptions) })));
  const sockets = new Set<net.Socket>();
  let selfPort = 0;

  const isSelf = (u: URL) =>
    Number(u.port || (u.protocol === 'https:' ? 443 : 80)) === selfPort &&
    (u.hostname === host || u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]');

  const server = http.createServer({ keepAliveTimeout: 5_000, headersTimeout: 30_000, requestTimeout: 300_000 });
  server.maxConnections = options.maxConnections ?? 1024;

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.once('close', () => sockets.delete(socket));
  });

  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  server.on('request', (req, res) => {
    handle(req, res).catch((err: unknown) => {
      sendJson(res, 502, { error: 'PROXY_ERROR', message: `web-routing proxy failed: ${(err as Error)?.message ?? err}` });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    let target: URL;
    try {
      if (rawUrl.startsWith('http://') || rawUrl.startsWith('https://')) target = new URL(rawUrl);
      else if (upstreamBase && rawUrl.startsWith('/')) target = new URL(rawUrl, upstreamBase);
      else {
        sendJson(res, 400, {
          error: 'NOT_A_PROXY_REQUEST',
          message:
            `This is the svc web-routing HTTP proxy. Send requests through it as a proxy, e.g. ` +
            `curl -x http://${host}:${selfPort} http://localhost:8080/path (https:// goes through CONNECT, uninspected).`,
        });
        return;
      }
    } catch {
      sendJson(res, 400, { error: 'INVALID_URL', message: `Cannot parse the request URL '${rawUrl.slice(0, 200)}'.` });
      return;
    }
    const via = req.headers.via;
    if ((via !== undefined && via.includes(VIA)) || isSelf(target)) {
      sendJson(res, 508, {
        error: 'LOOP_DETECTED',
        message: `The request for ${target.href} came back into the web-routing proxy; check redirect/rewrite targets.`,
      });
      return;
    }
    const method = req.method ?? 'GET';
    const plan: Plan = intercept
      ? options.rules.current().plan(toMatchRequest(method, target, req.headers))
      : { action: 'pass', applied: [] };
    const appliedHeader: Headers = plan.applied.length ? { [APPLIED_HEADER]: appliedHeaderValue(plan.applied) } : {};

    switch (plan.action) {
      case 'block':
        req.resume();
        res.writeHead(plan.status, { ...plan.headers, ...appliedHeader, 'content-length': Buffer.byteLength(plan.body) });
        res.end(plan.body);
        return;
      case 'redirect':
        req.resume();
        res.writeHead(plan.status, { location: plan.location, 'content-length': 0, ...appliedHeader });
        res.end();
        return;
      case 'mock': {
        let requestBody: string | undefined;
        if (plan.needsRequestBody) {
          const got = await collect(req, maxBodyBytes);
          if (got.overflow) return tooLarge(req, res);
          requestBody = Buffer.concat(got.chunks, got.size).toString('utf8');
        } else req.resume();
        const body = plan.body(requestBody);
        res.writeHead(plan.status, { ...plan.headers, ...appliedHeader, 'content-length': Buffer.byteLength(body) });
        res.end(method === 'HEAD' ? undefined : body);
        return;
      }
      case 'pass':
        return forward(req, res, target, false, null, null, appliedHeader);
      case 'forward': {
        let to = target;
        if (plan.rewritten) {
          to = new URL(plan.url);
          if (isSelf(to)) {
            req.resume();
            sendJson(res, 508, { error: 'LOOP_DETECTED', message: `A rewrite sends ${target.href} to the proxy itself (${to.href}).` });
            return;
          }
        }
        return forward(req, res, to, to.host !== target.host, plan.request, plan.response, appliedHeader);
      }
    }
  }

  function tooLarge(req: http.IncomingMessage, res: http.ServerResponse): void {
    sendJson(
      res,
      413,
      { error: 'PAYLOAD_TOO_LARGE', message: `The request body is over ${maxBodyBytes} bytes, the most a web-routing rule may read.` },
      { connection: 'close' },
    );
    req.destroy();
  }

  async function forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    to: URL,
    newHost: boolean,
    reqEdits: BodyEdits | null,
    resEdits: BodyEdits | null,
    appliedHeader: Headers,
  ): Promise<void> {
    let headers = stripHopByHop(req.headers);
    if (newHost) headers.host = to.host;
    if (reqEdits !== null && reqEdits.headerOps.length) headers = applyHeaderOps(headers, reqEdits.headerOps) as Headers;
    headers.via = via(req);
    const replaceResponse = resEdits !== null && resEdits.replace.length > 0;
    if (replaceResponse) headers['accept-encoding'] = 'identity';

    let body: Buffer | null = null;
    if (reqEdits !== null && reqEdits.replace.length) {
      const got = await collect(req, maxBodyBytes);
      if (got.overflow) return tooLarge(req, res);
      body = Buffer.concat(got.chunks, got.size);
      if (body.length && isTextualContentType(req.headers['content-type']) && !req.headers['content-encoding']) {
        body = Buffer.from(applyReplacements(body.toString('utf8'), reqEdits.replace), 'utf8');
      }
      headers['content-length'] = String(body.length);
    }

    const secure = to.protocol === 'https:';
    const hostname = to.hostname.startsWith('[') ? to.hostname.slice(1, -1) : to.hostname;
    const client = secure ? await httpsClient() : { module: http, agent: httpAgent };
    const upReq = client.module.request({
      method: req.method,
      hostname,
      port: to.port || (secure ? 443 : 80),
      path: to.pathname + to.search,
      headers: headers as http.OutgoingHttpHeaders,
      agent: client.agent,
      timeout: upstreamTimeoutMs,
      servername: secure && !net.isIP(hostname) ? hostname : undefined,
    });

    let responded = false;
    upReq.on('timeout', () => {
      upReq.destroy(Object.assign(new Error('timeout'), { code: 'UPSTREAM_TIMEOUT' }));
    });
    upReq.on('error', (err: NodeJS.ErrnoException) => {
      if (responded || res.headersSent) {
        res.destroy();
        return;
      }
      responded = true;
      if (err.code === 'UPSTREAM_TIMEOUT') {
        sendJson(res, 504, { error: 'UPSTREAM_TIMEOUT', message: `${to.host} did not answer within ${upstreamTimeoutMs} ms.` }, appliedHeader);
      } else {
        sendJson(res, 502, { error: 'UPSTREAM_ERROR', message: `Cannot reach ${to.host}: ${err.code ?? err.message}` }, appliedHeader);
      }
    });
    res.on('close', () => {
      if (!res.writableFinished) upReq.destroy();
    });

    upReq.on('response', (upRes) => {
      responded = true;
      upReq.setTimeout(0);
      void respond(req, res, upRes, resEdits, appliedHeader).catch(() => res.destroy());
    });

    if (body !== null) upReq.end(body);
    else req.pipe(upReq);
  }

  async function respond(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    upRes: http.IncomingMessage,
    resEdits: BodyEdits | null,
    appliedHeader: Headers,
  ): Promise<void> {
    const status = upRes.statusCode ?? 502;
    let headers = stripHopByHop(upRes.headers);
    if (resEdits !== null && resEdits.headerOps.length) headers = applyHeaderOps(headers, resEdits.headerOps) as Headers;
    Object.assign(headers, appliedHeader);

    const bodyless = req.method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
    if (resEdits === null || resEdits.replace.length === 0 || bodyless || !isTextualContentType(upRes.headers['content-type'])) {
      res.writeHead(status, upRes.statusMessage, headers as http.OutgoingHttpHeaders);
      upRes.pipe(res);
      return;
    }
    const declared = Number(upRes.headers['content-length'] ?? NaN);
    if (declared > maxBodyBytes) {
      res.writeHead(status, upRes.statusMessage, { ...headers, 'x-web-routing-skipped': 'body-too-large' } as http.OutgoingHttpHeaders);
      upRes.pipe(res);
      return;
    }
    const got = await collect(upRes, maxBodyBytes);
    if (got.overflow) {
      res.writeHead(status, upRes.statusMessage, { ...headers, 'x-web-routing-skipped': 'body-too-large' } as http.OutgoingHttpHeaders);
      for (const c of got.chunks) res.write(c);
      upRes.pipe(res);
      upRes.resume();
      return;
    }
    const raw = Buffer.concat(got.chunks, got.size);
    const plain = await decode(raw, headers['content-encoding'] as string | undefined, maxBodyBytes);
    if (plain === null) {
      res.writeHead(status, upRes.statusMessage, { ...headers, 'x-web-routing-skipped': 'unknown-encoding' } as http.OutgoingHttpHeaders);
      res.end(raw);
      return;
    }
    const out = Buffer.from(applyReplacements(plain.toString('utf8'), resEdits.replace), 'utf8');
    delete headers['content-encoding'];
    headers['content-length'] = String(out.length);
    res.writeHead(status, upRes.statusMessage, headers as http.OutgoingHttpHeaders);
    res.end(out);
  }

  function via(req: http.IncomingMessage): string {
    const mine = `${req.httpVersion} ${VIA}`;
    return req.headers.via ? `${req.headers.via}, ${mine}` : mine;
  }

  // HTTPS (and any other CONNECT): a plain tunnel, no interception.
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    if (!m) {
      client.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const tHost = m[1]!.replace(/^\[|\]$/g, '');
    const tPort = Number(m[2]);
    if (tPort === selfPort && (tHost === host || tHost === 'localhost' || tHost === '127.0.0.1' || tHost === '::1')) {
      client.end('HTTP/1.1 508 Loop Detected\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect({ host: tHost, port: tPort });
    let connected = false;
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.setTimeout(upstreamTimeoutMs, () => {
      if (!connected) upstream.destroy(new Error('connect timeout'));
    });
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\nproxy-agent: svc-web-routing\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!connected && client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      if (connected) client.destroy();
    });
  });

  // WebSocket upgrades through the proxy are not supported (they need CONNECT); refuse instead of hanging.
  server.on('upgrade', (_req, socket: net.Socket) => {
    socket.end('HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PROXY_PORT, host, () => {
      server.off('error', reject);
      const addr = server.address() as net.AddressInfo;
      selfPort = addr.port;
      let closing: Promise<void> | null = null;
      resolve({
        host,
        port: addr.port,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`,
        server,
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            for (const s of sockets) s.destroy();
            httpAgent.destroy();
            void https?.then(({ agent }) => agent.destroy());
          });
          return closing;
        },
      });
    });
  });
}
