// Type-checks the server, tests and benchmarks (tsconfig.json) and the web UI (web/tsconfig.json) side by
// side: two compilers on two cores take about as long as the larger one alone. Exits non-zero if either fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const check = (project) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', project], { stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });
const codes = await Promise.all([check('.'), check('web')]);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
