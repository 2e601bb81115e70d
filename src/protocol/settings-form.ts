// The settings page's reading of the settings JSON Schema (GET /api/settings/schema): which control a
// field gets, its choices, and a validation failure of PUT /api/settings in plain words. Zod-free, so
// the web UI takes values from here (the schema itself is written by zod on the server, from the
// `.meta()` of each section's fields: title, description, writeOnly for secrets, and the `x-` keys
// below).

/** What GET /api/settings shows instead of a secret that is set (and what a PUT sends to keep it). */
export const REDACTED = '***';

/** The part of JSON Schema (draft 2020-12, as zod writes it) the settings use, and svc's own keys. */
export interface SettingSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: readonly unknown[];
  const?: unknown;
  anyOf?: readonly SettingSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: SettingSchema;
  maxItems?: number;
  properties?: Record<string, SettingSchema>;
  required?: readonly string[];
  additionalProperties?: SettingSchema | boolean;
  propertyNames?: SettingSchema;
  /** A secret: GET shows `***` once it is set; the page never fills it in (a map: every value). */
  writeOnly?: boolean;
  /** Readable names of an enum's values (a value missing here is shown as it is). */
  'x-enumLabels'?: Record<string, string>;
  /** Text of several lines (a text area rather than a one-line box). */
  'x-multiline'?: boolean;
  /** What a map's keys and values are (the placeholders of its "add" row), e.g. `NAME` and `value`. */
  'x-keyLabel'?: string;
  'x-valueLabel'?: string;
  /** The accessible name of the control that adds an entry to a list of choices (default "Add to <title>"). */
  'x-addLabel'?: string;
}

/** How the page shows a field. */
export type SettingKind = 'boolean' | 'number' | 'choice' | 'secret' | 'text' | 'multiline' | 'list' | 'map' | 'group';

export interface Choice {
  value: string;
  label: string;
}

const isMap = (s: SettingSchema) => s.type === 'object' && !s.properties && typeof s.additionalProperties === 'object';

/** The choices of an enum (or of a union of constants and enums, e.g. '' or a provider id); undefined if it is not one. */
export function choicesOf(schema: SettingSchema): Choice[] | undefined {
  const values: unknown[] = [];
  const collect = (s: SettingSchema): boolean => {
    if (Array.isArray(s.enum)) values.push(...s.enum);
    else if ('const' in s) values.push(s.const);
    else if (s.anyOf) return s.anyOf.every(collect);
    else return false;
    return true;
  };
  if (!collect(schema) || values.length === 0 || !values.every((v) => typeof v === 'string')) return undefined;
  const labels = schema['x-enumLabels'] ?? {};
  return (values as string[]).map((value) => ({ value, label: labels[value] ?? value }));
}

export function settingKind(schema: SettingSchema): SettingKind {
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'number' || schema.type === 'integer') return 'number';
  if (choicesOf(schema)) return 'choice';
  if (schema.type === 'array') return 'list';
  if (isMap(schema)) return 'map';
  if (schema.type === 'object') return 'group';
  if (schema.writeOnly) return 'secret';
  return schema['x-multiline'] ? 'multiline' : 'text';
}

/** The schema of a field by its path (`['agent', 'retries']`), or undefined. */
export function schemaAt(root: SettingSchema, path: readonly string[]): SettingSchema | undefined {
  let node: SettingSchema | undefined = root;
  for (const key of path) {
    if (!node) return undefined;
    if (node.properties) node = node.properties[key];
    else if (node.type === 'array') node = node.items;
    else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else return undefined;
  }
  return node;
}

const sentence = (text: string) => {
  const t = text.trim().replace(/^./, (c) => c.toUpperCase());
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

/** "from 1 to 20", "1 or more", "20 or less" (undefined when the schema gives no bounds). */
function range(schema: SettingSchema): string | undefined {
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return schema.exclusiveMinimum !== undefined ? `above ${min}` : `${min} or more`;
  if (max !== undefined) return schema.exclusiveMaximum !== undefined ? `below ${max}` : `${max} or less`;
  return undefined;
}

const outOfRange = (schema: SettingSchema, n: number) =>
  (schema.minimum !== undefined && n < schema.minimum) ||
  (schema.maximum !== undefined && n > schema.maximum) ||
  (schema.exclusiveMinimum !== undefined && n <= schema.exclusiveMinimum) ||
  (schema.exclusiveMaximum !== undefined && n >= schema.exclusiveMaximum);

/** Zod's own wording of a few failures, in plain words (a message a schema wrote itself is kept). */
function plainWords(raw: string): string {
  const text = raw.trim();
  if (/^invalid url$/i.test(text)) return 'Not a valid address: write a full URL such as https://example.com.';
  let m = /^Too small: expected (?:number|int) to be >=?(\S+)/.exec(text);
  if (m) return `Must be ${m[1]} or more.`;
  m = /^Too big: expected (?:number|int) to be <=?(\S+)/.exec(text);
  if (m) return `Must be ${m[1]} or less.`;
  m = /^Too (?:small|big): expected string to have ([<>]=?)(\d+) characters?/.exec(text);
  if (m) return m[1]!.startsWith('<') ? `At most ${m[2]} characters.` : Number(m[2]) <= 1 ? 'Required.' : `At least ${m[2]} characters.`;
  m = /^Too big: expected array to have <=?(\d+) items?/.exec(text);
  if (m) return `At most ${m[1]} entries.`;
  if (/^Invalid option/.test(text)) return 'Choose one of the options.';
  m = /^Invalid input: expected (\w+)/.exec(text);
  if (m) return m[1] === 'number' || m[1] === 'int' ? 'Enter a number.' : `Expected ${m[1] === 'string' ? 'text' : `a ${m[1]}`}.`;
  return sentence(text);
}

/**
 * A failure of one field, in plain words. `message` is the server's (`<field>: <what>`), `schema` the
 * field's schema, `value` what was sent, `rest` the part of the failing path below the field (an
 * item's index in a list, a key of a map). Where the schema gives bounds, they make the sentence.
 */
export function plainError(message: string, schema: SettingSchema | undefined, value: unknown, rest: readonly string[] = [], field = ''): string {
  const raw = field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message.replace(/^[\w.\- ]+: /, '');
  if (!schema) return plainWords(raw);
  if (rest.length && schema.type === 'array' && schema.items) {
    const index = Number(rest[0]);
    const item = Array.isArray(value) ? value[index] : undefined;
    return `Line ${index + 1}${typeof item === 'string' && item ? ` (${item})` : ''}: ${plainError(raw, schema.items, item, rest.slice(1))}`;
  }
  if (rest.length && typeof schema.additionalProperties === 'object') {
    const key = rest[0]!;
    const own = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const keyRule = schema.propertyNames?.pattern && !new RegExp(schema.propertyNames.pattern).test(key);
    return `${key}: ${keyRule ? plainWords(raw) : plainError(raw, schema.additionalProperties, own, rest.slice(1))}`;
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const whole = schema.type === 'integer';
    const bounds = range(schema);
    const ask = `Enter ${whole ? 'a whole number' : 'a number'}${bounds ? ` ${bounds}` : ''}.`;
    if (typeof value !== 'number' || Number.isNaN(value)) return ask;
    if (outOfRange(schema, value) || (whole && !Number.isInteger(value))) return ask;
    return plainWords(raw);
  }
  if (schema.type === 'string' && typeof value === 'string') {
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `At most ${schema.maxLength} characters (this has ${value.length}).`;
    if (schema.minLength !== undefined && value.trim().length < schema.minLength) return schema.minLength <= 1 ? 'Required.' : `At least ${schema.minLength} characters.`;
  }
  if (schema.type === 'array' && Array.isArray(value) && schema.maxItems !== undefined && value.length > schema.maxItems) {
    return `At most ${schema.maxItems} entries (this has ${value.length}).`;
  }
  const choices = choicesOf(schema);
  if (choices && !choices.some((c) => c.value === value)) return `Choose one of: ${choices.map((c) => c.label).join(', ')}.`;
  return plainWords(raw);
}
