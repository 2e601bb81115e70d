// Records what the real `pi --print --mode json` prints against the fake model, the way shared/protocols
// was recorded for the other CLIs (environment and command line: test/support/real-clis.ts, documented
// in docs/protocols/pi.md).
//
//   node --import tsx scripts/record-pi.ts [scenario ...]
//
// Scenarios: text thinking tool error ratelimit flaky resume resume-othercwd stale-resume nokey
// unknown-provider (default: all). resume-othercwd keeps only the second run, resumed from another working
// directory; nokey runs with no models.json and settings.json (pi's default provider, no key); unknown-provider
// names a provider models.json does not have (a deleted Pi profile). Each writes
// test/fixtures/protocols/pi-<scenario>.jsonl (stdout byte for byte; resume: both turns' stdouts one after
// the other), .stderr (stderr, then `exit=<code>`) and .server.log (one line per request the fake model
// received). Needs pi from scripts/install-real-clis.sh.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../test/support/fake-model.ts';
import { PROJECT_ROOT, prepareRealCliEnv, realCliPath, runBounded, runRealCli, type RealCliEnv, type RunResult } from '../test/support/real-clis.ts';

const OUT_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'protocols');
/** A well-formed session id that no run created. */
const UNKNOWN_SESSION = '00000000-0000-7000-8000-000000000000';
const prompt = (scenario: string) => `Acceptance test prompt. scenario:${scenario}`;

type Scenario = (env: RealCliEnv) => Promise<RunResult[]>;

async function firstTurn(env: RealCliEnv): Promise<[RunResult, string]> {
  const first = await runRealCli('pi', 'Remember the secret word pineapple. scenario:text', env);
  const id = first.lines.find((l) => l['type'] === 'session')?.['id'];
  if (typeof id !== 'string') throw new Error(`turn 1 printed no session line:\n${first.stdout}\n${first.stderr}`);
  return [first, id];
}

const single = (scenario: string): Scenario => async (env) => [await runRealCli('pi', prompt(scenario), env)];

const scenarios: Record<string, Scenario> = {
  text: single('text'),
  thinking: single('thinking'),
  tool: single('tool'),
  error: single('error'),
  ratelimit: single('ratelimit'),
  flaky: single('flaky'),
  resume: async (env) => {
    const [first, id] = await firstTurn(env);
    return [first, await runRealCli('pi', 'What was the secret word? scenario:text', env, { resume: id })];
  },
  'resume-othercwd': async (env) => {
    const [, id] = await firstTurn(env);
    const cwd = join(env.cwd, '..', 'other-work');
    mkdirSync(cwd);
    return [await runRealCli('pi', 'What was the secret word? scenario:text', { ...env, cwd }, { resume: id })];
  },
  'stale-resume': async (env) => [await runRealCli('pi', prompt('text'), env, { resume: UNKNOWN_SESSION })],
  nokey: async (env) => {
    for (const file of ['models.json', 'settings.json']) rmSync(join(env.env['PI_CODING_AGENT_DIR']!, file));
    return [await runRealCli('pi', prompt('text'), env)];
  },
  'unknown-provider': async (env) => [
    await runBounded(realCliPath('pi')!, ['--print', '--mode', 'json', '--provider', 'gone', '--model', 'fake-model', prompt('text')], { env: env.env, cwd: env.cwd }),
  ],
};

async function record(name: string, scenario: Scenario): Promise<void> {
  const log: string[] = [];
  const fake = await startFakeModel({ log: (l) => log.push(l) });
  const root = mkdtempSync(join(tmpdir(), 'svc-record-pi-'));
  try {
    const runs = await scenario(prepareRealCliEnv('pi', fake.url, root));
    const base = join(OUT_DIR, `pi-${name}`);
    writeFileSync(`${base}.jsonl`, runs.map((r) => r.stdout).join(''));
    const stderrOf = (r: RunResult) => `${r.stderr}${r.stderr && !r.stderr.endsWith('\n') ? '\n' : ''}${r.timedOut ? '[recorder] timed out\n' : ''}exit=${r.code}\n`;
    writeFileSync(`${base}.stderr`, runs.map(stderrOf).join(''));
    writeFileSync(`${base}.server.log`, `${log.join('\n')}\n`);
    console.log(`pi-${name}: exit ${runs.map((r) => r.code).join(', ')}, ${runs.reduce((n, r) => n + r.lines.length, 0)} lines, ${fake.modelRequests().length} model calls`);
  } finally {
    await fake.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (!realCliPath('pi')) {
  console.error('pi is not installed: run scripts/install-real-clis.sh');
  process.exit(1);
}
const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(scenarios)) {
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(' ')}`);
  await record(name, scenario);
}
