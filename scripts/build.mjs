// Builds everything `svc` serves and runs: the browser UI into web/dist (scripts/build-web.mjs), and
// the server and CLI into dist/cli.js plus chunks that each command loads on demand.
// Pure-JS dependencies are bundled too: loading a few large files is much faster at start-up than
// resolving hundreds of small ones. Native addons and the big optional stacks stay external.
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

await buildWeb();

await build({
  entryPoints: ['src/cli/main.ts'],
  outdir: 'dist',
  entryNames: 'cli',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'playwright-core', 'tesseract.js', '@tesseract.js-data/*', 'pngjs', 'bufferutil', 'utf-8-validate'],
  // some bundled CommonJS dependencies call require() for node built-ins
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
