// The import rules of src/ (scripts/import-rules.ts, docs/architecture.md): the tree follows them, and
// the checker catches each kind of violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { checkImports, importsOf, readSources } from '../scripts/import-rules.ts';

const ROOT = join(import.meta.dirname, '..');

test('src/ follows the import rules', () => {
  const violations = checkImports(readSources(ROOT));
  assert.deepEqual(violations.map((v) => v.message), []);
});

const tree = (files: Record<string, string>) => new Map(Object.entries(files));
const rulesOf = (files: Record<string, string>) => checkImports(tree(files)).map((v) => v.rule);

test('every form of import is seen: type-only, re-export, dynamic', () => {
  assert.deepEqual(
    importsOf(`import type { A } from './a.ts';\nexport { b } from "../b.ts";\nconst c = await import('./c.ts');\nimport 'node:fs';\nimport x from 'zod';`),
    ['./a.ts', '../b.ts', './c.ts'],
  );
});

test('a module reaching into another module\'s internals is refused; its index.ts is fine', () => {
  const base = {
    'src/modules/chat/index.ts': "export * from './chat.service.ts';",
    'src/modules/chat/chat.service.ts': '',
    'src/modules/runs/index.ts': '',
  };
  assert.deepEqual(rulesOf({ ...base, 'src/modules/runs/runs.service.ts': "import { x } from '../chat/chat.service.ts';" }), ['module-internals']);
  assert.deepEqual(rulesOf({ ...base, 'src/modules/runs/runs.service.ts': "import { x } from '../chat/index.ts';" }), []);
  // a server too goes through the index
  assert.deepEqual(rulesOf({ ...base, 'src/servers/core.ts': "import { x } from '../modules/chat/chat.service.ts';" }), ['module-internals']);
});

test('the HTTP kit is for servers and *.routes.ts files only', () => {
  const base = { 'src/http/routes.ts': '', 'src/modules/chat/index.ts': '' };
  assert.deepEqual(rulesOf({ ...base, 'src/modules/chat/chat.service.ts': "import '../../http/routes.ts';" }), ['http-kit']);
  assert.deepEqual(rulesOf({ ...base, 'src/modules/chat/chat.routes.ts': "import '../../http/routes.ts';" }), []);
  assert.deepEqual(rulesOf({ ...base, 'src/agent/runtime.ts': "import '../http/routes.ts';" }), ['layer', 'http-kit']);
  assert.deepEqual(rulesOf({ ...base, 'src/servers/core.ts': "import '../http/routes.ts';" }), []);
});

test('core and protocol import nothing above them; layers only import downwards', () => {
  assert.deepEqual(rulesOf({ 'src/core/errors.ts': "import '../protocol/events.ts';", 'src/protocol/events.ts': '' }), ['layer']);
  assert.deepEqual(rulesOf({ 'src/protocol/events.ts': "import '../agent/runtime.ts';", 'src/agent/runtime.ts': '' }), ['layer']);
  assert.deepEqual(rulesOf({ 'src/protocol/events.ts': "import '../core/errors.ts';", 'src/core/errors.ts': '' }), []);
  assert.deepEqual(rulesOf({ 'src/agent/runtime.ts': "import '../modules/chat/index.ts';", 'src/modules/chat/index.ts': '' }), ['layer']);
});

test('cycles are found, also through type-only imports, and named as a path', () => {
  const violations = checkImports(tree({
    'src/agent/a.ts': "import type { B } from './b.ts';",
    'src/agent/b.ts': "import { c } from './c.ts';",
    'src/agent/c.ts': "import type { A } from './a.ts';",
    'src/agent/d.ts': "import { a } from './a.ts';",
  }));
  assert.equal(violations.length, 1);
  assert.equal(violations[0]!.rule, 'cycle');
  assert.match(violations[0]!.message, /src\/agent\/a\.ts → src\/agent\/b\.ts → src\/agent\/c\.ts → src\/agent\/a\.ts/);
});
