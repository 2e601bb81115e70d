import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentServer } from '../../support/agent.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { agentHeader, call, waitFor } from './support.ts';

test('the main agent\'s queue: list, remove one, run one now (interrupting the active run)', { timeout: 60_000 }, async () => {
  const server = await startAgentServer();
  try {
    const active = await postNdjson(`${server.url}/api/message`, { prompt: 'busy hang' });
    await waitFor(() => server.app.services.runtime.status().busy, 'the first run');
    const second = await postNdjson(`${server.url}/api/message`, { prompt: 'second scenario:text' });
    const third = await postNdjson(`${server.url}/api/message`, { prompt: 'third scenario:text' });
    const queue = await waitFor(async () => {
      const items = (await call(server, 'GET', '/api/orchestrate/queue')).body.items;
      return items.length === 2 ? items : undefined;
    }, 'two queued');
    assert.deepEqual(queue.map((q: { prompt: string; position: number }) => [q.prompt, q.position]), [['second scenario:text', 1], ['third scenario:text', 2]]);

    for (const [method, path, status] of [['DELETE', '/api/orchestrate/queue/bad', 400], ['DELETE', '/api/orchestrate/queue/req_unknown1', 404], ['POST', '/api/orchestrate/queue/req_unknown1/steer', 404]] as const) {
      assert.equal((await call(server, method, path, method === 'POST' ? {} : undefined)).status, status, path);
    }
    assert.equal((await call(server, 'DELETE', `/api/orchestrate/queue/${queue[0].requestId}`, undefined, agentHeader('svcworker_1'))).status, 403);

    const removed = await call(server, 'DELETE', `/api/orchestrate/queue/${queue[0].requestId}`);
    assert.deepEqual(removed.body, { removed: queue[0].requestId });
    assert.equal((await second.done).at(-1).status, 'stopped');

    const steered = await call(server, 'POST', `/api/orchestrate/queue/${queue[1].requestId}/steer`, {});
    assert.equal(steered.status, 200);
    assert.equal((await active.done).at(-1).status, 'stopped', 'the active run was interrupted');
    assert.equal((await third.done).at(-1).status, 'ok', 'and the chosen one ran');
    assert.deepEqual((await call(server, 'GET', '/api/orchestrate/queue')).body.items, []);
  } finally {
    await server.close();
  }
});
