// Compiles the test files for `npm test` ahead of the run: one esbuild build of every test file, their
// shared code split into common chunks, npm packages left to Node. Through tsx each test process
// transformed and loaded some 300 TypeScript modules one by one on the loader thread: 1.1 s and 1.8 s
// of CPU before its first test for a file that starts a server. The compiled file loads in 0.4 s.
// That was a quarter of the suite's CPU on a 2-core machine (docs/testing.md).
//
// What a module sees stays what it saw under tsx: each one's import.meta.url, .dirname and .filename
// are its own source file's (so paths relative to a test or a fixture resolve as before), and stack
// traces point into the sources (source maps, node --enable-source-maps).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Replaces import.meta.url/.dirname/.filename in a module with its own source file's values. */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      if (source.includes('import.meta.')) {
        source = source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
      }
      return { contents: source, loader: 'ts' };
    });
  },
};

/**
 * Compiles `files` (paths relative to the project) into `outDir`; returns each test file's compiled path,
 * in the same order. Throws with esbuild's messages if a file does not compile.
 */
export async function bundleTests(files, outDir) {
  const root = process.cwd();
  rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: files.map((f) => resolve(root, f)),
    outdir: outDir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    plugins: [ownImportMeta],
    logLevel: 'error',
  });
  return files.map((f) => join(outDir, relative(root, resolve(root, f)).replace(/\.ts$/, '.mjs')));
}
