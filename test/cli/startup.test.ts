// Start-up regression check: `svc serve` beside a bare node:http server, and the client commands
// beside `node -e ''`, started alternately so both see the same (busy, shared) machine. The limits
// are ratios with generous headroom over the targets (serve ≤ 3×, commands ≤ 2×; the measured
// figures are in the README): an import that weighs a quarter of a second on the start-up path
// (playwright-core does) breaks them, noise does not.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { freePort } from '../support/ports.ts';
import { tempHome } from '../support/server.ts';
import { bareServerScript, median, svcCommand, timeCommand, timeServerStart } from '../support/startup.ts';

const RUNS = 7;
const SERVE_LIMIT = 4.5;
const COMMAND_LIMIT = 3;

const bundle = new URL('../../dist/cli.bundle.js', import.meta.url).pathname;
const home = tempHome('svc-startup-');
after(() => rmSync(home, { recursive: true, force: true }));

test('the built CLI exists (npm test builds it first)', () => {
  assert.ok(existsSync(bundle), `${bundle} is missing: run \`npm run build\``);
});

test(`svc serve answers its first request within ${SERVE_LIMIT}× the time a bare node:http server takes`, async () => {
  const bareScript = bareServerScript();
  const bare: number[] = [];
  const svc: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push((await timeServerStart((port) => ({ command: process.execPath, args: [bareScript, String(port)] }), '/')).firstOkMs);
    const proxyPort = await freePort();
    const args = (port: number) => ['serve', '--port', String(port), '--home', home, '--proxy-port', String(proxyPort)];
    svc.push((await timeServerStart((port) => svcCommand(args(port)), '/api/health')).firstOkMs);
  }
  const ratio = median(svc) / median(bare);
  assert.ok(ratio <= SERVE_LIMIT, `svc serve ${median(svc).toFixed(0)} ms vs bare ${median(bare).toFixed(0)} ms: ${ratio.toFixed(2)}×`);
});

test(`svc client commands start within ${COMMAND_LIMIT}× a bare \`node -e ''\``, () => {
  const commands = { version: ['--version'], help: ['--help'], token: ['token', '--home', home] };
  const times: Record<string, number[]> = { bare: [], version: [], help: [], token: [] };
  for (let i = 0; i < RUNS; i++) {
    times.bare!.push(timeCommand(process.execPath, ['-e', '']));
    for (const [name, args] of Object.entries(commands)) {
      const { command, args: full } = svcCommand(args);
      times[name]!.push(timeCommand(command, full));
    }
  }
  const bare = median(times.bare!);
  for (const name of Object.keys(commands)) {
    const ratio = median(times[name]!) / bare;
    assert.ok(ratio <= COMMAND_LIMIT, `svc ${name} ${median(times[name]!).toFixed(0)} ms vs node -e '' ${bare.toFixed(0)} ms: ${ratio.toFixed(2)}×`);
  }
});
