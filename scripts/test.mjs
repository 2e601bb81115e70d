// Runs every test file under test/ with node's own runner, compiled ahead by esbuild (scripts/test-bundle.mjs).
// Usage: node scripts/test.mjs [--typecheck] [substring-filter ...]
// --typecheck type-checks the project (scripts/typecheck.mjs) while the tests run, and fails the run if it
// fails: run first, its 40 s held up every test; beside them it fills the moments the tests wait on servers,
// browsers and timers (npm test passes it).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { bundleTests } from './test-bundle.mjs';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const args = process.argv.slice(2);
const typecheck = args.includes('--typecheck');
const filters = args.filter((a) => a !== '--typecheck');
const files = collect('test')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
// The per-file timeout: Node 20's runner runs each file as one test of its own, and --test-timeout
// bounds it, so a file that hangs (a test that never settles, or a server left open after its last
// test) is cancelled and reported by its path, and the other files go on. The slowest files (real
// Chromium) take about two minutes on a loaded 2-core machine; env SVC_TEST_FILE_TIMEOUT_MS overrides.
const fileTimeoutMs = Number(process.env.SVC_TEST_FILE_TIMEOUT_MS) || 240_000;
// The browser UI tests need web/dist built from the current sources: built here once, not by each of
// their files (test/web/ui/helpers.ts buildWeb skips the build when SVC_TEST_WEB_BUILT says it is done).
const env = { ...process.env, NODE_ENV: 'test' };
// NODE_EXTRA_CA_CERTS makes every Node process read and parse a CA bundle at start (a machine that points it
// at the system's bundle pays ~0.1 s of CPU per process). The suite starts thousands of Node processes (each
// test file, every svc command, every fake provider CLI) and none reaches a TLS server outside this machine
// (its TLS tests make their own certificates), so the tests run without it: a third less CPU on such a machine.
delete env.NODE_EXTRA_CA_CERTS;
if (files.some((f) => f.startsWith(join('test', 'web', 'ui')))) {
  const build = spawnSync(process.execPath, [join('scripts', 'build-web.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  env.SVC_TEST_WEB_BUILT = '1';
}
// Files run at once: env SVC_TEST_CONCURRENCY, else what measured fastest on a 2-core machine (docs/testing.md).
const concurrency = Number(process.env.SVC_TEST_CONCURRENCY) || 3;
// Each file's time goes to .cache/test-times.json (scripts/test-times.mjs); the slowest are printed at the end.
const TIMES = join('.cache', 'test-times.json');
mkdirSync('.cache', { recursive: true });
const started = Date.now();
// The test files run compiled (scripts/test-bundle.mjs); their source maps point failures at the sources.
const compiled = await bundleTests(files, join('.cache', 'test-build'));
const checking = typecheck ? typeCheck() : null;
const tests = spawn(
  process.execPath,
  [
    '--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${fileTimeoutMs}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-times.mjs', `--test-reporter-destination=${TIMES}`,
    ...compiled,
  ],
  { stdio: 'inherit', env },
);
const [testCode] = await once(tests, 'close');
printSlowest(Date.now() - started);
const checked = checking ? await checking : null;
if (checked) console.log(checked.code === 0 ? '\ntype-check: no errors' : `\ntype-check failed:\n${checked.output}`);
process.exit(testCode === 0 && (!checked || checked.code === 0) ? 0 : 1);

/** Runs the type-check in the background; its output is kept for after the tests'. */
async function typeCheck() {
  const child = spawn(process.execPath, [join('scripts', 'typecheck.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const [code] = await once(child, 'close');
  return { code, output };
}

function printSlowest(wallMs) {
  let files;
  try {
    files = JSON.parse(readFileSync(TIMES, 'utf8')).files;
  } catch {
    return;
  }
  const sum = files.reduce((total, f) => total + f.seconds, 0);
  console.log(`\ntest files: ${files.length} in ${(wallMs / 1000).toFixed(0)} s of wall time (${sum.toFixed(0)} s of file time); the slowest (all in ${TIMES}):`);
  for (const f of files.slice(0, 12)) console.log(`  ${f.seconds.toFixed(1).padStart(6)} s  ${relative(process.cwd(), f.file)}`);
}
