// Only a person decides a tool permission, checked without the real CLIs: the fake Claude Code replays a
// recorded run that asks to write a file (a can_use_tool control request) and holds there, so the request
// stays pending while the run's own credential (the SVC_RUN_TOKEN its CLI was started with, as an agent
// would send it through `svc`) tries to decide it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_TOKEN_HEADER } from '../../../src/protocol/caller.ts';
import { startAgentServer, type AgentTestServer } from '../../support/agent.ts';
import { getJson, sendJson } from '../../support/server.ts';
import { until } from '../../web/ui/helpers.ts';

let server: AgentTestServer;
before(async () => {
  server = await startAgentServer({ provider: 'claude', autoApprove: false });
});
after(() => server.close());

test("a run's own credential cannot decide its permission request (403 PERSON_REQUIRED); a person can", async () => {
  // held after line 4, the can_use_tool request
  const run = sendJson(`${server.url}/api/message`, 'POST', { prompt: 'write it scenario:permission-allow hold:4' });
  const asked = await until(async () => (await getJson(`${server.url}/api/permissions`)).body.requests[0], 'the permission request');
  assert.equal(asked.tool, 'Write');
  const runToken = (await until(() => server.invocations().at(-1)?.runToken, "the run's credential"))!;

  const refused = await getJson(`${server.url}/api/permissions/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json', [RUN_TOKEN_HEADER]: runToken }, body: JSON.stringify({ decision: 'allow' }) });
  assert.deepEqual([refused.status, refused.body.error], [403, 'PERSON_REQUIRED']);
  assert.equal((await getJson(`${server.url}/api/permissions`)).body.requests.length, 1, 'still pending');

  const byPerson = await sendJson(`${server.url}/api/permissions/${asked.id}`, 'POST', { decision: 'deny', reason: 'not now' });
  assert.equal(byPerson.status, 200);
  assert.equal((await getJson(`${server.url}/api/permissions`)).body.requests.length, 0);
  writeFileSync(join(server.stateDir, 'release-4'), '');
  assert.equal((await run).status, 200);
});
