// Property-based fuzzing of both servers from their route declarations, as an OpenAPI fuzzer does:
// for every operation of GET /api/openapi.json, requests made from its parameter and body schemas
// (test/support/json-schema-arbitrary.ts), valid ones and mutations of them (a field dropped, a
// wrong type, an unknown field, a control character, an overlong string, another id, a body that
// is not JSON). Each answer must be: no 5xx; a success with a status the route documents (a JSON
// answer is also checked against its schema by the server itself under NODE_ENV=test, which turns
// a mismatch into a 500); an error with the one error body and a code of the catalogue. Bounded
// (runs per operation, a timeout per request) and seeded: SVC_FUZZ_SEED=<n> replays a run, and the
// seed is printed with any failure.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkAnswer, EXTERNAL, fuzzedRequest, operationsOf, pathOf, refusedRequest, send, type Document } from '../support/openapi-fuzz.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { startManager, type TestManager } from '../modules/dashboard/helpers.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED) || 20261126;
const RUNS = Number(process.env.SVC_FUZZ_RUNS) || 20;
const REQUEST_TIMEOUT_MS = 15_000;


async function fuzz(base: string): Promise<{ operations: number; requests: number; statuses: Record<string, number> }> {
  const document = (await (await fetch(`${base}/api/openapi.json`)).json()) as Document;
  const codes = new Set(document.components.schemas.ErrorBody.properties.error.enum);
  const operations = operationsOf(document, EXTERNAL);
  const statuses: Record<string, number> = {};
  let requests = 0;
  for (const op of operations) {
    const arbitrary = op.external ? refusedRequest(op) : fuzzedRequest(op);
    await fc.assert(
      fc.asyncProperty(arbitrary, async (request) => {
        const answer = await send(base, op, request, REQUEST_TIMEOUT_MS);
        requests++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (process.env.SVC_FUZZ_TRACE) console.log(`TRACE ${op.method} ${op.template} ${answer.status} ${answer.body.slice(0, 80)}`);
        checkAnswer(op, request, answer, codes);
        if (op.external) assert.ok(answer.status === 400, `an input the kit refuses was not refused: ${op.method} ${pathOf(op, request)} (${request.what}) → ${answer.status}`);
      }),
      { seed: SEED, numRuns: op.external ? Math.ceil(RUNS / 4) : RUNS },
    ).catch((err: Error) => {
      const cause = err.cause instanceof Error ? `\n${err.cause.message}` : '';
      throw new Error(`${op.method} ${op.template}, SVC_FUZZ_SEED=${SEED}: ${err.message}${cause}`);
    });
  }
  return { operations: operations.length, requests, statuses };
}

describe('fuzzing every operation from its declaration', () => {
  let core: TestServer;
  let manager: TestManager;
  before(async () => {
    core = await startServer();
    manager = await startManager();
  });
  after(async () => {
    await manager?.close();
    await core?.close();
  });

  test('core server: no 5xx, documented statuses, the one error body', async () => {
    const result = await fuzz(core.url);
    console.log(`core fuzz (seed ${SEED}): ${JSON.stringify(result)}`);
    assert.ok(result.operations > 130);
    assert.equal((await fetch(`${core.url}/api/health`)).status, 200, 'still serving');
  });

  test('manager: no 5xx, documented statuses, the one error body', async () => {
    const result = await fuzz(manager.url);
    console.log(`manager fuzz (seed ${SEED}): ${JSON.stringify(result)}`);
    assert.ok(result.operations > 60);
    assert.equal((await fetch(`${manager.url}/api/dashboard/instances`)).status, 200, 'still serving');
  });
});
