// A worker run's provider CLI as runtime events of an employee-agent provider: the spec's
// `agent:provider-e:*` namespace (§6), its names and fields in src/protocol/events.ts (PROVIDER_E_KINDS).
// Each normalized event of the CLI becomes one event naming the run and the employee, so a client can
// follow one employee at work without telling its steps from the main agent's by a field. Pure: the
// worker service publishes what this returns.
import type { NormalizedEvent } from '../../agent/providers/types.ts';
import { boundInput, clip } from '../../agent/tool-log.ts';
import type { NamespacedEventName, ProviderEKind, StepKind } from '../../protocol/events.ts';
import type { WorkerRunStatus } from '../../protocol/orchestration.ts';

/** Whose run the events are: every event carries these. */
export interface ProviderEWho {
  runId: string;
  sessionId: string;
  employeeId: string;
  provider: string;
}

export interface ProviderEEvent {
  name: NamespacedEventName;
  payload: Record<string, unknown>;
}

const event = (who: ProviderEWho, kind: ProviderEKind, fields: Record<string, unknown>): ProviderEEvent => ({
  name: `agent:provider-e:${kind}`,
  payload: { ...who, ...fields },
});

/** The run's status: `running` when its CLI starts, its end status (and why) when it ends. */
export function providerStatus(who: ProviderEWho, status: WorkerRunStatus, reason?: string): ProviderEEvent {
  return event(who, 'status', { status, ...(reason !== undefined ? { reason } : {}) });
}

/**
 * The events of one run's CLI output. Stateful per run: a step's end names the kind its start had
 * (adapters give the kind only at the start).
 */
export function providerEvents(who: ProviderEWho): (e: NormalizedEvent, outputLength: number) => ProviderEEvent | undefined {
  const stepKinds = new Map<string, StepKind>();
  return (e, outputLength) => {
    switch (e.kind) {
      case 'text_delta':
        return event(who, 'text', { content: e.text, offset: outputLength });
      case 'thinking':
        return event(who, 'thinking', { content: e.text });
      case 'step_start':
        stepKinds.set(e.stepId, e.step);
        return event(who, 'tool', { stepId: e.stepId, name: e.name, step: e.step, status: 'running', input: boundInput(e.input) });
      case 'step_end': {
        const step = stepKinds.get(e.stepId) ?? 'tool';
        stepKinds.delete(e.stepId);
        return event(who, 'tool', { stepId: e.stepId, name: e.name, step, status: e.ok ? 'ok' : 'error', ...(e.output !== undefined ? { output: clip(e.output) } : {}) });
      }
      case 'usage': {
        const { kind: _kind, ...counts } = e;
        return event(who, 'usage', Object.fromEntries(Object.entries(counts).filter(([, v]) => v !== undefined)));
      }
      case 'provider_retry':
        return event(who, 'retry', { reason: e.reason, ...(e.attempt !== undefined ? { attempt: e.attempt } : {}), ...(e.delayMs !== undefined ? { delayMs: e.delayMs } : {}) });
      case 'error':
        return event(who, 'error', { failure: e.failure, message: e.message });
      case 'session': // the provider's own session id is svc's business; the run's model is on the employee
      case 'result': // the end status says how it ended
        return undefined;
    }
  };
}
