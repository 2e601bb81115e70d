// The settings page's reading of the settings schema (src/protocol/settings-form.ts): which control a
// field gets, its choices, and a refused value in plain words from the schema's bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { choicesOf, plainError, schemaAt, settingKind, type SettingSchema } from '../../src/protocol/settings-form.ts';
import { sectionJsonSchema } from '../../src/protocol/settings.ts';
import { SettingsModel } from '../../src/modules/settings/settings.model.ts';
import { settingsSection } from '../../src/protocol/settings.ts';
import { AppError } from '../../src/core/errors.ts';
import { coreSettings } from '../../src/servers/core.ts';

const json = sectionJsonSchema(
  z.strictObject({
    on: z.boolean().meta({ title: 'On' }),
    count: z.number().int().min(1).max(20).meta({ title: 'Count' }),
    ratio: z.number().min(0).max(1).meta({ title: 'Ratio' }),
    mode: z.enum(['warn', 'kill']).meta({ title: 'Mode', 'x-enumLabels': { warn: 'Only warn' } }),
    who: z.union([z.literal(''), z.enum(['a', 'b'])]).meta({ title: 'Who' }),
    key: z.string().max(10).meta({ title: 'Key', writeOnly: true }),
    prompt: z.string().meta({ title: 'Prompt', 'x-multiline': true }),
    name: z.string().trim().min(1).max(5).meta({ title: 'Name' }),
    hosts: z.array(z.string().url()).max(2).meta({ title: 'Hosts' }),
    env: z.record(z.string().regex(/^[A-Z_]+$/), z.string().max(3)).meta({ title: 'Env', writeOnly: true }),
    group: z.strictObject({ inner: z.string().meta({ title: 'Inner' }) }).meta({ title: 'Group' }),
  }),
);
const at = (key: string) => json.properties![key]!;

test('each field gets its control from its schema', () => {
  const kinds = Object.fromEntries(Object.entries(json.properties!).map(([k, s]) => [k, settingKind(s)]));
  assert.deepEqual(kinds, { on: 'boolean', count: 'number', ratio: 'number', mode: 'choice', who: 'choice', key: 'secret', prompt: 'multiline', name: 'text', hosts: 'list', env: 'map', group: 'group' });
  assert.deepEqual(choicesOf(at('mode')), [{ value: 'warn', label: 'Only warn' }, { value: 'kill', label: 'kill' }]);
  assert.deepEqual(choicesOf(at('who'))!.map((c) => c.value), ['', 'a', 'b']);
  assert.equal(choicesOf(at('count')), undefined);
  assert.equal(schemaAt(json, ['group', 'inner'])!.title, 'Inner');
  assert.equal(schemaAt(json, ['hosts', '0'])!.type, 'string');
  assert.equal(schemaAt(json, ['env', 'ANY'])!.maxLength, 3);
  assert.equal(schemaAt(json, ['nope', 'x']), undefined);
});

/** What the server answers for a candidate section (its message and field), in plain words for the page. */
const model = new SettingsModel({ s: settingsSection(() => z.strictObject({ count: z.number().int().min(1).max(20), ratio: z.number().min(0).max(1), mode: z.enum(['warn', 'kill']), name: z.string().trim().min(1).max(5), hosts: z.array(z.string().url()).max(2), env: z.record(z.string().regex(/^[A-Z_]+$/, 'must be upper case'), z.string().max(3)) }), { count: 1, ratio: 0.5, mode: 'warn', name: 'a', hosts: [], env: {} }) });
function refused(patch: Record<string, unknown>): string {
  try {
    model.validate({ s: { ...model.defaults.s, ...patch } });
  } catch (err) {
    assert.ok(err instanceof AppError);
    const field = String(err.toBody().field);
    const [, key, ...rest] = field.split('.');
    return plainError(err.message, at(key!), patch[key!], rest, field);
  }
  return assert.fail('validated');
}

test("a refused value reads in plain words, from the schema's bounds where it has them", () => {
  assert.equal(refused({ count: 0 }), 'Enter a whole number from 1 to 20.');
  assert.equal(refused({ count: 21 }), 'Enter a whole number from 1 to 20.');
  assert.equal(refused({ count: 2.5 }), 'Enter a whole number from 1 to 20.');
  assert.equal(refused({ ratio: 3 }), 'Enter a number from 0 to 1.');
  assert.equal(refused({ mode: 'nope' }), 'Choose one of: Only warn, kill.');
  assert.equal(refused({ name: 'far too long' }), 'At most 5 characters (this has 12).');
  assert.equal(refused({ name: '  ' }), 'Required.');
  assert.equal(refused({ hosts: ['https://a.test', 'https://b.test', 'https://c.test'] }), 'At most 2 entries (this has 3).');
  assert.equal(refused({ hosts: ['https://a.test', 'not a url'] }), 'Line 2 (not a url): Not a valid address: write a full URL such as https://example.com.');
  assert.equal(refused({ env: { lower: 'x' } }), 'lower: Must be upper case.');
  assert.equal(refused({ env: { OK: 'long' } }), 'OK: At most 3 characters (this has 4).');
});

test('without bounds or a schema, zod\'s wording is still made plain', () => {
  assert.equal(plainError('a.b: Too small: expected number to be >=5', undefined, 1), 'Must be 5 or more.');
  assert.equal(plainError('a.b: Too big: expected number to be <=9', undefined, 10), 'Must be 9 or less.');
  assert.equal(plainError('x: Invalid input: expected number, received string', undefined, 'x'), 'Enter a number.');
  assert.equal(plainError("vision.display: must look like ':0' or 'host:1.0'", { type: 'string' }, 'x', [], 'vision.display'), "Must look like ':0' or 'host:1.0'.");
  // one bound only
  assert.equal(plainError('n: Too small', { type: 'integer', minimum: 0 }, -1, [], 'n'), 'Enter a whole number 0 or more.');
});

test('the real settings: every number names its range when it is out of it', () => {
  const doc = coreSettings.jsonSchema();
  for (const [section, s] of Object.entries(doc.properties!)) {
    for (const [key, field] of Object.entries(s.properties ?? {}) as [string, SettingSchema][]) {
      if (settingKind(field) !== 'number') continue;
      const text = plainError(`${section}.${key}: Too small`, field, field.minimum! - 1, [], `${section}.${key}`);
      assert.match(text, new RegExp(`^Enter a (whole )?number from ${field.minimum} to ${field.maximum}\\.$`), `${section}.${key}`);
    }
  }
});
