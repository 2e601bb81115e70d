import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { agentHeader, call } from './support.ts';

test('/pabcd, /orchestrate and /dispatch act as their caller', { timeout: 60_000 }, async () => {
  const server = await startAgentServer();
  try {
    const command = async (text: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/api/command`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ text }) });
      if (response.status !== 200) return { status: response.status, body: await response.json() };
      const lines = (await response.text()).trim().split('\n').map((l) => JSON.parse(l));
      return { status: 200, text: lines.at(-1).text as string };
    };
    assert.equal((await command('/pabcd')).text, 'Orchestration: phase P (waiting, waiting on the plan gate); no plan, no audit, no verification, no check.');
    assert.match((await command('/pabcd')).text!, /phase P/);
    const refused = await command('/orchestrate A');
    assert.deepEqual([refused.status, refused.body.error, refused.body.gate], [409, 'ORC_GATE_MISSING', 'plan']);
    // a worker (a credential the server never issued) can neither move nor dispatch through commands
    assert.equal((await command('/orchestrate I', agentHeader('svcworker_x'))).status, 403);
    assert.equal((await command('/dispatch tester do it', agentHeader('svcworker_x'))).status, 403);
    // the agent of a live run cannot approve through a command either
    const session = server.app.services.chat.activeSession().id;
    const token = server.app.services.credentials.issue({ runId: 'tr_cmdagent1', sessionId: session }, 60_000);
    const agentApproves = await command('/orchestrate A approve', agentHeader(token));
    assert.deepEqual([agentApproves.status, agentApproves.body.error], [403, 'ORC_HUMAN_ONLY']);
    server.app.services.credentials.revoke('tr_cmdagent1');
    // a human may
    assert.match((await command('/orchestrate A approve')).text!, /phase A/);
    const history = (await call(server, 'GET', '/api/orchestrate/state')).body.history;
    assert.deepEqual(history.at(-1).approved, ['plan']);
    assert.equal((await command('/orchestrate Q')).status, 400);
    assert.equal((await command('/dispatch')).status, 400);
    const dispatched = await command('/dispatch tester write it scenario:text');
    assert.match(dispatched.text!, /^Dispatched tr_\S+ to tester/);
    assert.match((await command('/orchestrate reset')).text!, /phase IDLE \(idle\)/);
  } finally {
    await server.close();
  }
});
