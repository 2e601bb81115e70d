#!/usr/bin/env node
// The `svc` executable. It runs the built CLI (dist/cli.bundle.js or dist/client.bundle.js, made by
// `npm install` / `npm run build`) through bin/run-bundle.js; in a checkout without a build, the
// TypeScript sources through tsx.
//
// It is CommonJS (bin/package.json): Node 20 sets up its ES module loader for an ES module entry,
// which a command that lives for 50 ms pays for at every start.
//
// It sets no V8 flags: a young generation kept at 1 MB (--max-semi-space-size=1) made `svc serve` collect
// 30 times before its first answer (47 ms of its start, 60–80 ms in all) to save about 8 MB that V8 gives
// back anyway once the server has idled half a minute (docs/performance.md#start-up).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The servers run from the whole build; the client commands from the one without the servers, and the
// commonest of them (run-bundle.js's CORE_COMMANDS) from one with only their own code (scripts/build.mjs):
// the less a command reads and checks against the code cache, the sooner it starts.
const command = process.argv[2];
const server = command === 'serve' || command === 'dashboard';
const dist = (name) => join(__dirname, '../dist', name);
const { CORE_COMMANDS, runBundle } = require('./run-bundle.js');
const bundle = server ? dist('cli.bundle.js') : CORE_COMMANDS.has(command) ? dist('client-core.bundle.js') : dist('client.bundle.js');
if (existsSync(bundle)) {
  runBundle(bundle, command === 'serve' ? 'serve' : 'cli');
} else {
  // a checkout without a build: the TypeScript sources through tsx
  import('tsx/esm/api').then(({ register }) => {
    register();
    return import(require('node:url').pathToFileURL(join(__dirname, '../src/cli/main.ts')).href);
  });
}
