// The settings model (src/modules/settings/settings.model.ts) on a small document of its own: which
// values are secrets, how they are masked, validation messages, defaults and merge-patch edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AppError } from '../../../src/core/errors.ts';
import { REDACTED } from '../../../src/protocol/settings.ts';
import { SettingsModel, mergePatch, networkSettings } from '../../../src/modules/settings/settings.model.ts';
import { settingsSection } from '../../../src/protocol/settings.ts';

const secret = { writeOnly: true } as const;
const model = new SettingsModel({
  api: settingsSection(
    () =>
      z.strictObject({
        key: z.string().meta(secret),
        env: z.record(z.string(), z.string()).meta(secret),
        nested: z.strictObject({ token: z.string().meta(secret), url: z.string() }),
        level: z.number().int().min(0),
      }),
    { key: '', env: {}, nested: { token: '', url: 'http://x' }, level: 1 },
  ),
  plain: settingsSection(() => z.strictObject({ on: z.boolean() }), { on: false }),
});
type Doc = ReturnType<typeof model.validate>;
const doc = (over: Partial<Doc['api']> = {}): Doc => ({ api: { ...model.defaults.api, ...over }, plain: { on: true } });

test('the literal shown for a secret is ***', () => {
  assert.equal(REDACTED, '***');
});

test('the secrets of a section are the fields its schema marks writeOnly: strings, maps, nested', () => {
  assert.deepEqual(model.sections.api.secrets, ['key', 'env', 'nested.token']);
  assert.deepEqual(model.sections.plain.secrets, []);
  // a map whose values are marked (rather than the map) is a secret map too
  assert.deepEqual(settingsSection(() => z.strictObject({ m: z.record(z.string(), z.string().meta(secret)) }), { m: {} }).secrets, ['m']);
});

test('redact: set string secrets read ***, unset ones stay empty, maps keep their names, nothing else changes', () => {
  const settings = doc({ key: 'abc', env: { A: 'one', B: '' }, nested: { token: 'tok', url: 'http://y' } });
  const masked = model.redact(settings);
  assert.deepEqual(masked, { api: { key: '***', env: { A: '***', B: '***' }, nested: { token: '***', url: 'http://y' }, level: 1 }, plain: { on: true } });
  assert.equal(settings.api.key, 'abc', 'the original is untouched');
  assert.deepEqual(model.redact(doc()).api, { key: '', env: {}, nested: { token: '', url: 'http://x' }, level: 1 });
  assert.deepEqual(model.redact({ plain: { on: false } }), { plain: { on: false } }, 'a partial document (an event) is fine');
});

test('secretValues: every non-empty secret string, from strings, maps and nested paths', () => {
  assert.deepEqual(model.secretValues(doc({ key: 'abc', env: { A: 'one', B: '' }, nested: { token: 'tok', url: 'http://y' } })), ['abc', 'one', 'tok']);
  assert.deepEqual(model.secretValues(doc()), []);
});

test('validate: the first bad field is named, unknown keys by their full path', () => {
  assert.deepEqual(model.validate(doc()), doc());
  const failure = (candidate: unknown) => {
    try {
      model.validate(candidate);
    } catch (err) {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'INVALID_SETTING');
      return [err.message, err.toBody().field];
    }
    assert.fail('validated');
  };
  assert.deepEqual(failure({ ...doc(), plain: { on: true, colour: 'red' } }), ["unknown setting 'plain.colour'", 'plain.colour']);
  const [message, field] = failure({ ...doc(), api: { ...doc().api, level: -1 } });
  assert.equal(field, 'api.level');
  assert.match(String(message), /^api\.level: /);
  assert.deepEqual(failure({ ...doc(), extra: {} }), ["unknown setting 'extra'", 'extra']);
  assert.equal(failure(7)[1], '(root)');
});

test('fromStorage fills missing sections and fields, and names the field of a stored value that fails', () => {
  assert.deepEqual(model.fromStorage({}), model.defaults);
  assert.deepEqual(model.fromStorage({ api: { level: 3 } }), { api: { ...model.defaults.api, level: 3 }, plain: { on: false } });
  assert.throws(() => model.fromStorage({ api: { level: -1 } }), (err: AppError) => err.details?.field === 'api.level' && /^api\.level: /.test(err.message));
  assert.throws(() => model.fromStorage({ plain: { on: true, extra: 1 } }), (err: AppError) => err.message === "unknown setting 'plain.extra'");
  assert.deepEqual(networkSettings.defaults, { trustedLanBypass: false, allowedHosts: [], allowedOrigins: [] });
});

test('mergePatch edge cases', () => {
  assert.equal(mergePatch({ a: 1 }, 5, {}), 5, 'a scalar patch replaces');
  assert.deepEqual(mergePatch({ a: 1 }, null, { a: 2 }), { a: 2 }, 'null resets to the default');
  assert.deepEqual(mergePatch('x', { a: 1 }, {}), { a: 1 }, 'an object replaces a non-object');
  assert.deepEqual(mergePatch({ a: 1, b: 2 }, { b: null }, {}), { a: 1 }, 'null without a default removes the key');
  assert.deepEqual(mergePatch({ a: 1, b: 2 }, { b: null }, { b: 9 }), { a: 1, b: 9 });
  assert.deepEqual(mergePatch({ a: 1 }, { b: null }, 'not an object'), { a: 1 });
  assert.deepEqual(mergePatch({ s: 'secret' }, { s: '***' }, {}), { s: 'secret' }, '*** keeps a set secret');
  assert.deepEqual(mergePatch({}, { s: '***' }, {}), { s: '***' }, '*** is a plain value where nothing is kept');
  assert.deepEqual(mergePatch({ s: 1 }, { s: '***' }, {}), { s: '***' });
  assert.deepEqual(mergePatch({ o: { x: 1, y: 2 } }, { o: { y: null } }, { o: { y: 5 } }), { o: { x: 1, y: 5 } }, 'defaults reach nested fields');
  assert.deepEqual(mergePatch({ o: { x: 1, y: 2 } }, { o: { y: null } }, 5), { o: { x: 1 } });
  assert.deepEqual(mergePatch({ l: [1, 2] }, { l: [3] }, {}), { l: [3] }, 'arrays replace');
  assert.deepEqual(mergePatch({ l: [1, 2] }, { l: { a: 1 } }, {}), { l: { a: 1 } });
  const current = { a: { b: 1 } };
  mergePatch(current, { a: { b: 2 } }, {});
  assert.deepEqual(current, { a: { b: 1 } }, 'the current document is not changed');
});

// The audit log records which settings a change touched, by name, and which secrets, never a value.
test('changedFields: the top-level keys that differ, and secrets by their path', () => {
  assert.deepEqual(model.changedFields(doc(), doc()), { fields: [], secrets: [] });
  assert.deepEqual(model.changedFields(doc(), doc({ level: 2 })), { fields: ['api.level'], secrets: [] });
  assert.deepEqual(model.changedFields(doc(), doc({ key: 'new', nested: { token: 't', url: 'http://x' } })), { fields: ['api.key', 'api.nested'], secrets: ['api.key', 'api.nested.token'] });
  assert.deepEqual(model.changedFields(doc({ env: { A: '1' } }), doc({ env: { A: '2' } })), { fields: ['api.env'], secrets: ['api.env'] });
  // a non-secret field next to a secret: only the field
  assert.deepEqual(model.changedFields(doc(), doc({ nested: { token: '', url: 'http://y' } })), { fields: ['api.nested'], secrets: [] });
  assert.deepEqual(model.changedFields(doc(), { ...doc(), plain: { on: false } }), { fields: ['plain.on'], secrets: [] });
  // a key present on one side only
  const before = doc();
  const after = { ...doc(), plain: { on: false, extra: 1 } } as unknown as Doc;
  assert.deepEqual(model.changedFields(before, after), { fields: ['plain.on', 'plain.extra'], secrets: [] });
  // a section that is not an object on one side is named whole
  assert.deepEqual(model.changedFields(before, { ...doc(), plain: null } as unknown as Doc), { fields: ['plain'], secrets: [] });
});

test('redact and secretValues skip secrets whose holder is missing or not an object', () => {
  const odd = { api: { ...model.defaults.api, key: 7, env: 5, nested: null }, plain: { on: true } } as unknown as Doc;
  assert.deepEqual(model.secretValues(odd), []);
  assert.deepEqual(model.redact(odd), odd);
  assert.deepEqual(model.secretValues({ plain: { on: true } } as unknown as Doc), []);
});

test('the network section: at most 32 hosts of 1 to 253 characters, at most 32 origins', () => {
  const ok = (value: unknown) => networkSettings.schema.safeParse({ ...networkSettings.defaults, ...(value as object) }).success;
  assert.equal(ok({ allowedHosts: Array.from({ length: 32 }, (_, i) => `h${i}.test`) }), true);
  assert.equal(ok({ allowedHosts: Array.from({ length: 33 }, (_, i) => `h${i}.test`) }), false);
  assert.equal(ok({ allowedHosts: ['a'.repeat(253)] }), true);
  assert.equal(ok({ allowedHosts: ['a'.repeat(254)] }), false);
  assert.equal(ok({ allowedHosts: [''] }), false);
  assert.equal(ok({ allowedHosts: ['h'] }), true);
  assert.equal(ok({ allowedOrigins: Array.from({ length: 32 }, (_, i) => `https://h${i}.test`) }), true);
  assert.equal(ok({ allowedOrigins: Array.from({ length: 33 }, (_, i) => `https://h${i}.test`) }), false);
  assert.equal(ok({ allowedOrigins: ['https://one.test'] }), true);
});
