#!/usr/bin/env -S node --max-semi-space-size=1
// The `svc` executable. It runs the built CLI (dist/cli.bundle.js, made by `npm install` / `npm run
// build`) through bin/run-bundle.js; in a checkout without a build, the TypeScript sources through tsx.
//
// The flag on the first line caps V8's young generation at 1 MB a half: by default it grows to 16 MB
// while svc starts and stays committed, which an idle `svc serve` pays for in memory (about 6 MB).
// V8 sizes its heap before any code runs, so the flag has to be on the command line.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/cli.bundle.js', import.meta.url));
if (existsSync(bundle)) {
  const { runBundle } = await import('./run-bundle.js');
  runBundle(bundle, process.argv[2] === 'serve' ? 'serve' : 'cli');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
