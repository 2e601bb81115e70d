// A hostile run: every operation whose valid inputs reach outside the server (EXTERNAL in
// test/support/openapi-fuzz.ts, which the fuzz gives only inputs the route kit refuses) gets valid and
// mutated inputs, several at once in a shuffled order, while each thing outside fails: no network (npm's
// registry and the chat APIs are a closed loopback port), provider CLIs fake or missing, no display, a
// real browser started, used and closed under it. Every request must be answered within HOSTILE_BOUND_MS,
// with a status its route documents and the one error body; and the server goes on serving.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { checkAnswer, EXTERNAL, fuzzedRequest, operationsOf, pathOf, send, type Document, type Operation, type Request } from '../support/openapi-fuzz.ts';
import { freePort } from '../support/ports.ts';
import { startAgentServer, type AgentTestServer } from '../support/agent.ts';
import { startManager, type TestManager } from '../modules/dashboard/helpers.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED) || 20261128;
/** Requests per operation. */
const RUNS = Number(process.env.SVC_HOSTILE_RUNS) || 5;
/** How many requests are in flight at once. */
const CONCURRENCY = 4;
/** No request may take longer than this to be answered (the hostile run waited 20 s). */
const HOSTILE_BOUND_MS = 20_000;
/** Operations left out: random settings would change the conditions of the run itself. */
const LEFT_OUT = [/^PUT \/api\/settings$/];

// Nothing the run does may reach the user's own files or the network.
const sandbox = mkdtempSync(join(tmpdir(), 'svc-hostile-home-'));
process.env.HOME = sandbox;
delete process.env.DISPLAY;

interface Finding {
  request: string;
  problem: string;
}

async function hostileRun(base: string): Promise<{ requests: number; findings: Finding[]; slowest: { request: string; ms: number }[] }> {
  const document = (await (await fetch(`${base}/api/openapi.json`)).json()) as Document;
  const codes = new Set(document.components.schemas.ErrorBody.properties.error.enum);
  const operations = operationsOf(document, EXTERNAL).filter((op) => op.external && !LEFT_OUT.some((re) => re.test(`${op.method} ${op.template.replace(/\{([^}]+)\}/g, ':$1')}`)));
  const work: { op: Operation; request: Request }[] = operations.flatMap((op, i) => fc.sample(fuzzedRequest(op), { seed: SEED + i, numRuns: RUNS }).map((request) => ({ op, request })));
  // a shuffled order, the same for a seed: what one operation leaves behind meets every other
  const order = fc.sample(fc.shuffledSubarray(work, { minLength: work.length, maxLength: work.length }), { seed: SEED, numRuns: 1 })[0]!;
  const findings: Finding[] = [];
  const times: { request: string; ms: number }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const { op, request } = order[next++]!;
      const name = `${op.method} ${pathOf(op, request)} (${request.what})`;
      const started = Date.now();
      try {
        const answer = await send(base, op, request, HOSTILE_BOUND_MS);
        times.push({ request: `${name} → ${answer.status}`, ms: Date.now() - started });
        checkAnswer(op, request, answer, codes, true);
      } catch (err) {
        findings.push({ request: name, problem: (err as Error).message.slice(0, 400) });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { requests: order.length, findings, slowest: times.sort((a, b) => b.ms - a.ms).slice(0, 8) };
}

describe('a hostile run over every operation that reaches outside the server', () => {
  let core: AgentTestServer;
  let manager: TestManager;
  before(async () => {
    // npm's registry and the chat APIs: a port nothing listens on
    const closed = `http://127.0.0.1:${await freePort()}`;
    process.env.npm_config_registry = closed;
    core = await startAgentServer({}, { browserPort: await freePort() });
    core.app.services.settings.update({ channels: { telegram: { apiBaseUrl: closed }, discord: { apiBaseUrl: closed } } });
    manager = await startManager();
  });
  after(async () => {
    await manager?.close();
    await core?.close();
    rmSync(sandbox, { recursive: true, force: true });
  });

  for (const which of ['core server', 'manager'] as const) {
    test(`${which}: every request answered within ${HOSTILE_BOUND_MS / 1000} s, with a status it documents`, async () => {
      const base = which === 'core server' ? core.url : manager.url;
      const alive = which === 'core server' ? '/api/health' : '/api/dashboard/instances';
      const result = await hostileRun(base);
      console.log(`${which} hostile run (seed ${SEED}): ${result.requests} requests; slowest: ${JSON.stringify(result.slowest)}`);
      assert.deepEqual(result.findings, [], `SVC_FUZZ_SEED=${SEED}`);
      assert.equal((await fetch(`${base}${alive}`)).status, 200, 'still serving');
    });
  }
});
