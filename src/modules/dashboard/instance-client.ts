// HTTP calls from the manager to one instance's public API, always with the instance's token: the
// manager never relies on an instance trusting loopback callers. node:http(s) rather than fetch: an
// instance on HTTPS that the manager knows the certificate of (one it started) is reached with that
// certificate pinned (src/core/tls.ts), which fetch cannot do; any other https one is verified as usual
// (the system's CAs and NODE_EXTRA_CA_CERTS).
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { AppError, isErrorCode } from '../../core/errors.ts';
import { connectionOptions, isCertificateRefusal, PinMismatchError, type Connect } from '../../core/tls.ts';

/** One event of an instance's stream, however it is read (its GET /api/events, or a fleet machine's JetStream). */
export interface Frame {
  id?: string;
  data: Record<string, unknown>;
}

export interface ReaderHandlers {
  onOpen(): void;
  onFrame(frame: Frame): void;
  /** The stream ended or could not open (`status` when the server answered with an error). */
  onEnd(reason: string, status?: number): void;
}

export interface Reader {
  close(): void;
}

export interface Target {
  url: string;
  token: string | null;
  /** The fingerprint of the certificate an https instance must present, when the manager knows it. */
  pin?: string;
  /** How to open a connection to it when it is not a TCP connection to `url` (a fleet machine's tunnel over NATS). */
  connect?: () => Duplex;
  /** How to read its events when not from its GET /api/events (a fleet machine's, from the hub's JetStream). */
  events?: (handlers: ReaderHandlers) => Reader;
}

/** The connection options of a request (or a `ws` client) to the instance; `url` when it is not target.url itself. */
export function connectionFor(target: Pick<Target, 'url' | 'pin' | 'connect'>, url: URL | string = target.url): ReturnType<typeof connectionOptions> {
  // node:http and ws use any Duplex handed back by createConnection as the socket (their types say net.Socket)
  return target.connect ? { createConnection: target.connect as unknown as Connect } : connectionOptions(url, target.pin);
}

export const authHeaders = (token: string | null): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

interface Answer {
  status: number;
  ok: boolean;
  headers: IncomingHttpHeaders;
  /** The body as it streams (for relaying); read it this way or through text(), not both. */
  body: IncomingMessage;
  /** The rest of the body as text (rejects when the signal fires or the stream breaks first). */
  text(): Promise<string>;
}

/** One request to an instance; resolves once the answer's head arrived. */
export function send(target: Pick<Target, 'url' | 'pin' | 'connect'>, path: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal: AbortSignal }): Promise<Answer> {
  const url = new URL(path, target.url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, { method: init.method ?? 'GET', headers: init.headers, signal: init.signal, ...connectionFor(target, url) }, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      resolve({
        status,
        ok: status >= 200 && status < 300,
        headers: response.headers,
        body: response,
        async text() {
          const chunks: Buffer[] = [];
          for await (const chunk of response) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      });
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/**
 * Why an instance could not be reached, for people. A certificate that failed the usual verification
 * (one the manager has no pin for) says what to do about it; a pin mismatch says so itself.
 */
export function reachError(err: unknown): string {
  const message = (err as Error).message;
  if (!isCertificateRefusal(err) || err instanceof PinMismatchError) return message;
  return `its certificate was refused: ${message}; if it is made with a private CA (mkcert), start the manager with NODE_EXTRA_CA_CERTS=<that CA's certificate>`;
}

/** GET/POST JSON on an instance; an unreachable instance or an error answer is an AppError naming it. */
export async function callInstance<T>(target: Target, path: string, init: { method?: string; body?: unknown; timeoutMs?: number } = {}): Promise<T> {
  const signal = AbortSignal.timeout(init.timeoutMs ?? 5000);
  let response: Answer;
  let text: string;
  try {
    response = await send(target, path, {
      method: init.method ?? 'GET',
      headers: { ...authHeaders(target.token), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal,
    });
    text = await response.text();
  } catch (err) {
    throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not answer (${reachError(err)}). Check that it runs.`);
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the message
  }
  if (!response.ok) {
    const detail = typeof body === 'object' && body && 'message' in body ? String((body as { message: unknown }).message) : text.slice(0, 200);
    const code = typeof body === 'object' && body && 'error' in body ? (body as { error: unknown }).error : undefined;
    // The instance's refusal of what was asked (an unknown session, a bad value) is the caller's
    // answer, with its status; a refusal of the manager's own credentials (401) or a fault of the
    // instance (5xx) is a failure of this hop.
    if (response.status >= 400 && response.status < 500 && response.status !== 401) {
      throw new AppError(response.status, isErrorCode(code) ? code : 'BAD_REQUEST', `The instance at ${target.url} answered: ${detail}`, { upstreamStatus: response.status });
    }
    throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} answered ${response.status} to ${path}: ${detail}`, { upstreamStatus: response.status });
  }
  return body as T;
}

export interface InstanceFacts {
  version: string;
  uptimeMs: number;
  home: string;
  pid: number;
  busy: boolean;
  pending: number;
  provider: string;
  model: string;
  workingDir: string;
}

/** What the row shows, read in two calls (runtime and session). */
export async function readFacts(target: Target, timeoutMs = 3000): Promise<InstanceFacts> {
  const [runtime, session] = await Promise.all([
    callInstance<{ version: string; uptimeMs: number; home: string; pid: number; agent: { busy: boolean; pending: number; total?: number } }>(target, '/api/runtime', { timeoutMs }),
    callInstance<{ provider: string; model: string; workingDir: string }>(target, '/api/session', { timeoutMs }),
  ]);
  return {
    version: runtime.version,
    uptimeMs: runtime.uptimeMs,
    home: runtime.home,
    pid: runtime.pid,
    busy: runtime.agent.busy,
    // the instance's whole queue (its `pending` counts its active chat session's only; an older one has no total)
    pending: runtime.agent.total ?? runtime.agent.pending,
    provider: session.provider,
    model: session.model,
    workingDir: session.workingDir,
  };
}

/** Whether an svc core server answers on this URL (its open liveness route), within the timeout. */
export async function probeHealth(url: string, timeoutMs: number, pin?: string): Promise<{ version: string; uptimeMs: number } | null> {
  try {
    const response = await send({ url, pin }, '/api/health', { signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    if (!response.ok) return null;
    const body = JSON.parse(text) as { ok?: unknown; version?: unknown; uptimeMs?: unknown };
    return body.ok === true && typeof body.version === 'string' ? { version: body.version, uptimeMs: Number(body.uptimeMs) } : null;
  } catch {
    return null;
  }
}

export interface SendOutcome {
  status: string;
  text: string;
  messageId?: number;
  traceId?: string;
  reason?: string;
}

/**
 * Sends a prompt (POST /api/message) and follows the NDJSON answer to its `done` line. `onAccepted`
 * runs once the instance took the message (the answer's headers), before the agent has answered.
 */
export async function sendPrompt(target: Target, prompt: string, opts: { timeoutMs: number; signal?: AbortSignal; onAccepted?: () => void }): Promise<SendOutcome> {
  const response = await send(target, '/api/message', {
    method: 'POST',
    headers: { ...authHeaders(target.token), 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
    signal: opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs),
  });
  if (!response.ok) {
    const text = await response.text();
    throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} refused the message (${response.status}): ${text.slice(0, 200)}`);
  }
  opts.onAccepted?.();
  const lines = (await response.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const done = lines.find((l) => l.type === 'done');
  if (!done) throw new AppError(502, 'INSTANCE_UNREACHABLE', `The answer of ${target.url} ended without a done line.`);
  return {
    status: String(done.status),
    text: String(done.text ?? ''),
    ...(typeof done.messageId === 'number' ? { messageId: done.messageId } : {}),
    ...(typeof done.traceId === 'string' ? { traceId: done.traceId } : {}),
    ...(typeof done.reason === 'string' ? { reason: done.reason } : {}),
  };
}

/**
 * Hands a prompt to an instance (POST /api/message) without waiting for its run: resolves with the
 * request id the instance names in its answer's headers, then hangs up (the run goes on; its
 * `agent_done` carries the same request id).
 */
export async function dispatchPrompt(target: Target, prompt: string, timeoutMs = 10_000): Promise<{ requestId: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await send(target, '/api/message', {
      method: 'POST',
      headers: { ...authHeaders(target.token), 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
      signal: controller.signal,
    });
    const header = response.headers['x-request-id'];
    const requestId = typeof header === 'string' ? header : undefined;
    if (!response.ok || !requestId) {
      const text = await response.text();
      throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} refused the message (${response.status}): ${text.slice(0, 200)}`);
    }
    return { requestId };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(502, 'INSTANCE_UNREACHABLE', `The instance at ${target.url} did not take the message (${reachError(err)}). Check that it runs.`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
