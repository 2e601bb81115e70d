// A worker's CLI events as agent:provider-e:* events (pure): every kind the spec namespace gets, each naming
// whose run it is; what is svc's own business (the provider session, the result line) stays out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { providerEvents, providerStatus } from '../../../src/modules/orchestration/provider-events.ts';
import { EventBus } from '../../../src/events/bus.ts';
import { PROVIDER_E_KINDS } from '../../../src/protocol/events.ts';

const who = { runId: 'tr_abc', sessionId: 'ses_1', employeeId: 'tester', provider: 'codex' };

test('each normalized event is one agent:provider-e event naming the run; a step ends with the kind it started with', () => {
  const map = providerEvents(who);
  const out = [
    map({ kind: 'session', providerSessionId: 'p1', model: 'm' }, 0),
    map({ kind: 'text_delta', text: 'hi' }, 0),
    map({ kind: 'text_delta', text: ' there' }, 2),
    map({ kind: 'thinking', text: 'hmm' }, 8),
    map({ kind: 'step_start', stepId: 's1', name: 'bash', step: 'command', input: { command: 'ls' } }, 8),
    map({ kind: 'step_end', stepId: 's1', name: 'bash', ok: false, output: 'x'.repeat(50_000) }, 8),
    map({ kind: 'usage', inputTokens: 3, outputTokens: undefined, costUsd: 0.1 }, 8),
    map({ kind: 'provider_retry', reason: 'rate limited', delayMs: 500 }, 8),
    map({ kind: 'error', failure: 'rate_limit', message: 'slow down' }, 8),
    map({ kind: 'result', ok: true, text: 'hi there' }, 8),
  ];
  assert.equal(out[0], undefined, 'the provider session is not published');
  assert.equal(out.at(-1), undefined, 'the end status says how it ended');
  const events = out.filter((e) => e !== undefined);
  for (const e of events) assert.deepEqual({ runId: e.payload.runId, sessionId: e.payload.sessionId, employeeId: e.payload.employeeId, provider: e.payload.provider }, who);
  const fields = (i: number) => Object.fromEntries(Object.entries(events[i]!.payload).filter(([k]) => !(k in who)));
  assert.deepEqual(events.map((e) => e.name), ['text', 'text', 'thinking', 'tool', 'tool', 'usage', 'retry', 'error'].map((k) => `agent:provider-e:${k}`));
  assert.deepEqual(fields(1), { content: ' there', offset: 2 });
  assert.deepEqual(fields(3), { stepId: 's1', name: 'bash', step: 'command', status: 'running', input: { command: 'ls' } });
  const end = fields(4);
  assert.deepEqual([end.step, end.status], ['command', 'error']);
  assert.ok(String(end.output).length < 50_000, 'the output is clipped');
  assert.deepEqual(fields(5), { inputTokens: 3, costUsd: 0.1 });
  assert.deepEqual(fields(6), { reason: 'rate limited', delayMs: 500 });
  assert.deepEqual(fields(7), { failure: 'rate_limit', message: 'slow down' });
  assert.deepEqual(providerStatus(who, 'timeout', 'too long').payload, { ...who, status: 'timeout', reason: 'too long' });
  // every name is one of the kinds protocol/events.ts documents, and the bus takes each as a public agent event
  const bus = new EventBus();
  for (const e of [...events, providerStatus(who, 'running')]) {
    assert.ok((PROVIDER_E_KINDS as readonly string[]).includes(e.name.slice('agent:provider-e:'.length)), e.name);
    const published = bus.publish(e.name, e.payload);
    assert.deepEqual([published.topic, published.visibility], ['agent', 'public']);
  }
});
