// A zod schema built on its first use instead of when its module loads.
//
// Building a zod schema is not free: each z.object(), z.string().max(…) and .optional() makes an
// instance with its own internals, 15-20 µs apiece. The wire shapes in src/protocol/ made 1,450 of
// them as they loaded, for schemas most starts never parse with: a tenth of `svc serve`'s start and
// 8 MB of its memory (docs/performance.md#start-up). A module writes
//
//   export const PlanSchema = lazySchema(() => z.object({ … }));
//
// and every user goes on calling PlanSchema.parse(), PlanSchema.shape, PlanSchema.optional(), nesting it
// in other schemas and inferring its type, unchanged: the value is a proxy that builds the schema the
// first time anything is asked of it, and forwards everything to it from then on.
//
// What a proxy cannot forward is its identity: zod's registries (.meta(), .describe()) are keyed by the
// schema object, so a schema whose outermost call registers metadata stays eager (the metadata would
// be filed under the built schema, and looked up under the proxy). So does one whose outermost call
// wraps another (.optional(), .default(), .catch(), .readonly()): zod's JSON Schema generator files the
// proxy and then looks the wrapper up under the built schema (test/http/openapi.test.ts would fail).

/** `build()`'s schema, made the first time it is used. */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = schema();
      return Reflect.get(target, key, target);
    },
    set: (_, key, value) => {
      const target = schema();
      return Reflect.set(target, key, value, target);
    },
    has: (_, key) => Reflect.has(schema(), key),
    // a property defined non-configurable must be on the target too, or the proxy breaks its invariants
    defineProperty: (target, key, descriptor) =>
      Reflect.defineProperty(schema(), key, descriptor) && (descriptor.configurable === true || Reflect.defineProperty(target, key, descriptor)),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    ownKeys: () => Reflect.ownKeys(schema()),
    // the proxy's own target has none of these properties, so each is reported configurable (a proxy may
    // not claim a non-configurable property its target lacks)
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
