import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RunCredentials } from '../../src/agent/run-credentials.ts';
import { callerOf } from '../../src/http/caller.ts';
import { authHeaders, resolveTarget } from '../../src/cli/target.ts';
import { startAgentServer } from '../support/agent.ts';
import { postNdjson } from '../support/ndjson.ts';
import { sendJson } from '../support/server.ts';

const waitFor = async <T>(probe: () => T | undefined, what: string, ms = 10_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('RunCredentials', () => {
  test('a credential resolves to its run until revoked; a new one for the same run replaces the old', () => {
    const credentials = new RunCredentials();
    const token = credentials.issue({ runId: 'tr_1', sessionId: 's1' }, 60_000);
    assert.match(token, /^svcrun_[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(credentials.resolve(token), { runId: 'tr_1', sessionId: 's1' });
    assert.equal(credentials.resolve('svcrun_guess'), undefined);
    assert.equal(credentials.resolve(''), undefined);
    assert.equal(credentials.resolve(undefined), undefined);
    const second = credentials.issue({ runId: 'tr_1', sessionId: 's1' }, 60_000);
    assert.notEqual(second, token);
    assert.equal(credentials.resolve(token), undefined);
    credentials.revoke('tr_1');
    assert.equal(credentials.resolve(second), undefined);
    assert.equal(credentials.size, 0);
    credentials.revoke('tr_unknown');
  });

  test('a credential expires at its time-to-live even when its run never reports its end', () => {
    let now = 1000;
    const credentials = new RunCredentials(() => now);
    const token = credentials.issue({ runId: 'tr_2', sessionId: 's2' }, 500);
    now = 1499;
    assert.ok(credentials.resolve(token));
    now = 1500;
    assert.equal(credentials.resolve(token), undefined);
    assert.equal(credentials.size, 0);
  });

  test('credentials of different runs are distinct and independent', () => {
    const credentials = new RunCredentials();
    const a = credentials.issue({ runId: 'a', sessionId: 's' }, 60_000);
    const b = credentials.issue({ runId: 'b', sessionId: 's' }, 60_000);
    credentials.revoke('a');
    assert.equal(credentials.resolve(a), undefined);
    assert.deepEqual(credentials.resolve(b), { runId: 'b', sessionId: 's' });
  });
});

describe('callerOf', () => {
  const credentials = new RunCredentials();
  const token = credentials.issue({ runId: 'tr_9', sessionId: 's9' }, 60_000);
  const resolve = (t: string) => credentials.resolve(t);

  test('no header is a human; a live credential is that run\'s agent', () => {
    assert.deepEqual(callerOf({ headers: {} }, resolve), { kind: 'human' });
    assert.deepEqual(callerOf({ headers: { 'x-svc-run-token': '  ' } }, resolve), { kind: 'human' });
    assert.deepEqual(callerOf({ headers: { 'x-svc-run-token': token } }, resolve), { kind: 'agent', run: { runId: 'tr_9', sessionId: 's9' } });
  });

  test('an unknown or ended credential is still an agent, never a human', () => {
    assert.deepEqual(callerOf({ headers: { 'x-svc-run-token': 'svcrun_forged' } }, resolve), { kind: 'agent' });
  });
});

describe('the svc CLI sends the credential', () => {
  test('SVC_RUN_TOKEN in the environment becomes the x-svc-run-token header, beside the bearer token', () => {
    const target = resolveTarget({ url: 'http://127.0.0.1:1' }, { SVC_RUN_TOKEN: 'svcrun_abc', SVC_TOKEN: 'tok' });
    assert.deepEqual(authHeaders(target), { authorization: 'Bearer tok', 'x-svc-run-token': 'svcrun_abc' });
    assert.deepEqual(authHeaders(resolveTarget({ url: 'http://127.0.0.1:1' }, { SVC_RUN_TOKEN: ' ' })), {});
  });
});

describe('each main-agent run gets its own credential', () => {
  test('the CLI finds it in SVC_RUN_TOKEN; the server knows it while the run lives and forgets it at its end', async () => {
    // one set in agent.env must never reach a CLI: only the runtime hands credentials out
    const server = await startAgentServer();
    try {
      server.app.services.settings.update({ agent: { env: { FAKE_CLI_STATE: server.stateDir, SVC_RUN_TOKEN: 'svcrun_leaked' } } });
      const session = (await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: 'creds' })).body.session.id as string;
      const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'wait here hang', sessionId: session });
      const invocation = await waitFor(() => server.invocations()[0], 'the CLI to start');
      const token = invocation.runToken;
      assert.ok(token && token !== 'svcrun_leaked', `the CLI got a fresh credential, not '${token}'`);
      const active = server.app.services.runtime.status().active!;
      assert.deepEqual(server.app.services.credentials.resolve(token), { runId: active.traceId, sessionId: session });
      await sendJson(`${server.url}/api/stop`, 'POST', {});
      await stream.done;
      assert.equal(server.app.services.credentials.resolve(token), undefined);
      assert.equal(server.app.services.credentials.size, 0);

      const next = await postNdjson(`${server.url}/api/message`, { prompt: 'again scenario:text', sessionId: session });
      await next.done;
      const second = server.invocations()[1]!.runToken;
      assert.ok(second && second !== token, 'the next run has another credential');
      assert.equal(server.app.services.credentials.resolve(second), undefined, 'and it died with its run');
    } finally {
      await server.close();
    }
  });
});
