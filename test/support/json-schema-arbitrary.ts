// fast-check arbitraries from JSON Schema (draft 2020-12, as zod's toJSONSchema writes it into the
// OpenAPI document): valid values of a schema, for the route fuzzer (test/http/fuzz.test.ts). It
// covers what the route declarations use: types, enum and const, anyOf/oneOf/allOf of objects,
// properties and required, records (additionalProperties with propertyNames), arrays with item
// counts, string lengths and patterns, number ranges. A schema it cannot read gives any JSON value.
import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

const MAX_STRING = 40;
const MAX_ITEMS = 4;

/** A string the pattern matches (fast-check reads most regex syntax; what it cannot, is filtered). */
function patterned(pattern: string, min: number, max: number): fc.Arbitrary<string> {
  const re = new RegExp(pattern);
  const fits = (s: string) => s.length >= min && s.length <= max && re.test(s);
  try {
    return fc.stringMatching(re).map((s) => s.slice(0, max)).filter(fits);
  } catch {
    return fc.string({ minLength: min, maxLength: Math.min(max, MAX_STRING) }).filter(fits);
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? MAX_STRING, min + MAX_STRING));
  if (typeof schema.pattern === 'string') return patterned(schema.pattern, min, schema.maxLength ?? max);
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (schema.format === 'email') return fc.emailAddress();
  // text without controls: the kit refuses those (a mutation sends them on purpose)
  return fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).map((s) => s.replace(/[\u0000-\u001F\u007F]/g, ' ')).filter((s) => s.length >= min);
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : (schema.minimum ?? -1e6);
  const max = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : (schema.maximum ?? 1e6);
  return integer
    ? fc.integer({ min: Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const names = Object.keys(properties);
  if (names.length === 0 && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const key = schema.propertyNames ? stringOf({ type: 'string', ...schema.propertyNames }) : fc.string({ minLength: 1, maxLength: 12 });
    return fc.dictionary(key, arbitraryOf(schema.additionalProperties), { maxKeys: MAX_ITEMS });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = arbitraryOf(properties[name]!);
  return fc.record(record, { requiredKeys: (schema.required ?? []).filter((n: string) => n in properties) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Valid values of `schema`. */
export function arbitraryOf(schema: JsonSchema | boolean | undefined): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(undefined);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map((s: JsonSchema) => arbitraryOf(s)));
  if (Array.isArray(schema.allOf)) {
    // zod writes an intersection of objects as allOf: merge their parts
    const merged = schema.allOf.reduce(
      (acc: JsonSchema, part: JsonSchema) => ({ ...acc, ...part, properties: { ...acc.properties, ...part.properties }, required: [...(acc.required ?? []), ...(part.required ?? [])] }),
      { type: 'object', properties: {}, required: [] },
    );
    return objectOf(merged);
  }
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const options = type.map((t: string): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'string':
        return stringOf(schema);
      case 'integer':
        return numberOf(schema, true);
      case 'number':
        return numberOf(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.max(min, Math.min(schema.maxItems ?? MAX_ITEMS, min + MAX_ITEMS));
        if (Array.isArray(schema.prefixItems)) return fc.tuple(...schema.prefixItems.map((s: JsonSchema) => arbitraryOf(s)));
        return fc.array(arbitraryOf(schema.items), { minLength: min, maxLength: max });
      }
      case 'object':
        return objectOf(schema);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  });
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}
