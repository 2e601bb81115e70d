#!/usr/bin/env node
// The `svc` executable. It runs the built CLI (dist/cli.bundle.js or dist/client.bundle.js, made by
// `npm install` / `npm run build`) through bin/run-bundle.js; in a checkout without a build, the
// TypeScript sources through tsx.
//
// It is CommonJS (bin/package.json): Node 20 sets up its ES module loader for an ES module entry,
// which a command that lives for 50 ms pays for at every start.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The servers run from the whole build; the client commands from the one without the servers
// (scripts/build.mjs), which is quicker to load.
const command = process.argv[2];
const server = command === 'serve' || command === 'dashboard';
// A server keeps V8's young generation at its first size, 1 MB a half: by default it grows to 16 MB
// while svc starts and stays committed, which an idle server pays for in memory (about 15 MB). The
// growth is decided at each collection, so setting it here, before any of svc's code runs, is enough;
// a client command, which lives for 100 ms, keeps the default and collects less often.
if (server) require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
const bundle = join(__dirname, '../dist/cli.bundle.js');
const client = join(__dirname, '../dist/client.bundle.js');
if (existsSync(bundle) && (server || existsSync(client))) {
  require('./run-bundle.js').runBundle(server ? bundle : client, command === 'serve' ? 'serve' : 'cli');
} else {
  // a checkout without a build: the TypeScript sources through tsx
  import('tsx/esm/api').then(({ register }) => {
    register();
    return import(require('node:url').pathToFileURL(join(__dirname, '../src/cli/main.ts')).href);
  });
}
