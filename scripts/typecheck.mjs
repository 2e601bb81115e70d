// Type-checks the server, tests and benchmarks (tsconfig.json) and the web UI (web/tsconfig.json) side by
// side with TypeScript 7's native compiler, each on one thread: it runs beside the tests (scripts/test.mjs),
// where its own threads would take CPU from them. Exits non-zero if either fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const pkg = createRequire(import.meta.url).resolve('typescript/package.json');
const tsc = join(dirname(pkg), 'bin', 'tsc');
const check = (project) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '--noEmit', '--singleThreaded', '-p', project], { stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });
const codes = await Promise.all([check('.'), check('web')]);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
