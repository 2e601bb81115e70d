// Mutation testing, one module at a time: `npm run mutate` (every module) or `npm run mutate -- guard sse`.
// Each module is its own Stryker run in its own process (Stryker keeps state in the config module it
// loads, so two runs do not share a process), with its source, its test files and its incremental
// file; the scores are printed together at the end.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODULES } from '../stryker.config.mjs';

const scoreFile = (name) => `reports/mutation/${name}.score.json`;

if (process.argv[2] === '--one') {
  const name = process.argv[3];
  const { Stryker } = await import('@stryker-mutator/core');
  const { default: config } = await import('../stryker.config.mjs');
  const { mutate, tests } = MODULES[name];
  console.log(`\n=== ${name}: ${mutate.join(', ')}`);
  const results = await new Stryker({
    ...config,
    mutate,
    // MUTATE_CONCURRENCY=2 on an otherwise idle machine; the config's 1 leaves room for other work
    concurrency: Number(process.env.MUTATE_CONCURRENCY) || config.concurrency,
    tap: { ...config.tap, testFiles: tests },
    incrementalFile: `reports/mutation/${name}.incremental.json`,
  }).runMutationTest();
  const count = (...statuses) => results.filter((r) => statuses.includes(r.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  mkdirSync('reports/mutation', { recursive: true });
  writeFileSync(scoreFile(name), JSON.stringify({ name, detected, undetected, score: detected + undetected ? (100 * detected) / (detected + undetected) : 100 }));
  process.exit(0);
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((m) => !(m in MODULES));
if (unknown.length) {
  console.error(`unknown module(s): ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}
const scores = [];
for (const name of wanted.length ? wanted : Object.keys(MODULES)) {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', name], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
  if (run.status !== 0) {
    console.error(`${name}: Stryker failed (exit ${run.status})`);
    process.exitCode = 1;
    continue;
  }
  scores.push(JSON.parse(readFileSync(scoreFile(name), 'utf8')));
}

console.log('\nmodule          killed  survived  score');
for (const s of scores) console.log(`${s.name.padEnd(15)} ${String(s.detected).padStart(6)} ${String(s.undetected).padStart(9)}  ${s.score.toFixed(1)} %`);
if (scores.some((s) => s.score < 85)) process.exitCode = 1;
