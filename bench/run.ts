// Runs every benchmark, one process each (so one cannot skew another's memory), and prints one JSON
// object of their figures. `npm run bench`, or `npm run bench -- startup search` for a subset.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const ALL = ['startup', 'sse-fanout', 'ws-fanout', 'search', 'memory', 'agent', 'models', 'orchestration', 'browser', 'web-routing', 'ui', 'vision-click', 'dashboard', 'voice', 'permissions', 'worktrees', 'disk', 'fleet', 'fleet-tunnel', 'fleet-work', 'soak'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = (wanted.length ? wanted : ALL).filter((n) => existsSync(new URL(`./${n}.ts`, import.meta.url)));

const results: Record<string, unknown> = {
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version, platform: `${process.platform}-${process.arch}` },
};
for (const name of names) {
  process.stderr.write(`bench: ${name}…\n`);
  const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', new URL(`./${name}.ts`, import.meta.url).pathname], {
    encoding: 'utf8',
    // the soak sends 20,000 messages: about 12 minutes on a quiet 2-core machine
    timeout: 30 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  try {
    results[name] = JSON.parse(run.stdout);
  } catch {
    results[name] = { error: `exit ${run.status ?? run.signal}`, stderr: run.stderr.slice(-2000) };
  }
}
console.log(JSON.stringify(results, null, 2));
