// The operations of a server's OpenAPI document, requests made from their declarations (valid ones,
// mutations of them, and inputs the route kit refuses before any handler), sending one, and what every
// answer must be. Shared by the fuzzing of test/http/fuzz.test.ts and the hostile run of
// test/http/hostile.test.ts.
import assert from 'node:assert/strict';
import http from 'node:http';
import fc from 'fast-check';
import { arbitraryOf, type JsonSchema } from './json-schema-arbitrary.ts';

/**
 * Operations whose valid inputs reach outside the server's temporary home: they start processes or
 * browsers, install packages, reach the network, or write the user's own CLI config files. The fuzz gives
 * them only inputs the route kit refuses before any handler; the hostile run gives them valid inputs with
 * each of those outside things failing.
 */
export const EXTERNAL: readonly RegExp[] = [
  /^PUT \/api\/settings$/, // agent.customCommand is a command line
  /^POST \/api\/(message|command)$/, // runs a provider CLI
  /^(POST|PUT|DELETE) \/api\/svc-ceo\//, // the executive: provider CLI runs, instance lifecycle, voice
  /^POST \/api\/skills\/install$/, // npm
  /^POST \/api\/mcp\/(install|sync)$/, // npm; the user's own CLI config files
  /^POST \/api\/pi\/profiles\/register$/, // fetches the endpoint
  /^(GET|POST|DELETE) \/api\/browser\//, // starts the browser server and Chromium
  /^(GET|POST) \/api\/vision-click/, // screenshots, the desktop
  /^POST \/api\/(goal-run|wakeup)$/, // agent runs, now or later
  /^POST \/api\/orchestrate\/(dispatch|dispatch\/batch|check)$/, // worker CLIs, the check command
  /^POST \/api\/orchestrate\/queue\//, // runs a queued message now
  /^POST \/api\/channels?\//, /^POST \/api\/chatapp[ab]\/send$/, // Telegram and Discord
  /^POST \/api\/voice$/, /^POST \/api\/svc-ceo\/voice\//, // ffmpeg, pocketsphinx
  /^POST \/api\/dashboard\/(instances|scan)/, // spawns svc, reaches URLs
  /^PUT \/api\/dashboard\/settings$/, // the scan range and ports
  /^POST \/api\/dashboard\/chat\//, // sends to instances
  /^[A-Z]+ \/i\//, // forwards to an instance
];

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  body?: JsonSchema;
  rawType?: string;
  successes: number[];
  /** The error statuses the document lists for it (not its `default`). */
  errors: number[];
  streams: boolean;
  external: boolean;
}

export interface Request {
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  rawBody?: Buffer;
  /** Sent as it is instead of JSON (a body that is not JSON). */
  text?: string;
  what: string;
}

export interface Document {
  paths: Record<string, Record<string, any>>;
  components: { schemas: { ErrorBody: { properties: { error: { enum: string[] } } } } };
}

/** The document's operations; `external` marks those whose valid inputs reach outside the server. */
export function operationsOf(document: Document, external: readonly RegExp[] = []): Operation[] {
  const out: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const statuses = Object.keys(op.responses).filter((s) => s !== 'default').map(Number);
      const successes = statuses.filter((s) => s < 400);
      if (successes.includes(101)) continue; // WebSocket endpoints: their plain GET is checked by the route tests
      const content = op.requestBody?.content ?? {};
      const rawType = Object.keys(content).find((t) => t !== 'application/json');
      const produced = Object.keys(op.responses[String(successes[0])]?.content ?? {});
      const key = `${method.toUpperCase()} ${template.replace(/\{path\}$/, '*').replace(/\{([^}]+)\}/g, ':$1')}`;
      out.push({
        method: method.toUpperCase(),
        template,
        parameters: op.parameters ?? [],
        ...(content['application/json'] ? { body: content['application/json'].schema } : {}),
        ...(rawType ? { rawType } : {}),
        successes,
        errors: statuses.filter((s) => s >= 400),
        streams: produced.some((t) => t === 'text/event-stream' || t === 'application/x-ndjson'),
        external: external.some((re) => re.test(key)),
      });
    }
  }
  return out;
}

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const CONTROL = fc.constantFrom('\u0000', '\u0007', '\u001b[2J', '\u007f');

/** A valid request of the operation (by its schemas). */
export function validRequest(op: Operation): fc.Arbitrary<Request> {
  const byPlace = (where: 'path' | 'query') => {
    const record: Record<string, fc.Arbitrary<string>> = {};
    for (const p of op.parameters.filter((p) => p.in === where)) record[p.name] = arbitraryOf(p.schema).map(asText);
    const required = op.parameters.filter((p) => p.in === where && (p.required || where === 'path')).map((p) => p.name);
    return fc.record(record, { requiredKeys: required }) as fc.Arbitrary<Record<string, string>>;
  };
  return fc.record({
    path: byPlace('path'),
    query: byPlace('query'),
    body: op.body ? arbitraryOf(op.body) : fc.constant(undefined),
    rawBody: op.rawType ? fc.uint8Array({ minLength: 0, maxLength: 256 }).map((a) => Buffer.from(a)) : fc.constant(undefined),
  }).map((r) => ({ ...r, what: 'valid' }) as Request);
}

/** Puts a control character into one string of a value (or makes the value one). */
const withControl = (value: unknown, control: string, pick: number): unknown => {
  if (typeof value === 'string') return `${value}${control}`;
  if (Array.isArray(value) && value.length > 0) return value.map((v, i) => (i === pick % value.length ? withControl(v, control, pick) : v));
  if (value && typeof value === 'object' && Object.keys(value).length > 0) {
    const keys = Object.keys(value);
    const key = keys[pick % keys.length]!;
    return { ...value, [key]: withControl((value as Record<string, unknown>)[key], control, pick) };
  }
  return `x${control}`;
};

/** Inputs the route kit refuses before any handler runs, whatever the route. */
export function refusedRequest(op: Operation): fc.Arbitrary<Request> {
  return fc.tuple(validRequest(op), CONTROL, fc.nat(), fc.constantFrom('body', 'query', 'path', 'not-json')).map(([r, control, pick, where]) => {
    const names = (place: 'path' | 'query') => op.parameters.filter((p) => p.in === place).map((p) => p.name);
    if (where === 'path' && names('path').length > 0) {
      const name = names('path')[pick % names('path').length]!;
      return { ...r, path: { ...r.path, [name]: `${r.path[name] ?? 'x'}\u0000` }, what: `NUL in path parameter ${name}` };
    }
    if (where === 'query' || (!op.body && !op.rawType)) {
      const name = names('query')[0] ?? 'q';
      return { ...r, query: { ...r.query, [name]: `a${control}` }, what: `control character in query ${name}` };
    }
    if (where === 'not-json' && op.body) return { ...r, text: '{"unterminated": ', what: 'malformed JSON' };
    if (op.rawType) return { ...r, query: { ...r.query, [names('query')[0] ?? 'q']: `a${control}` }, what: 'control character in a raw upload\'s query' };
    return { ...r, body: withControl(r.body ?? {}, control, pick), what: 'control character in the body' };
  });
}

/** Valid requests and mutations of them. */
export function fuzzedRequest(op: Operation): fc.Arbitrary<Request> {
  const valid = validRequest(op);
  const mutated = fc.tuple(valid, fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.string({ minLength: 1, maxLength: 20 })).chain(([r, pick, junk, word]) => {
    const options: Request[] = [];
    if (r.body && typeof r.body === 'object' && !Array.isArray(r.body)) {
      const keys = Object.keys(r.body);
      if (keys.length > 0) {
        const key = keys[pick % keys.length]!;
        const { [key]: _dropped, ...rest } = r.body as Record<string, unknown>;
        options.push({ ...r, body: rest, what: `body without ${key}` });
        options.push({ ...r, body: { ...r.body, [key]: junk }, what: `body.${key} = ${JSON.stringify(junk)}` });
        options.push({ ...r, body: { ...r.body, [key]: 'x'.repeat(20_000) }, what: `body.${key} overlong` });
      }
      options.push({ ...r, body: { ...r.body, [`unknown_${word.replace(/\W/g, '')}`]: junk }, what: 'an unknown body field' });
    }
    if (op.body) options.push({ ...r, body: junk, what: `body = ${JSON.stringify(junk)}` });
    for (const p of op.parameters) {
      options.push({ ...r, [p.in]: { ...r[p.in], [p.name]: word }, what: `${p.in} ${p.name} = ${JSON.stringify(word)}` });
      if (p.in === 'query') options.push({ ...r, query: { ...r.query, [p.name]: asText(junk) }, what: `query ${p.name} = ${asText(junk)}` });
    }
    if (op.parameters.some((p) => p.in === 'query')) options.push({ ...r, query: { ...r.query, [`unknown_${word.replace(/\W/g, '')}`]: '1' }, what: 'an unknown query parameter' });
    return options.length > 0 ? fc.constantFrom(...options) : fc.constant(r);
  });
  return fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: mutated, weight: 3 }, { arbitrary: refusedRequest(op), weight: 1 });
}

export function pathOf(op: Operation, request: Request): string {
  const path = op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = request.path[name] ?? 'x';
    return name === 'path' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
  const query = new URLSearchParams(Object.entries(request.query)).toString();
  return query ? `${path}?${query}` : path;
}

export interface Answer {
  status: number;
  type: string;
  body: string;
}

/** Sends one request; a stream's answer is read up to its headers and first bytes, then closed. No answer within `timeoutMs` rejects. */
export function send(base: string, op: Operation, request: Request, timeoutMs: number): Promise<Answer> {
  const u = new URL(base);
  const payload = request.text ?? (request.rawBody ?? (request.body !== undefined ? JSON.stringify(request.body) : op.body ? '{}' : undefined));
  const type = request.rawBody ? (op.rawType === '*/*' ? 'application/octet-stream' : op.rawType!) : 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method: op.method, path: pathOf(op, request), agent: false, headers: payload !== undefined ? { 'content-type': type } : {} },
      (res) => {
        let body = '';
        const done = () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (op.streams && res.statusCode! < 300) (done(), req.destroy());
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * What every answer must be. `outsideFails`: what the route reaches outside is failing (the hostile run), so a
 * 502, 503 or 504 it documents is a right answer; a 500 never is.
 */
export function checkAnswer(op: Operation, request: Request, answer: Answer, codes: ReadonlySet<string>, outsideFails = false): void {
  const where = `${op.method} ${pathOf(op, request)} (${request.what}) → ${answer.status} ${answer.body.slice(0, 300)}`;
  assert.ok(answer.status < 500 || (outsideFails && answer.status > 500), `a 5xx: ${where}`);
  if (answer.status < 400) {
    assert.ok(op.successes.includes(answer.status) || answer.status === 304, `a success status the route does not document (${op.successes}): ${where}`);
    return;
  }
  assert.ok(op.errors.includes(answer.status), `an error status the route does not document (${op.errors}): ${where}`);
  assert.match(answer.type, /^application\/json/, `an error that is not JSON: ${where}`);
  const body = JSON.parse(answer.body) as { error?: unknown; message?: unknown };
  assert.ok(typeof body.error === 'string' && codes.has(body.error), `an error code outside the catalogue: ${where}`);
  assert.ok(typeof body.message === 'string' && body.message.length > 0, `an error without a message: ${where}`);
}
