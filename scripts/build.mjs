// Builds everything `svc` serves and runs: the browser UI into web/dist (scripts/build-web.mjs), and
// the server and CLI into one script, dist/cli.bundle.js, that bin/svc.js runs through V8's code
// cache (bin/run-bundle.js). Then it runs `svc serve` and `svc status` once, so the first real start
// finds its code cache made.
//
// Start-up time and idle memory follow the amount of code a command loads and compiles, so:
// - the bundle is one script, not ES modules: Node 20 can cache the compiled code of a script (and
//   not of a module), which halves the time `svc serve` takes to load; the code no command reaches
//   stays in lazily-run wrappers, so `svc token` does not evaluate the server;
// - it is minified, without keeping names: esbuild keeps a name with a defineProperty call per function and
//   class as its module is evaluated, which leaves each function's properties in dictionary mode; that was
//   a fifth of `svc serve`'s start-up CPU (80 ms) and ~0.7 MB of its heap. `node --enable-source-maps
//   bin/svc.js …` gives stack traces with source files and lines instead (bin/run-bundle.js);
// - the big optional stacks (playwright, tesseract) and ws's optional addons are external and load on use;
//   better-sqlite3's JavaScript is bundled (its fifteen files were read and compiled at every start, outside
//   the code cache) and its addon is loaded by path (src/store/db.ts);
// - Fastify requires its schema compilers (ajv, fast-json-stringify), pino and light-my-request only
//   when a route has a Fastify schema, a Fastify logger is configured, or inject() is called; svc
//   validates with zod, logs on its own and injects only in tests, so they stay external too;
// - zod's 40 translations of its messages: svc speaks English (src/core/zod-locales.ts);
// - commander requires node:child_process (and with it net and streams) for subcommands run as
//   separate executables, which svc has none of, and Fastify node:http2 for an HTTP/2 server, which
//   svc does not make: each gets it on first use; Fastify's argument checks and reply clock get
//   stand-ins for node:assert and node:perf_hooks, and its plugin version check its answer for svc's
//   own plugins, checked here;
// - `svc status`, `svc token`, help and the version run from dist/client-core.bundle.js, with their own
//   code only (72 KB);
// - the client commands run from a second bundle, dist/client.bundle.js, without the servers (`svc
//   serve`, `svc dashboard serve`): less to read and to check against the code cache at every `svc …`
//   the agent runs. bin/svc.js picks the bundle by the command.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';
import { CACHE_DIR } from '../bin/run-bundle.js';

const BUNDLE = 'dist/cli.bundle.js';
const CLIENT_BUNDLE = 'dist/client.bundle.js';
const CORE_BUNDLE = 'dist/client-core.bundle.js';
const BIN = 'bin/svc.js';

await buildWeb();

/** zod's locale index imports every language; the bundle gets the English one only. */
const englishZod = {
  name: 'english-zod',
  setup(b) {
    b.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'zod')}`) ? { path: join(process.cwd(), 'src/core/zod-locales.ts') } : undefined,
    );
  },
};

/**
 * Node modules a package requires at its start and uses only in code svc seldom or never runs, required on
 * first use instead: commander's child_process (subcommands run as separate executables), Fastify's http2
 * and https (an HTTP/2 server; an HTTPS one, with --tls-cert), ws's https, tls and zlib (a WebSocket client;
 * compressed messages, which svc's servers do not offer). node:tls alone was 2-3 ms of every `svc serve`.
 * node:crypto (36 of Node's modules, ~5 ms, which a bare node:http server never loads) is required by ws,
 * @fastify/websocket and svc's own modules at their top, and first called when a request carries a token, a
 * run starts or an id is made: a later start calls none of it.
 */
const LAZY_BUILTINS = { src: ['crypto'], commander: ['child_process'], fastify: ['http2', 'https'], ws: ['crypto', 'https', 'tls', 'zlib'], '@fastify/websocket': ['crypto'] };

/**
 * A stand-in for the Node module `name` that requires it on first use. Its functions are functions that
 * call the module's (so `const { randomBytes } = require('node:crypto')` at a module's top loads nothing);
 * its classes and other values are getters (a class must be the module's own for `new` and instanceof).
 * The names are read here, from the Node that builds; esbuild's import interop copies them.
 */
const lazyModules = new Map();
function lazyModule(name) {
  if (lazyModules.has(name)) return lazyModules.get(name);
  const module = createRequire(import.meta.url)(`node:${name}`);
  const isPlainFunction = (key) => typeof module[key] === 'function' && /^[a-z]/.test(key) && !/^class\b/.test(Function.prototype.toString.call(module[key]));
  const functions = Object.keys(module).filter(isPlainFunction);
  const others = Object.keys(module).filter((key) => !isPlainFunction(key));
  const contents = `let loaded; const load = () => (loaded ??= require('node:${name}'));
for (const key of ${JSON.stringify(functions)}) exports[key] = function (...args) { return load()[key].apply(this, args); };
for (const key of ${JSON.stringify(others)}) Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] });`;
  lazyModules.set(name, contents);
  return contents;
}

/**
 * Node modules two of Fastify's parts require at load for one small use, which a bare node:http server never
 * loads (about 2 ms of every `svc serve` between them):
 * - Fastify and find-my-way check their arguments with `assert(condition, message)` alone: node:assert (and
 *   its error, call-tracker and comparison modules) loads when a check fails, to fail it;
 * - Fastify times each reply with `performance.now()`, which loads node:perf_hooks at the first request;
 *   it keeps only the difference of two readings, which process.hrtime's monotonic clock gives the same.
 */
const STAND_INS = {
  assert: { owners: ['fastify', 'find-my-way'], contents: "module.exports = (value, message) => { if (!value) require('node:assert')(value, message); };" },
  perf_hooks: { owners: ['fastify'], contents: 'module.exports = { performance: { now: () => Number(process.hrtime.bigint()) / 1e6 } };' },
};

/** Whether the module `importer` is part of the package `pkg` (`src`: svc's own sources). */
const partOf = (importer, pkg) => (pkg === 'src' ? importer.startsWith(join(process.cwd(), 'src', '')) : importer.includes(join('node_modules', pkg, '')));

/** The stand-in `importer` gets for the Node module `name` (LAZY_BUILTINS, STAND_INS), or none. */
function standInFor(importer, name) {
  if (STAND_INS[name]?.owners.some((pkg) => partOf(importer, pkg))) return { path: `stand-in/${name}`, contents: STAND_INS[name].contents };
  const owner = Object.keys(LAZY_BUILTINS).find((pkg) => partOf(importer, pkg));
  return owner && LAZY_BUILTINS[owner].includes(name) ? { path: `lazy/${name}`, contents: lazyModule(name) } : undefined;
}

const builtinStandIns = {
  name: 'builtin-stand-ins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_0-9]+$/ }, (args) => {
      const standIn = standInFor(args.importer, args.path.replace(/^node:/, ''));
      return standIn && { path: standIn.path, namespace: 'builtin-stand-ins', pluginData: standIn.contents };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-stand-ins' }, (args) => ({ contents: args.pluginData, loader: 'js' }));
  },
};

/**
 * Fastify checks each plugin's declared Fastify range with semver, whose regular expressions and classes
 * took about 2 ms of every `svc serve` to build. The ranges svc's own Fastify plugins declare are checked
 * here, against the Fastify being bundled (a mismatch fails the build, as it would fail every start); Fastify
 * gets their answer, and semver itself, loaded on first use, for any other range or version.
 */
const fastifySemver = {
  name: 'fastify-semver',
  setup(b) {
    b.onResolve({ filter: /^semver$/ }, (args) => (partOf(args.importer, 'fastify') ? { path: 'semver', namespace: 'fastify-semver' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'fastify-semver' }, () => {
      const { version, ranges } = checkedFastifyRanges();
      return {
        contents: `const VERIFIED = new Set(${JSON.stringify(ranges)});
module.exports = {
  satisfies: (version, range, options) => (version === ${JSON.stringify(version)} && VERIFIED.has(range)) || require('semver/functions/satisfies')(version, range, options),
  gt: (a, b) => require('semver/functions/gt')(a, b),
  coerce: (version) => require('semver/functions/coerce')(version),
};`,
        loader: 'js',
        resolveDir: process.cwd(),
      };
    });
  },
};

/**
 * Non-ASCII characters that esbuild leaves as they are (in a regular expression literal) in a package's code: the
 * same character as a \u escape, which means the same in a regular expression, a string or a comment. Today one:
 * JetStream's duration parser reads "µs".
 */
const asciiRegexps = {
  name: 'ascii-regexps',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]@nats-io[\\/]jetstream[\\/].*\.js$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      loader: 'js',
    }));
  },
};

/** The Fastify ranges svc's @fastify/* dependencies declare, each satisfied by the installed Fastify. */
function checkedFastifyRanges() {
  const require = createRequire(import.meta.url);
  const satisfies = require('semver/functions/satisfies');
  const { version } = require('fastify/package.json');
  const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8'));
  const ranges = [];
  for (const plugin of Object.keys(dependencies).filter((name) => name.startsWith('@fastify/'))) {
    for (const [, range] of readFileSync(require.resolve(plugin), 'utf8').matchAll(/\bfastify:\s*['"]([^'"]+)['"]/g)) {
      if (!satisfies(version, range)) throw new Error(`${plugin} declares Fastify ${range}; the installed Fastify is ${version}`);
      ranges.push(range);
    }
  }
  return { version, ranges };
}

/** The client bundle: the servers' entry modules (imported by src/cli/main.ts) are left out. */
const withoutServers = {
  name: 'without-servers',
  setup(b) {
    b.onResolve({ filter: /^\.\/(serve|dashboard)\.ts$/ }, (args) =>
      args.importer.endsWith(join('src', 'cli', 'main.ts')) ? { path: args.path, namespace: 'without-servers' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'without-servers' }, (args) => ({
      contents: `throw new Error('${args.path} is in ${BUNDLE}: bin/svc.js runs the servers from there');`,
      loader: 'js',
    }));
  },
};

/**
 * The core client bundle: `svc status`, `svc token`, help and the version (bin/run-bundle.js's CORE_COMMANDS).
 * Each command's code is a dynamic import in src/cli/main.ts; those of other commands are left out (72 KB
 * instead of 1 MB: zod, the browser, memory and orchestration clients…). A command that reached one would
 * say so instead of running.
 */
const CORE_IMPORTS = ['./target.ts', './status.ts', './token.ts'];
const coreCommandsOnly = {
  name: 'core-commands-only',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith(join('src', 'cli', 'main.ts')) && !CORE_IMPORTS.includes(args.path)
        ? { path: args.path, namespace: 'core-commands-only' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'core-commands-only' }, (args) => ({
      contents: `throw new Error('${args.path} is in ${CLIENT_BUNDLE}: bin/svc.js runs this command from there');`,
      loader: 'js',
    }));
  },
};

// Builds of earlier layouts (ES module chunks) and code caches of earlier bundles go.
for (const stale of ['dist/chunks', 'dist/cli.js', 'dist/cli.js.map', join('dist', CACHE_DIR)]) rmSync(stale, { recursive: true, force: true });

const bundleOptions = {
  entryPoints: ['src/cli/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of the external packages becomes require(): a script has no module loader of its own
  supported: { 'dynamic-import': false },
  minify: true,
  keepNames: false,
  external: [
    'playwright-core', 'tesseract.js', '@tesseract.js-data/*', 'pngjs', 'bufferutil', 'utf-8-validate',
    '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'pino', 'light-my-request',
    // the chat channels' SDKs load only when a channel is enabled
    'grammy', 'discord.js',
  ],
  plugins: [englishZod, builtinStandIns, fastifySemver, asciiRegexps],
  // The script is one function expression: run-bundle.js calls it with what a CommonJS module gets.
  banner: { js: '(function (require, module, exports, __filename, __dirname) {const __svcImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  footer: { js: '})' },
  define: { 'import.meta.url': '__svcImportMetaUrl' },
  sourcemap: 'linked',
  logLevel: 'warning',
};
await build({ ...bundleOptions, outfile: BUNDLE });
await build({ ...bundleOptions, outfile: CLIENT_BUNDLE, plugins: [...bundleOptions.plugins, withoutServers] });
await build({ ...bundleOptions, outfile: CORE_BUNDLE, plugins: [...bundleOptions.plugins, withoutServers, coreCommandsOnly] });
for (const bundle of [BUNDLE, CLIENT_BUNDLE, CORE_BUNDLE]) assertAscii(bundle);

await warmCodeCache();

/**
 * bin/run-bundle.js reads a bundle as Latin-1, which for ASCII is the same text made without decoding UTF-8,
 * and V8 keeps it as a one-byte string: half the memory of a two-byte one (the source stays alive as long
 * as its functions do) and faster to read. esbuild escapes strings and identifiers, not regular expressions.
 */
function assertAscii(bundle) {
  const text = readFileSync(bundle, 'utf8');
  const at = text.search(/[^\x00-\x7f]/);
  if (at < 0) return;
  throw new Error(`${bundle} is not ASCII at "${text.slice(Math.max(0, at - 40), at + 10)}": write the character as a \\u escape in the source`);
}

/**
 * Runs each kind of start once as `svc` runs them, so each leaves its code cache (bin/run-bundle.js):
 * `svc serve` until it has answered a request, then `svc status` (the core client bundle) and `svc memory
 * status` (the other) against it. A client command's cache holds the code that command ran: the HTTP client
 * and the finding of the server are what the `svc …` commands an agent runs have in common.
 */
async function warmCodeCache() {
  const home = mkdtempSync(join(tmpdir(), 'svc-build-'));
  const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--home', home, '--proxy-port', '0'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk) => {
        out += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]);
      });
      server.once('exit', (code) => reject(new Error(`svc serve exited (${code}) before it listened`)));
      setTimeout(() => reject(new Error('svc serve did not listen within 30 s')), 30_000).unref();
    });
    for (const path of ['/api/health', '/', '/api/sessions']) await fetch(`${url}${path}`).catch(() => undefined);
    // `svc status` runs from the core client bundle, `svc memory status` from the other one
    for (const args of [['status'], ['memory', 'status']]) spawnSync(process.execPath, [BIN, ...args, '--home', home], { stdio: 'ignore', timeout: 30_000 });
    const cacheDir = join('dist', CACHE_DIR);
    for (const start = Date.now(); Date.now() - start < 10_000; await new Promise((r) => setTimeout(r, 50))) {
      if (existsSync(cacheDir) && readdirSync(cacheDir).some((name) => name.startsWith('serve-'))) break;
    }
  } catch (err) {
    console.warn(`build: the code cache of svc serve is not made (${err.message}); the first start makes it`);
  } finally {
    server.kill('SIGTERM');
    rmSync(home, { recursive: true, force: true });
  }
}
