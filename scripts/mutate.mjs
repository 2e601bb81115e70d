// Mutation testing, one module at a time: `npm run mutate` (every module) or `npm run mutate -- guard sse`.
// Each module is its own Stryker run (its source, its test files, its incremental file), so the
// sandbox and the coverage run stay small; the scores are printed together at the end.
import { Stryker } from '@stryker-mutator/core';
import config, { MODULES } from '../stryker.config.mjs';

const wanted = process.argv.slice(2);
const unknown = wanted.filter((m) => !(m in MODULES));
if (unknown.length) {
  console.error(`unknown module(s): ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}
process.env.NODE_ENV = 'test';

const scores = [];
for (const name of wanted.length ? wanted : Object.keys(MODULES)) {
  const { mutate, tests } = MODULES[name];
  console.log(`\n=== ${name}: ${mutate.join(', ')}`);
  // a fresh copy each time: Stryker fills defaults into the options it is given
  const base = structuredClone(config);
  const results = await new Stryker({
    ...base,
    mutate,
    tap: { ...base.tap, testFiles: tests },
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    reporters: ['clear-text', 'progress'],
  }).runMutationTest();
  const count = (...statuses) => results.filter((r) => statuses.includes(r.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  scores.push({ name, detected, undetected, score: detected + undetected ? (100 * detected) / (detected + undetected) : 100 });
}

console.log('\nmodule          killed  survived  score');
for (const s of scores) console.log(`${s.name.padEnd(15)} ${String(s.detected).padStart(6)} ${String(s.undetected).padStart(9)}  ${s.score.toFixed(1)} %`);
process.exitCode = scores.every((s) => s.score >= 85) ? 0 : 1;
