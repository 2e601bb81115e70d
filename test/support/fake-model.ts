// A fake model API on 127.0.0.1:<ephemeral port> that speaks, with SSE streaming, the four wire APIs the
// vendor CLIs use: Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini. What it answers
// is chosen per request by the token `scenario:<name>` in the conversation (or the `scenario` option / the
// FAKE_SCENARIO variable): text, thinking, tool, write, error, ratelimit, overloaded, flaky, slow; plus
// resume ("Hello again …") whenever an earlier, answered prompt is in the history. See
// shared/protocols/README.md for how the real CLIs behave against it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Readable } from 'node:stream';
import {
  analyze,
  errorBody,
  errorStatus,
  findScenario,
  hexId,
  isInjectedContext,
  planAnswer,
  type Answer,
  type NormalizedRequest,
  type SseFrame,
  type WireApi,
} from './fake-model/common.ts';
import { anthropicEvents, anthropicMessage, normalizeAnthropic } from './fake-model/anthropic.ts';
import { normalizeResponses, responsesEvents, responsesObject } from './fake-model/responses.ts';
import { chatEvents, chatObject, normalizeChat } from './fake-model/chat.ts';
import { geminiEvents, geminiObject, normalizeGemini } from './fake-model/gemini.ts';

export * from './fake-model/common.ts';

export interface FakeModelOptions {
  /** Scenario for requests that name none (default: FAKE_SCENARIO, then `text`). */
  scenario?: string;
  /** Delay before each streamed chunk (default 5 ms). */
  chunkDelayMs?: number;
  /** `slow` scenario: delay per chunk (default 100 ms) and number of chunks (default 20). */
  slowDelayMs?: number;
  slowChunks?: number;
  /** Working directory for the `write` tool's absolute path (default: found in the system prompt). */
  workDir?: string;
  /** The shell command of the `tool` scenario (default `echo hello-from-tool`). */
  shellCommand?: string;
  /** Receives one log line per request (format of the recordings' `.server.log`). */
  log?: (line: string) => void;
  /** Writes every request body as `<seq>.json` into this directory (debugging). */
  dumpDir?: string;
  /**
   * What a self-hosted model server would be (svc's endpoint probe): the models its /v1/models lists (null: no such
   * route, as some servers have none); whether its models call tools; the context it says it runs with, the way
   * vLLM (in its models list), llama.cpp (GET /props) or Ollama (POST /api/show, and GET /api/tags) says it; and
   * `hang`: it takes connections and never answers; `hangModel`: it lists its models but its model never answers.
   */
  server?: { models?: string[] | null; tools?: boolean; context?: { kind: 'vllm' | 'llamacpp' | 'ollama'; tokens: number }; hang?: boolean; hangModel?: boolean };
}

export interface RequestRecord {
  seq: number;
  time: string;
  method: string;
  path: string;
  api: WireApi | 'probe' | 'count_tokens' | 'models' | 'unknown';
  model?: string;
  stream?: boolean;
  scenario?: string;
  /** HTTP status answered. */
  status: number;
  /** What was answered: `text`, `thinking+text`, `text+tool_call(Bash {...})`, `json`, `HTTP 500`, … */
  answered: string;
  /** Names of the tools the request offered. */
  tools: string[];
  lastUser?: string;
  userAgent?: string;
  /** The credential the request carried: its Authorization header, or Anthropic's x-api-key. */
  auth?: string;
  bodyLength: number;
  body?: unknown;
  /** Conversation as seen: counts of user prompts, assistant turns and tool results. */
  history?: { user: number; assistant: number; tool: number };
  /** Streamed answers: content chunks written before the stream ended or the client went away. */
  streamedChunks?: number;
  /** True when the client went away before the stream ended. */
  aborted?: boolean;
}

export interface FakeModel {
  url: string;
  port: number;
  requests: RequestRecord[];
  /** Only the model calls (no HEAD probes / count_tokens). */
  modelRequests(): RequestRecord[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
  let stream: Readable = req;
  if (enc === 'gzip') stream = req.pipe(createGunzip());
  else if (enc === 'deflate') stream = req.pipe(createInflate());
  else if (enc === 'br') stream = req.pipe(createBrotliDecompress());
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${hexId()}`, ...headers });
  res.end(text);
}

/** Streams the frames; resolves with the number of chunk frames written, and whether the client went away. */
async function sendSse(res: ServerResponse, frames: SseFrame[], delayMs: number): Promise<{ chunks: number; aborted: boolean }> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': `req_${hexId()}`,
    'request-id': `req_${hexId()}`,
  });
  res.flushHeaders();
  let closed = false;
  res.on('close', () => {
    if (!res.writableFinished) closed = true;
  });
  let chunks = 0;
  for (const f of frames) {
    if (f.chunk && delayMs > 0) await sleep(delayMs);
    if (closed || res.destroyed) return { chunks, aborted: true };
    const data = typeof f.data === 'string' ? f.data : JSON.stringify(f.data);
    res.write(`${f.event ? `event: ${f.event}\n` : ''}data: ${data}\n\n`);
    if (f.chunk) chunks++;
  }
  res.end();
  return { chunks, aborted: false };
}

type Route =
  | { api: 'anthropic' }
  | { api: 'responses' }
  | { api: 'chat' }
  | { api: 'gemini'; model: string; method: string }
  | { api: 'count_tokens' }
  | { api: 'probe' }
  | { api: 'models' }
  | { api: 'unknown' };

function route(method: string, pathname: string): Route {
  if ((method === 'HEAD' || method === 'GET') && (pathname === '/' || pathname === '')) return { api: 'probe' };
  if (method === 'GET' && pathname === '/v1/models') return { api: 'models' };
  if (method !== 'POST') return { api: 'unknown' };
  const p = pathname.replace(/^\/v1(?=\/)/, '');
  if (p === '/messages') return { api: 'anthropic' };
  if (p === '/messages/count_tokens') return { api: 'count_tokens' };
  if (p === '/responses') return { api: 'responses' };
  if (p === '/chat/completions') return { api: 'chat' };
  const g = /^\/v1(?:beta|alpha)?\/models\/([^:/]+):(\w+)$/.exec(pathname);
  if (g) return { api: 'gemini', model: decodeURIComponent(g[1]!), method: g[2]! };
  return { api: 'unknown' };
}

function normalize(r: Route, body: Record<string, any>): NormalizedRequest | undefined {
  let n: NormalizedRequest | undefined;
  if (r.api === 'anthropic') n = normalizeAnthropic(body);
  else if (r.api === 'responses') n = normalizeResponses(body);
  else if (r.api === 'chat') n = normalizeChat(body);
  else if (r.api === 'gemini' && (r.method === 'streamGenerateContent' || r.method === 'generateContent')) {
    n = normalizeGemini(body, r.model, r.method === 'streamGenerateContent');
  }
  if (!n) return undefined;
  // Context the CLI injected as a user message (codex's <environment_context>) is not a prompt.
  const injected = n.turns.filter((t) => t.role === 'user' && isInjectedContext(t.text)) as { text: string }[];
  if (injected.length) {
    n.turns = n.turns.filter((t) => !(t.role === 'user' && isInjectedContext(t.text)));
    n.system = [n.system, ...injected.map((t) => t.text)].join('\n');
  }
  return n;
}

export async function startFakeModel(opts: FakeModelOptions = {}): Promise<FakeModel> {
  const requests: RequestRecord[] = [];
  let modelCalls = 0;
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const r = route(method, url.pathname);
    const rec: RequestRecord = {
      seq: requests.length + 1,
      time: new Date().toISOString(),
      method,
      path: url.pathname + url.search,
      api: r.api,
      status: 200,
      answered: '',
      tools: [],
      userAgent: req.headers['user-agent'],
      auth: req.headers.authorization ?? (req.headers['x-api-key'] as string | undefined),
      bodyLength: raw.length,
    };
    requests.push(rec);
    let body: Record<string, any> = {};
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
        rec.body = body;
      } catch {
        rec.body = raw.toString('utf8');
      }
    }
    if (opts.dumpDir) {
      mkdirSync(opts.dumpDir, { recursive: true });
      writeFileSync(join(opts.dumpDir, `${rec.seq}.json`), JSON.stringify({ method, path: rec.path, headers: req.headers, body: rec.body }, null, 1));
    }
    const finish = () => opts.log?.(logLine(rec));
    const srv = opts.server;
    if (srv?.hang) return new Promise<void>(() => undefined);
    const context = srv?.context;
    if (context?.kind === 'llamacpp' && method === 'GET' && url.pathname === '/props') return sendJson(res, 200, { default_generation_settings: { n_ctx: context.tokens } });
    if (context?.kind === 'ollama' && method === 'POST' && url.pathname === '/api/show') return sendJson(res, 200, { parameters: `temperature 0.7\nnum_ctx ${context.tokens}`, model_info: { 'qwen3.context_length': 262144 } });
    if (context?.kind === 'ollama' && method === 'GET' && url.pathname === '/api/tags') return sendJson(res, 200, { models: (srv?.models ?? ['fake-model']).map((name) => ({ name })) });

    if (r.api === 'probe') {
      rec.answered = 'ok';
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(method === 'HEAD' ? undefined : 'ok');
      return finish();
    }
    // The OpenAI model list, for model discovery (svc's Pi profiles); none of the CLIs asks for it.
    if (r.api === 'models' && srv?.models !== null) {
      rec.answered = 'models';
      const maxLen = context?.kind === 'vllm' ? { max_model_len: context.tokens } : {};
      sendJson(res, 200, { object: 'list', data: (srv?.models ?? ['fake-model']).map((id) => ({ id, object: 'model', owned_by: 'fake', ...maxLen })) });
      return finish();
    }
    if (r.api === 'count_tokens' || (r.api === 'gemini' && r.method === 'countTokens')) {
      rec.api = 'count_tokens';
      rec.answered = 'count';
      sendJson(res, 200, r.api === 'gemini' ? { totalTokens: 100 } : { input_tokens: 100 });
      return finish();
    }
    const n = r.api === 'unknown' || r.api === 'models' ? undefined : normalize(r, body);
    if (!n) {
      rec.status = 404;
      rec.answered = 'HTTP 404';
      sendJson(res, 404, { error: { message: `fake model: no route for ${method} ${url.pathname}`, type: 'not_found' } });
      return finish();
    }
    if (srv?.hangModel) return new Promise<void>(() => undefined);
    rec.api = n.api;
    rec.model = n.model;
    rec.stream = n.stream;
    rec.tools = n.tools.map((t) => t.name);
    rec.lastUser = analyze(n.turns).lastPrompt;
    rec.history = { user: 0, assistant: 0, tool: 0 };
    for (const t of n.turns) rec.history[t.role]++;
    const scenario = findScenario(n.turns) ?? opts.scenario ?? process.env['FAKE_SCENARIO'] ?? 'text';
    rec.scenario = scenario;
    const answer: Answer = planAnswer(n, {
      scenario,
      firstCall: modelCalls++ === 0,
      chunkDelayMs: opts.chunkDelayMs ?? 5,
      slowDelayMs: opts.slowDelayMs ?? 100,
      slowChunks: opts.slowChunks ?? 20,
      ...(opts.workDir ? { workDir: opts.workDir } : {}),
      ...(opts.shellCommand ? { shellCommand: opts.shellCommand } : {}),
      ...(srv?.tools === false ? { noTools: true } : {}),
    });

    if (answer.kind === 'error') {
      rec.status = errorStatus(n.api, answer.which);
      rec.answered = `HTTP ${rec.status}`;
      sendJson(res, rec.status, errorBody(n.api, answer.which), { 'retry-after': '0', 'request-id': `req_${hexId()}` });
      return finish();
    }
    rec.answered = answer.label;
    finish();
    if (!n.stream) {
      const obj =
        n.api === 'anthropic'
          ? anthropicMessage(answer, n.model)
          : n.api === 'responses'
            ? responsesObject(answer, n.model)
            : n.api === 'chat'
              ? chatObject(answer, n.model)
              : geminiObject(answer, n.model);
      return sendJson(res, 200, obj);
    }
    const frames =
      n.api === 'anthropic'
        ? anthropicEvents(answer, n.model)
        : n.api === 'responses'
          ? responsesEvents(answer, n.model)
          : n.api === 'chat'
            ? chatEvents(answer, n.model, body['stream_options']?.['include_usage'] === true)
            : geminiEvents(answer, n.model);
    const sent = await sendSse(res, frames, answer.delayMs);
    rec.streamedChunks = sent.chunks;
    if (sent.aborted) {
      rec.aborted = true;
      const total = frames.filter((f) => f.chunk).length;
      opts.log?.(`#${rec.seq} stream aborted by the client after ${sent.chunks} of ${total} chunks`);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log?.(`handler error: ${String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake model crashed: ${String(err)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  opts.log?.(`listening on 127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelRequests: () => requests.filter((r) => r.api === 'anthropic' || r.api === 'responses' || r.api === 'chat' || r.api === 'gemini'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One request as a line like the recordings' `.server.log`. */
export function logLine(r: RequestRecord): string {
  const parts = [`#${r.seq} ${r.method} ${r.path}`, `ua=${JSON.stringify(r.userAgent ?? '')}`, `len=${r.bodyLength}`];
  if (r.model !== undefined) {
    parts.push(`api=${r.api} model=${r.model} stream=${r.stream} scenario=${r.scenario}`);
  }
  parts.push(`-> ${r.answered}`);
  if (r.model !== undefined) {
    const h = r.history;
    if (h) parts.push(`history=${h.user}u/${h.assistant}a/${h.tool}t`);
    parts.push(`tools=[${r.tools.join(',')}] last_user=${JSON.stringify(r.lastUser ?? '')}`);
  }
  return parts.join(' ');
}
