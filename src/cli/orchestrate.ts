// `svc orchestrate …`, `svc dispatch …`, `svc worker …`: the orchestration of a running server over
// HTTP. People use them, and so does the main agent from its shell: run by the agent, the CLI sends
// the run's credential (SVC_RUN_TOKEN), which the server reads as "the agent", never as a human.
import { jsonOf, requestText, type TextResponse } from './http-client.ts';
import { readText } from './local-file.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export interface OrcCall {
  label: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

const PHASES = ['IDLE', 'I', 'P', 'A', 'B', 'C', 'D'];

export function orchestrateCall(action: string, opts: { session?: string; approve?: boolean; reason?: string; file?: string; text?: string }): OrcCall | string {
  const session = opts.session ? { sessionId: opts.session } : {};
  const upper = action.toUpperCase();
  if (PHASES.includes(upper)) return { label: `orchestrate ${upper}`, method: 'PUT', path: '/api/orchestrate/state', body: { phase: upper, ...(opts.approve ? { approve: true } : {}), ...(opts.reason ? { reason: opts.reason } : {}), ...session } };
  switch (action) {
    case 'status':
      return { label: 'orchestrate status', method: 'GET', path: `/api/orchestrate/state${opts.session ? `?sessionId=${encodeURIComponent(opts.session)}` : ''}` };
    case 'reset':
      return { label: 'orchestrate reset', method: 'POST', path: '/api/orchestrate/reset', body: { ...session, ...(opts.reason ? { reason: opts.reason } : {}) } };
    case 'check':
      return { label: 'orchestrate check', method: 'POST', path: '/api/orchestrate/check', body: session };
    case 'plan': {
      const content = opts.file ? readText(opts.file) : (opts.text ?? '');
      if (!content.trim()) return 'give the plan with --file <plan.md> (or on stdin)';
      return { label: 'orchestrate plan', method: 'POST', path: '/api/orchestrate/plan', body: { content, ...session } };
    }
    default:
      return `unknown action '${action}': use one of ${PHASES.join(', ')}, status, plan, check, reset`;
  }
}

export function workerCall(action: string, runId: string | undefined, opts: { session?: string; status?: string; offset?: number; limit?: number; reason?: string }): OrcCall | string {
  const q = (params: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams(Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined).map(([k, v]) => [k, String(v)])).toString();
    return s ? `?${s}` : '';
  };
  if (action === 'list') return { label: 'worker list', method: 'GET', path: `/api/orchestrate/worker-runs${q({ sessionId: opts.session, status: opts.status, limit: opts.limit })}` };
  if (action === 'employees') return { label: 'worker employees', method: 'GET', path: '/api/employees' };
  if (!runId) return `worker ${action} needs a run id (svc worker list)`;
  const base = `/api/orchestrate/worker-runs/${encodeURIComponent(runId)}`;
  switch (action) {
    case 'show':
      return { label: 'worker show', method: 'GET', path: base };
    case 'output':
      return { label: 'worker output', method: 'GET', path: `${base}/output${q({ offset: opts.offset, limit: opts.limit })}` };
    case 'cancel':
      return { label: 'worker cancel', method: 'POST', path: `${base}/cancel`, body: opts.reason ? { reason: opts.reason } : {} };
    default:
      return `unknown action '${action}': use list, show, output, cancel or employees`;
  }
}

type Json = Record<string, any>;

function render(label: string, answer: Json): string {
  if (label.startsWith('orchestrate')) {
    const gate = answer.waitingOn ? `, waiting on the ${answer.waitingOn} gate` : '';
    const plan = answer.plan ? `plan v${answer.plan.version} (${String(answer.plan.hash).slice(0, 12)})` : 'no plan';
    const audit = answer.audit ? `audit ${answer.audit.verdict}${answer.audit.error ? ` (${answer.audit.error})` : ''}` : 'no audit';
    const check = answer.check ? `check exit ${answer.check.exitCode}` : 'no check';
    return `${answer.sessionId}: phase ${answer.phase} (${answer.status}${gate}); ${plan}; ${audit}; ${check}`;
  }
  if (label === 'worker list') return (answer.runs as Json[]).map((r) => `${r.runId}  ${r.status.padEnd(9)} ${r.employeeId.padEnd(18)} ${String(r.task).slice(0, 60)}`).join('\n') || 'no worker runs';
  if (label === 'worker employees') return (answer.employees as Json[]).map((e) => `${e.id.padEnd(18)} ${e.capability.padEnd(9)} ${e.role}`).join('\n');
  if (label === 'worker output') return String(answer.text);
  if (label === 'dispatch' && answer.batchId) return `${answer.batchId}: ${(answer.runs as Json[]).map((r) => r.runId).join(' ')}`;
  if (answer.runId && answer.status && answer.employee) return `${answer.runId} ${answer.status}${answer.verdict ? ` verdict ${answer.verdict}` : ''}${answer.reason ? ` (${answer.reason})` : ''}`;
  if (answer.runId) return `${answer.runId} ${answer.status}`;
  return JSON.stringify(answer, null, 2);
}

/** Runs one call; returns the exit code (0 ok, 1 refused or unreachable, 2 bad usage). */
export async function orcCommand(call: OrcCall | string, target: ServerTarget, json: boolean, timeoutMs?: number): Promise<number> {
  if (typeof call === 'string') {
    console.error(`svc: ${call}`);
    return 2;
  }
  const headers: Record<string, string> = { accept: 'application/json', ...authHeaders(target) };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let response: TextResponse;
  try {
    response = await requestText(`${target.url}${call.path}`, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body), pin: target.pin, ...(timeoutMs ? { timeoutMs } : {}) });
  } catch (err) {
    console.error(`svc ${call.label}: cannot reach ${target.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
  const answer = jsonOf(response);
  if (!response.ok) {
    if (json) console.log(JSON.stringify(answer, null, 2));
    console.error(`svc ${call.label}: ${String(answer.message ?? `HTTP ${response.status}`)}`);
    return 1;
  }
  console.log(json ? JSON.stringify(answer, null, 2) : render(call.label, answer));
  return 0;
}
