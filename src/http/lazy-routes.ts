// Route groups built on their first request. Registering a route with Fastify costs about half a
// millisecond (its context, its hooks, its router entry), and building a group's declarations means
// evaluating its modules and constructing their zod schemas: together the largest part of `svc serve`'s
// start. A lazy group declares the paths it owns ('/api/goal', '/api/goal/*', '/api/goal-run'); Fastify gets
// one prefix catch-all for them ('/api/goal*'), shared by the groups whose paths it covers, and a request
// that reaches it goes to the group owning its path. The group's first request loads its modules, builds its
// declarations and puts them in a router of its own, and every request after that is matched there.
//
// No route registered at start with a parameter or a wildcard may lie under a catch-all (checked when the
// server is ready): the router would fall back to the catch-all where it answers that route's errors
// itself (a parameter over 100 characters is a 414 there), so the route would answer differently with the
// group than without it. That is also why there is no single `/api/*`.
//
// The rules of an eagerly registered route hold unchanged. The guard reads the access of the route the
// group's router matched (resolveLazyRoute, before the guard's checks), and the handler runs that same
// match, so the two never read the path differently. That router is find-my-way, as Fastify's is, with
// Fastify's options: the same parameters, decoded the same way, and the same framework errors (a
// malformed percent-encoding, a parameter over 100 characters). A path the group does not declare is
// Fastify's not-found answer. Lazy routes take the server's body limit and no hooks of their own: a
// route that needs them is registered eagerly (load() refuses it).
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

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface Entry {
  doc: RouteDoc;
  run: RouteHandlerMethod;
}

/** What a lazy group's router found for a request: a route with its parameters, or nothing. */
export type LazyMatch = { entry: Entry; params: Record<string, string | undefined> } | { entry: undefined };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the catch-all routes of the lazy groups. */
    lazy?: LazyIndex;
  }
}

/** A server's lazy groups, which owns each path, and the catch-alls registered for them. */
interface LazyIndex {
  groups: LazyGroup[];
  owners: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  catchAlls: string[];
}

/** The match of each request to a lazy group, made once by resolveLazyRoute. */
const matches = new WeakMap<FastifyRequest, LazyMatch>();
const indexes = new WeakMap<FastifyInstance, LazyIndex>();

class LazyGroup {
  private router?: Promise<FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>;
  private readonly closers: (() => Promise<void> | void)[] = [];

  constructor(
    private readonly app: FastifyInstance,
    /** The paths it owns, as Fastify patterns: '/api/goal' (that path) and '/api/goal/*' (all under it). */
    private readonly paths: readonly string[],
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
    this.app.routeTable.push(...docs.map(({ method, url }) => ({ method, url })));
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
  const group = new LazyGroup(app, paths, modules, section);
  const index = indexOf(app);
  index.groups.push(group);
  for (const path of paths) {
    index.owners.on(METHODS, path, () => undefined, group);
    const catchAll = catchAllOf(path);
    if (index.catchAlls.some((registered) => covers(registered, catchAll))) continue;
    index.catchAlls.push(catchAll);
    app.route({ method: METHODS, url: catchAll, config: { lazy: index }, handler: lazyHandler });
  }
}

/** The Fastify catch-all of an owned path: '/api/goal' and '/api/goal/*' are both under '/api/goal*'. */
function catchAllOf(path: string): string {
  return `${path.endsWith('/*') ? path.slice(0, -2) : path}*`;
}

/** Whether the prefix catch-all `catchAll` ('/api/goal*') takes the path or pattern `url`. */
function covers(catchAll: string, url: string): boolean {
  return url.startsWith(catchAll.slice(0, -1));
}

function indexOf(app: FastifyInstance): LazyIndex {
  let index = indexes.get(app);
  if (index) return index;
  const created: LazyIndex = { groups: [], owners: FindMyWay(), catchAlls: [] };
  indexes.set(app, created);
  app.addHook('onReady', async () => {
    for (const { method, url } of app.routeTable) {
      if (!/[:*]/.test(url)) continue;
      const under = created.catchAlls.find((catchAll) => covers(catchAll, url));
      if (under) throw new Error(`route ${method} ${url} lies under the lazy catch-all ${under}: declare it in a lazy group, or give the groups narrower paths`);
    }
  });
  app.addHook('preClose', async () => {
    for (const group of created.groups) await group.close();
  });
  return created;
}

/**
 * Matches a request routed to a lazy group in the group's router, once, loading the group first if
 * need be. The guard calls it before its checks; the route's handler then runs the same match.
 */
export async function resolveLazyRoute(request: FastifyRequest): Promise<LazyMatch | undefined> {
  const known = matches.get(request);
  if (known) return known;
  const index = request.routeOptions.config?.lazy;
  if (!index) return undefined;
  const owner = index.owners.find(request.method as Method, request.url);
  const match = owner ? await (owner.store as LazyGroup).match(request) : { entry: undefined };
  matches.set(request, match);
  return match;
}

/** The lazy route a request was matched to (after resolveLazyRoute), for the guard. */
export function lazyRouteOf(request: FastifyRequest): LazyMatch | undefined {
  return matches.get(request);
}

async function lazyHandler(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const match = (await resolveLazyRoute(request))!;
  if (!match.entry) return reply.callNotFound();
  (request as { params: unknown }).params = match.params;
  return match.entry.run.call(request.server, request, reply);
}

/** Loads every lazy group of `app`, so that its route documentation (routeDocs) is whole. */
export async function loadAllRoutes(app: FastifyInstance): Promise<void> {
  await Promise.all((indexes.get(app)?.groups ?? []).map((group) => group.load()));
}
