// lazySchema (src/protocol/lazy-schema.ts): a schema built on first use behaves as the schema itself for
// every use svc makes of one, and loading the wire shapes builds none of theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { lazySchema } from '../../src/protocol/lazy-schema.ts';

const PROTOCOL = join(import.meta.dirname, '../../src/protocol');

const shapeOf = () => ({ id: z.number().int(), name: z.string().min(1).max(5), tags: z.array(z.string()).optional() });

test('it is built once, on first use, and parses and refuses exactly as the schema it builds', () => {
  let builds = 0;
  const lazy = lazySchema(() => (builds++, z.strictObject(shapeOf())));
  const eager = z.strictObject(shapeOf());
  assert.equal(builds, 0, 'nothing is built before a use');
  for (const value of [{ id: 1, name: 'ab' }, { id: 1.5, name: '' }, { id: 1, name: 'ab', extra: true }, 'text', null]) {
    assert.deepEqual(lazy.safeParse(value), eager.safeParse(value), JSON.stringify(value));
  }
  assert.throws(() => lazy.parse({ id: 'x' }), z.ZodError);
  assert.equal(builds, 1);
});

test('it composes like the schema: nested, optional, extended, picked; its shape, type and JSON Schema are the same', () => {
  const Item = lazySchema(() => z.object(shapeOf()));
  const List = lazySchema(() => z.object({ items: z.array(Item), first: Item.optional() }));
  assert.deepEqual(List.parse({ items: [{ id: 1, name: 'a' }] }), { items: [{ id: 1, name: 'a' }] });
  assert.equal(List.safeParse({ items: [{ id: 1, name: 'toolong' }] }).error?.issues[0]?.path.join('.'), 'items.0.name');
  assert.deepEqual(Object.keys(Item.shape), ['id', 'name', 'tags']);
  assert.deepEqual(Item.extend({ more: z.boolean() }).parse({ id: 2, name: 'b', more: true }), { id: 2, name: 'b', more: true });
  assert.deepEqual(Item.pick({ id: true }).parse({ id: 3, name: 'c' }), { id: 3 });
  assert.ok(Item instanceof z.ZodObject);
  assert.ok('_zod' in Item);
  assert.deepEqual(z.toJSONSchema(List), z.toJSONSchema(z.object({ items: z.array(z.object(shapeOf())), first: z.object(shapeOf()).optional() })));
});

test('loading every module of src/protocol builds no schema until one is used', () => {
  // zod calls its post-processor hook (what `zod/compile` installs) once for every schema it makes
  const modules = readdirSync(PROTOCOL).filter((name) => name.endsWith('.ts'));
  const script = `
    let made = 0;
    globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, postProcessor: () => made++ };
    const { z } = await import('zod');
    z.string();
    if (made !== 1) throw new Error('the hook no longer counts schemas: ' + made);
    made = 0;
    for (const name of ${JSON.stringify(modules)}) await import(${JSON.stringify(PROTOCOL)} + '/' + name);
    const loaded = made;
    const { OrcStateSchema } = await import(${JSON.stringify(PROTOCOL)} + '/orchestration.ts');
    OrcStateSchema.parse;
    console.log(JSON.stringify({ loaded, afterUse: made }));
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, result.stderr);
  const { loaded, afterUse } = JSON.parse(result.stdout) as { loaded: number; afterUse: number };
  assert.ok(loaded <= EAGER_LEFT, `loading src/protocol made ${loaded} schemas: wrap the new ones in lazySchema()`);
  assert.ok(afterUse > loaded + 20, 'a use builds the schema and the ones it is made of');
});

/**
 * What src/protocol still makes as it loads: memory.ts's `path` field, whose description is registered
 * metadata (src/protocol/lazy-schema.ts), nine schemas with zod 4.6; a little room for another version's.
 */
const EAGER_LEFT = 15;
