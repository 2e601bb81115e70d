// src/core/errors.ts says ERROR_CODES lists every code the service answers with (the OpenAPI document's
// `error` enum is made from it). The compiler holds AppError and its helpers to the list, but not an error
// body built by hand (the web-routing proxy writes its own answers), so this reads every source file for
// the code of each way an error is made and checks the list has it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_CODES } from '../../src/core/errors.ts';

const SRC = join(import.meta.dirname, '../../src');
const CODE = `'([A-Z][A-Z0-9_]*)'`;
/** Where a code is written: an AppError and its helpers, an `error:` field of a body, a `code:` of an error object. */
const SHAPES = [
  new RegExp(`new AppError\\(\\s*[^,()]+,\\s*${CODE}`, 'g'),
  new RegExp(`\\b(?:badRequest|forbidden|conflict|unavailable)\\(\\s*${CODE}`, 'g'),
  new RegExp(`\\berror:\\s*${CODE}`, 'g'),
  new RegExp(`["']?\\bcode["']?:\\s*${CODE}`, 'g'),
  /\\?"error\\?":\s*\\?"([A-Z][A-Z0-9_]*)\\?"/g,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Node's own codes (ENOENT, ERR_INVALID_ARG_TYPE) on the errors svc makes of system calls: never an answer's. */
const NODE_CODE = /^(E[A-Z]+|ERR_[A-Z0-9_]+)$/;

/** Every code written in the sources, with the first file that writes it. */
function codesIn(files: { path: string; text: string }[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const { path, text } of files) {
    for (const shape of SHAPES) {
      for (const [, code] of text.matchAll(shape)) if (!NODE_CODE.test(code!) && !found.has(code!)) found.set(code!, path);
    }
  }
  return found;
}

test('every error code made in src/ is in ERROR_CODES', () => {
  const files = sources(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));
  const found = codesIn(files);
  const listed = new Set<string>(ERROR_CODES);
  const missing = [...found].filter(([code]) => !listed.has(code)).map(([code, file]) => `${code} (${file})`);
  assert.deepEqual(missing, [], `add these to ERROR_CODES in src/core/errors.ts: ${missing.join(', ')}`);
  // the reading sees each shape (a pattern that matched nothing would pass any list)
  for (const [code, file] of [['UNAUTHORIZED', 'core/errors.ts'], ['SSE_CAPACITY', 'modules/events/events.routes.ts'], ['BLOCKED_BY_RULE', 'modules/automation/web-routing/rules.ts'], ['UPSTREAM_ERROR', 'modules/automation/web-routing/proxy.ts'], ['MCP_INSTALL_FAILED', 'modules/mcp/install.ts']]) {
    assert.ok(files.some((f) => f.path === file) && codesIn(files.filter((f) => f.path === file)).has(code!), `${code} in ${file}`);
  }
  assert.ok(found.size > 150, `only ${found.size} codes found`);
});

test('the reading finds each way a code is written, and nothing else', () => {
  const text = [
    "throw new AppError(404, 'X_ONE', 'x');",
    "throw badRequest('X_TWO', 'x'); conflict( 'X_THREE', 'y'); unavailable('X_FOUR', 'z'); forbidden('X_FIVE', 'w');",
    "sendJson(res, 502, { error: 'X_SIX', message: 'm' });",
    "Object.assign(new Error('timeout'), { code: 'X_SEVEN' });",
    '// answers {"error":"X_EIGHT",…} and "  block … {\\"error\\":\\"X_NINE\\",…}"',
    "const label = 'NOT_A_CODE'; log('ALSO_NOT', code); Object.assign(err, { code: 'ENOENT' }); ({ code: 'ERR_STREAM_DESTROYED' });",
  ].join('\n');
  assert.deepEqual([...codesIn([{ path: 'x.ts', text }]).keys()].sort(), ['X_EIGHT', 'X_FIVE', 'X_FOUR', 'X_NINE', 'X_ONE', 'X_SEVEN', 'X_SIX', 'X_THREE', 'X_TWO']);
});
