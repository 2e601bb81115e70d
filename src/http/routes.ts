// How every route is declared: method, path, a one-line summary, and zod schemas for its params,
// query, body and answer. The handler receives the parsed, typed input; a bad input is a 400 that
// names the field before the handler runs. Every declaration is also recorded for the OpenAPI
// document (src/http/openapi.ts), the route tables in docs/ and the route-count test, so a route
// cannot exist without its schemas.
//
// Under `NODE_ENV=test` each JSON answer is checked against its declared schema, so the whole test
// suite keeps the published schemas true.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler, RouteHandlerMethod } from 'fastify';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { deadline } from '../core/deadline.ts';
import { AppError } from '../core/errors.ts';
import { parseInput, refuseControlCharacters } from './validate.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The body of a POST that takes no input: nothing, or `{}`. */
export const noBody = z.strictObject({}).optional();

/**
 * What a route answers with: one JSON value (`json`, checked against `response`), or a stream of
 * NDJSON lines or SSE events (each documented by `item`), a WebSocket, a file, or an HTML page.
 */
export type Produces = 'json' | 'ndjson' | 'sse' | 'websocket' | 'file' | 'html';

/**
 * Who may call a route (the guard reads it from the route the router matched): `public` is open to
 * anyone who passes the Host and Origin checks (GET only: liveness and the UI's files); `token` needs
 * the bearer token from peers that are not trusted; `token-or-query` also takes it as `?token=`
 * (event streams, which browsers open without headers); `capability` needs no bearer token because
 * the body carries a capability the handler checks (never a GET, always a body: a single-use token
 * bound to one action, e.g. a notification's Allow), and passes the Host and Origin checks like any other.
 */
export type Access = 'public' | 'token' | 'token-or-query' | 'capability';

/** The documented part of a route: what the OpenAPI document and the route table are made from. */
export interface RouteDoc {
  method: Method;
  url: string;
  /** The module the route belongs to (an OpenAPI tag). */
  group: string;
  summary: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body is raw bytes of this media type instead of JSON (uploads). */
  rawBody?: string;
  response?: z.ZodType;
  /** Status of a successful answer (default 200). */
  status?: number;
  produces: Produces;
  /** One NDJSON line or SSE event of a streaming answer. */
  item?: z.ZodType;
  access: Access;
  /**
   * Error statuses of the route's own (a conflict, an upstream's failure, a lookup of an id given in
   * the body or query); those every route of its shape can answer are added by the OpenAPI document.
   */
  errors?: readonly number[];
  /** What the route waits on outside the process (its answer is bounded: see RouteSpec.waitsOn). */
  waitsOn?: string;
  /** The handler validates the body itself (RouteSpec.validateBody false): the kit's rules still hold for it. */
  ownBody?: true;
}

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  request: FastifyRequest;
  reply: FastifyReply;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type Answer<R> = R extends z.ZodType ? z.input<R> : unknown;

export interface RouteSpec<P, Q, B, R> extends Omit<RouteDoc, 'group' | 'produces' | 'params' | 'query' | 'body' | 'response' | 'access' | 'waitsOn' | 'ownBody'> {
  /** Default `token`. */
  access?: Access;
  params?: P;
  query?: Q;
  body?: B;
  response?: R;
  produces?: Produces;
  /** Largest accepted body (default: the server's limit). */
  bodyLimit?: number;
  /** Runs before the body is read (e.g. to refuse an upload without reading it). */
  onRequest?: onRequestHookHandler;
  /**
   * For a route that waits on something outside the process (the browser, a CLI, npm, a network API): what
   * that is, and the longest its answer may take, from the request's input. Past it the kit answers 504
   * UPSTREAM_TIMEOUT naming it, whatever the handler still waits on, so no request stays unanswered; the
   * handler's own bounds, shorter, answer first with their own words.
   */
  waitsOn?: { what: string; ms: number | ((input: HandlerInput<Out<P>, Out<Q>, Out<B>>) => number) };
  /** The body is validated by the handler itself (`body` then only documents it). */
  validateBody?: false;
  handler?(input: HandlerInput<Out<P>, Out<Q>, Out<B>>): Promise<Answer<R>> | Answer<R>;
  /**
   * For `produces: 'websocket'`; beside a `handler` (a GET), it takes the upgrades of the same URL
   * and the handler the plain requests (the manager's proxy).
   */
  websocket?(socket: WebSocket, request: FastifyRequest): void;
}

/** A route declaration; `route({...})` infers the handler's types from the schemas. */
export type Route = RouteSpec<any, any, any, any>;

export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<P, Q, B, R>): Route {
  return spec;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Every route declared so far, in order of declaration: one section per defineRoutes() call, and one
     * per group of lazy routes, empty until the group is loaded (loadAllRoutes() loads them all).
     */
    routeSections: RouteDoc[][];
    /** The routes of routeSections, flat. */
    readonly routeDocs: RouteDoc[];
  }
  interface FastifyContextConfig {
    /** The declared access of the route (see Access), for the guard. */
    access?: Access;
  }
}

/**
 * Where a module's routes end up closing what they hold open (event streams, sessions) when the server
 * closes: a preClose hook for routes registered at start, the lazy group's own list otherwise.
 */
export interface RouteScope {
  onClose(close: () => Promise<void> | void): void;
}

/**
 * A module's routes as a Fastify plugin that can also give its declarations without a server: the core
 * server registers some of them lazily (lazy-routes.ts), building their declarations on the first request.
 */
export type RouteModule<D extends object> = FastifyPluginAsync<D> & { readonly group: string; build(deps: D, scope: RouteScope): readonly Route[] };

/** Declares a module's routes: `group` names them (an OpenAPI tag), `build` makes them from the module's dependencies. */
export function routeGroup<D extends object>(group: string, build: (deps: D, scope: RouteScope) => readonly Route[]): RouteModule<D> {
  const plugin: FastifyPluginAsync<D> = async (app, deps) => {
    defineRoutes(app, group, build(deps, { onClose: (close) => void app.addHook('preClose', async () => close()) }));
  };
  return Object.assign(plugin, { group, build });
}

const checkAnswers = process.env.NODE_ENV === 'test';

/** Registers a module's routes on `app` and records their documentation. */
export function defineRoutes(app: FastifyInstance, group: string, routes: readonly Route[]): void {
  if (!app.hasDecorator('routeSections')) throw new Error('the server was not made by createServer()');
  const section: RouteDoc[] = [];
  app.routeSections.push(section);
  for (const spec of routes) {
    const doc = documentRoute(group, spec);
    section.push(doc);
    if (spec.websocket && !spec.handler) {
      app.route({
        method: 'GET',
        url: spec.url,
        config: { access: doc.access },
        onRequest: checkHandshake,
        wsHandler: spec.websocket,
        handler: () => {
          throw new AppError(426, 'UPGRADE_REQUIRED', `${spec.url} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket).`);
        },
      });
      continue;
    }
    app.route({
      method: spec.method,
      url: spec.url,
      config: { access: doc.access },
      ...(spec.bodyLimit !== undefined ? { bodyLimit: spec.bodyLimit } : {}),
      ...(spec.websocket ? { wsHandler: spec.websocket, onRequest: [checkHandshake, ...(spec.onRequest ? [spec.onRequest] : [])] } : spec.onRequest ? { onRequest: spec.onRequest } : {}),
      handler: routeHandler(spec, doc),
    });
  }
}

/**
 * What runs a declared route's request: the control-character rule, its schemas' parsing, its handler,
 * and (in tests) the check of its answer. The router has set `request.params`.
 */
export function routeHandler(spec: Route, doc: RouteDoc): RouteHandlerMethod {
  const handler = spec.handler;
  if (!handler) throw new Error(`route ${spec.method} ${spec.url} has no handler`);
  return async (request, reply) => {
    // the rule holds for what a schema does not declare, and for bodies a handler reads itself
    refuseControlCharacters(request.params, 'params');
    refuseControlCharacters(request.query, 'query');
    if (!spec.rawBody) refuseControlCharacters(request.body, 'body');
    const params = spec.params ? parseInput(spec.params, request.params, 'params') : undefined;
    const query = spec.query ? parseInput(spec.query, request.query, 'query') : undefined;
    const body = spec.body && spec.validateBody !== false ? parseInput(spec.body, request.body, 'body') : request.body;
    if (spec.status) void reply.code(spec.status);
    const input = { params, query, body, request, reply };
    const answer = await (spec.waitsOn ? boundedAnswer(handler(input), spec.waitsOn.what, typeof spec.waitsOn.ms === 'number' ? spec.waitsOn.ms : spec.waitsOn.ms(input)) : handler(input));
    if (checkAnswers && doc.produces === 'json' && doc.response && !reply.sent) checkAnswer(doc, answer);
    return answer;
  };
}

/** A route's documentation (the OpenAPI document, the route table, the public-route list), checked. */
export function documentRoute(group: string, spec: Omit<Route, 'handler' | 'websocket'> & Pick<Route, 'websocket'>): RouteDoc {
  const access = spec.access ?? 'token';
  if (access === 'public' && spec.method !== 'GET') throw new Error(`route ${spec.method} ${spec.url}: only GET routes may be public`);
  if (access === 'capability' && (spec.method === 'GET' || !spec.body || spec.validateBody === false)) {
    throw new Error(`route ${spec.method} ${spec.url}: a capability route takes its capability in a body it validates, so it is never a GET`);
  }
  return {
    method: spec.method,
    url: spec.url,
    group,
    summary: spec.summary,
    access,
    produces: spec.produces ?? (spec.websocket ? 'websocket' : 'json'),
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.rawBody ? { rawBody: spec.rawBody } : {}),
    ...(spec.response ? { response: spec.response } : {}),
    ...(spec.status ? { status: spec.status } : {}),
    ...(spec.item ? { item: spec.item } : {}),
    ...(spec.errors ? { errors: spec.errors } : {}),
    ...(spec.waitsOn ? { waitsOn: spec.waitsOn.what } : {}),
    ...(spec.validateBody === false ? { ownBody: true as const } : {}),
  };
}

/**
 * A WebSocket upgrade with a malformed handshake is refused here, in the one error shape, before the
 * WebSocket library would answer it in its own (text/html).
 */
async function checkHandshake(request: FastifyRequest): Promise<void> {
  refuseControlCharacters(request.query, 'query');
  if (request.headers.upgrade?.toLowerCase() !== 'websocket') return;
  const key = request.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    throw new AppError(400, 'BAD_REQUEST', 'Invalid WebSocket handshake: Sec-WebSocket-Key must be 16 random bytes in base64.');
  }
  const version = request.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    throw new AppError(400, 'BAD_REQUEST', 'Invalid WebSocket handshake: Sec-WebSocket-Version must be 13.');
  }
}

/** Test mode: an answer that does not match its published schema is a failure of the server. */
function checkAnswer(doc: RouteDoc, answer: unknown): void {
  const json: unknown = answer === undefined ? undefined : JSON.parse(JSON.stringify(answer));
  const result = doc.response!.safeParse(json);
  if (result.success) return;
  const issue = result.error.issues[0]!;
  throw new AppError(500, 'RESPONSE_SCHEMA', `${doc.method} ${doc.url} answered outside its schema at '${issue.path.join('.')}': ${issue.message}`);
}

/** The handler's answer, or 504 UPSTREAM_TIMEOUT naming what it waits on once `ms` have passed. */
function boundedAnswer<T>(work: T | Promise<T>, what: string, ms: number): Promise<T> {
  return deadline(work, ms, () => new AppError(504, 'UPSTREAM_TIMEOUT', `${what} did not answer within ${Math.round(ms / 100) / 10} s. Nothing more will come of this request; check that ${what} works, then try again.`));
}
