// bin/run-bundle.js runs a bundle through node:vm with its code cache. The bundles keep no function
// names (scripts/build.mjs), so with `node --enable-source-maps` it maps the bundle's stack frames to
// their source file and line itself: Node maps only the files it loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const RUN_BUNDLE = new URL('../../bin/run-bundle.js', import.meta.url).pathname;

test('with --enable-source-maps a stack trace names the source lines; without, the bundle positions', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-run-bundle-'));
  writeFileSync(join(dir, 'fail.ts'), "function explodeNow(): never {\n  throw new Error('boom');\n}\nfunction outerCaller() {\n  explodeNow();\n}\nouterCaller();\n");
  const bundle = join(dir, 'dist', 'fail.js');
  // the shape scripts/build.mjs gives a bundle: minified, one function expression, a linked map
  await build({
    entryPoints: [join(dir, 'fail.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    sourcemap: 'linked',
    banner: { js: '(function (require, module, exports, __filename, __dirname) {' },
    footer: { js: '})' },
    outfile: bundle,
    logLevel: 'silent',
  });
  const run = (flags: string[]) => spawnSync(process.execPath, [...flags, '-e', `require(${JSON.stringify(RUN_BUNDLE)}).runBundle(${JSON.stringify(bundle)}, 'test')`], { encoding: 'utf8' }).stderr;
  const mapped = run(['--enable-source-maps']);
  assert.match(mapped, /Error: boom\n {4}at \S+ \(fail\.ts:2:9\)\n {4}at \S+ \(fail\.ts:5:3\)/);
  const plain = run([]);
  assert.match(plain, /Error: boom\n {4}at \S+ \(.*dist\/fail\.js:2:\d+\)/);
  assert.doesNotMatch(plain, /fail\.ts/);
});
