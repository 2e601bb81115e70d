// Route groups built on their first request. Registering a route with Fastify costs about half a
// millisecond (its context, its hooks, its router entry), and building a group's declarations means
// evaluating its modules and constructing their zod schemas: together the largest part of `svc serve`'s
// start. A lazy group declares the paths it owns ('/api/goal', '/api/goal/*', '/api/goal-run') and registers
// nothing with Fastify: a request for one of them finds no route there and reaches the server's not-found
// handler, which hands it to the group owning its path (create-server.ts). The group's first request loads
// its modules, builds its declarations and puts them in a router of its own, and every request after that
// is matched there.
//
// The rules of an eagerly registered route hold unchanged. The guard reads the access of the route the
// group's router matched (resolveLazyRoute, before the guard's checks), and the handler runs that same
// match, so the two never read the path differently. That router is find-my-way, as Fastify's is, with
// Fastify's options: the same parameters, decoded the same way, and the same framework errors (a
// malformed percent-encoding, a parameter over 100 characters). A path the group does not declare is
// Fastify's not-found answer. Lazy routes take the server's body limit and no hooks of their own: a
// route that needs them is registered eagerly (load() refuses it). A route registered at start may not lie
// under a group's path (checked when the server is ready): it would take the group's requests.
import FindMyWay from 'find-my-way';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteHandlerMethod } from 'fastify';
import { documentRoute, routeHandler, type Method, type Route, type RouteDoc, type RouteModule, type RouteScope } from './routes.ts';

/** One module's routes, as RouteModule.build() gives them. */
export interface RouteSet {
  group: string;
  routes: readonly Route[];
}

/** One module of a lazy group: imports it and builds its routes, on the group's first request. */
export type LazyModule = (scope: RouteScope) => Promise<RouteSet>;

/**
 * A lazy module from a RouteModule's loader (`loadXRoutes` of its index) and its dependencies, which are
 * made when it loads.
 */
export function routesOf<D extends object>(load: () => Promise<RouteModule<D>>, deps: () => D): LazyModule {
  return async (scope) => {
    const { group, build } = await load();
    return { group, routes: build(deps(), scope) };
  };
}

/**
 * A path's owner does not depend on the method: the owners' router keeps each path under this one (each
 * route find-my-way adds compiles two functions).
 */
const OWNER_METHOD: Method = 'GET';

interface Entry {
  doc: RouteDoc;
  run: RouteHandlerMethod;
}

/** What a lazy group's router found for a request: a route with its parameters, or nothing. */
export type LazyMatch = { entry: Entry; params: Record<string, string | undefined> } | { entry: undefined };

/** A server's lazy groups and which owns each path. */
interface LazyIndex {
  groups: LazyGroup[];
  /**
   * Which group owns a path, whatever the method: each path is registered once, under OWNER_METHOD. Made
   * on the first request that asks (ownersOf): find-my-way compiles code for each path it is given, which
   * a start need not wait for.
   */
  owners?: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  /** The route table's entries the groups added as they loaded (the rest were registered at start). */
  loaded: WeakSet<object>;
}

/** The match of each request to a lazy group, made once by resolveLazyRoute. */
const matches = new WeakMap<FastifyRequest, LazyMatch>();
const indexes = new WeakMap<FastifyInstance, LazyIndex>();

class LazyGroup {
  private router?: Promise<FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>;
  private readonly closers: (() => Promise<void> | void)[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly index: LazyIndex,
    /** The paths it owns, as Fastify patterns: '/api/goal' (that path) and '/api/goal/*' (all under it). */
    readonly paths: readonly string[],
    private readonly modules: readonly LazyModule[],
    private readonly section: RouteDoc[],
  ) {}

  load(): Promise<FindMyWay.Instance<FindMyWay.HTTPVersion.V1>> {
    // a failed load is not kept: the next request tries again and gets the same error
    this.router ??= this.build().catch((err: unknown) => {
      this.router = undefined;
      throw err;
    });
    return this.router;
  }

  async match(request: FastifyRequest): Promise<LazyMatch> {
    const router = await this.load();
    const found = router.find(request.method as Method, request.url);
    if (found === null) return { entry: undefined };
    // find-my-way answers a malformed percent-encoding or an over-long parameter with a store-less handler
    if (found.store === null) throw (found.handler as unknown as () => Error)();
    return { entry: found.store as Entry, params: found.params };
  }

  async close(): Promise<void> {
    for (const close of this.closers) await close();
  }

  private async build(): Promise<FindMyWay.Instance<FindMyWay.HTTPVersion.V1>> {
    const scope: RouteScope = { onClose: (close) => void this.closers.push(close) };
    const sets = await Promise.all(this.modules.map((load) => load(scope)));
    // Fastify's router options (fastify.js defaults), and its errors for what the router refuses
    const router = FindMyWay({
      maxParamLength: 100,
      onBadUrl: (path) => new errorCodes.FST_ERR_BAD_URL(path) as never,
      onMaxParamLength: (path) => new errorCodes.FST_ERR_MAX_PARAM_LENGTH(path) as never,
    });
    const docs: RouteDoc[] = [];
    for (const { group, routes } of sets) {
      for (const spec of routes) {
        if (spec.websocket || spec.onRequest || spec.bodyLimit !== undefined || spec.rawBody) {
          throw new Error(`route ${spec.method} ${spec.url} has hooks, a body limit or a WebSocket of its own: register its group eagerly`);
        }
        if (!this.paths.some((path) => owns(path, spec.url))) throw new Error(`route ${spec.method} ${spec.url} is outside its lazy group's paths`);
        const doc = documentRoute(group, spec);
        router.on(spec.method, spec.url, () => undefined, { doc, run: routeHandler(spec, doc) } satisfies Entry);
        docs.push(doc);
      }
    }
    this.section.push(...docs);
    const entries = docs.map(({ method, url }) => ({ method, url }));
    for (const entry of entries) this.index.loaded.add(entry);
    this.app.routeTable.push(...entries);
    return router;
  }
}

/** Whether the Fastify pattern `path` ('/a', '/a/*') covers the route URL `url`. */
function owns(path: string, url: string): boolean {
  return path.endsWith('/*') ? url.startsWith(path.slice(0, -1)) : url === path;
}

/**
 * Registers a group whose routes are built on its first request (see the top of this file): the paths it
 * owns, as Fastify patterns ('/api/goal' that path, '/api/goal/*' all under it), and its modules.
 */
export function defineLazyRoutes(app: FastifyInstance, paths: readonly string[], ...modules: LazyModule[]): void {
  const section: RouteDoc[] = [];
  app.routeSections.push(section);
  const index = indexOf(app);
  index.groups.push(new LazyGroup(app, index, paths, modules, section));
  index.owners = undefined;
}

/** The owners' router of a server's lazy groups (see LazyIndex.owners). */
function ownersOf(index: LazyIndex): FindMyWay.Instance<FindMyWay.HTTPVersion.V1> {
  if (!index.owners) {
    const owners = FindMyWay();
    for (const group of index.groups) for (const path of group.paths) owners.on(OWNER_METHOD, path, () => undefined, group);
    index.owners = owners;
  }
  return index.owners;
}

function indexOf(app: FastifyInstance): LazyIndex {
  let index = indexes.get(app);
  if (index) return index;
  const created: LazyIndex = { groups: [], loaded: new WeakSet() };
  indexes.set(app, created);
  // a route URL is a pattern, not a request path: owns() compares the two as the owners' router would
  app.addHook('onReady', async () => {
    for (const entry of app.routeTable) {
      if (created.loaded.has(entry)) continue;
      const owner = created.groups.find((group) => group.paths.some((path) => owns(path, entry.url)));
      if (owner) {
        throw new Error(`route ${entry.method} ${entry.url} lies under the paths of a lazy group (${owner.paths.join(', ')}): it would take the group's requests; declare it in the group, or give the group narrower paths`);
      }
    }
  });
  app.addHook('preClose', async () => {
    for (const group of created.groups) await group.close();
  });
  return created;
}

/**
 * Matches a request Fastify found no route for to the lazy group owning its path, once, loading the group
 * first if need be. The guard calls it before its checks; the not-found handler then runs the same match.
 */
export async function resolveLazyRoute(request: FastifyRequest): Promise<LazyMatch | undefined> {
  const known = matches.get(request);
  if (known) return known;
  if (!request.is404) return undefined;
  const index = indexes.get(request.server);
  const owner = index && ownersOf(index).find(OWNER_METHOD, request.url);
  if (!owner) return undefined;
  const match = await (owner.store as LazyGroup).match(request);
  matches.set(request, match);
  return match;
}

/** The lazy route a request was matched to (after resolveLazyRoute), for the guard. */
export function lazyRouteOf(request: FastifyRequest): LazyMatch | undefined {
  return matches.get(request);
}

/**
 * Answers a request with the lazy route it matches, from the server's not-found handler; `undefined` when
 * no lazy route has its path and method (the not-found answer is then the handler's).
 */
export async function answerLazyRoute(request: FastifyRequest, reply: FastifyReply): Promise<{ answer: unknown } | undefined> {
  const match = await resolveLazyRoute(request);
  if (!match?.entry) return undefined;
  if (unparsedBody(request)) throw new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE();
  (request as { params: unknown }).params = match.params;
  return { answer: await match.entry.run.call(request.server, request, reply) };
}

/**
 * A body Fastify found no parser for. On a route it answers that 415 itself; on a not-found request it
 * leaves the body unread (so that the answer is the 404), and a lazy route's request is one.
 */
function unparsedBody(request: FastifyRequest): boolean {
  if (request.method === 'GET' || request.body !== undefined) return false;
  const { 'content-type': contentType, 'content-length': length, 'transfer-encoding': chunked } = request.headers;
  return contentType !== undefined || chunked !== undefined || (length !== undefined && length !== '0');
}

/** Loads every lazy group of `app`, so that its route documentation (routeDocs) is whole. */
export async function loadAllRoutes(app: FastifyInstance): Promise<void> {
  await Promise.all((indexes.get(app)?.groups ?? []).map((group) => group.load()));
}
