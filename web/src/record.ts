// One run as the conversation shows it, from either source: a live run (its events so far) or the
// message it saved (an answer or, when it left none, a record of why; meta: RunRecordMetaSchema).
// Both map to the same fields and one component (RunAnswer) renders them, so a run looks the same
// live and after a reload.
import type { Message, ProviderInfo } from './api.ts';
import type { RunRecordMeta } from '../../src/protocol/runs.ts';
import { stepSummary } from '../../src/protocol/step-summary.ts';
import type { Run, RunNotice, RunStatus, StepKind, StepStatus } from './store.ts';

export interface StepView {
  stepId: string;
  name: string;
  step: StepKind;
  status: StepStatus;
  /** The one-line gist: what the step worked on, or a thought's first line. */
  summary: string;
  /** What a live run saw of the step (a saved record keeps only the summary). */
  input?: Record<string, unknown>;
  output?: string;
}

export interface RunView {
  traceId?: string;
  status: RunStatus;
  evaluating: boolean;
  provider?: string;
  model?: string;
  /** The answer (Markdown); '' when the run left none. */
  text: string;
  /** Why there is no answer, or what cut it short: plain sentences. */
  record?: string;
  /** The failure class (`auth`, `cli_missing`, …) and the command that fixes it. */
  failure?: string;
  fix?: string;
  steps: StepView[];
  notices: RunNotice[];
  durationMs?: number;
  usage?: Record<string, number>;
  /** When it ended. */
  at?: number;
}

const RUN_STATUSES = new Set<string>(['ok', 'error', 'stopped']);

export function viewOfRun(run: Run): RunView {
  const failed = run.status === 'error';
  // a failed run's partial output is not its answer: the saved record holds only why it failed
  const text = failed ? '' : (run.final ?? run.text);
  const finished = run.status !== 'running';
  return {
    traceId: run.traceId,
    status: run.status,
    evaluating: run.evaluating,
    provider: run.provider,
    model: run.model || undefined,
    text,
    record: failed ? (run.record ?? run.error ?? 'The run failed.') : run.status === 'stopped' ? (run.record ?? run.error) : undefined,
    failure: run.failure,
    fix: run.fix,
    steps: run.steps.map((s) => ({
      stepId: s.stepId,
      name: s.name,
      step: s.step,
      status: s.status,
      summary: s.step === 'thinking' ? (s.output ?? '').split('\n')[0]!.slice(0, 140) : stepSummary(s.input),
      input: s.input,
      output: s.output,
    })),
    // a retry is a passing state: once the run has ended, its record or answer says how it went
    notices: finished ? run.notices.filter((n) => n.kind !== 'retry') : run.notices,
    durationMs: run.durationMs,
    usage: run.usage,
    at: run.finishedAt,
  };
}

/** The run a saved message records, or undefined for a message no run wrote (a note, a user turn). */
export function viewOfMessage(message: Message): RunView | undefined {
  const meta = (message.meta ?? {}) as Partial<RunRecordMeta>;
  const recorded = typeof meta.traceId === 'string' && RUN_STATUSES.has(meta.status ?? '');
  if (message.role === 'system' && !(recorded && meta.status !== 'ok')) return undefined;
  if (message.role === 'user') return undefined;
  const answer = message.role === 'assistant';
  return {
    traceId: meta.traceId,
    status: meta.status ?? (meta.interrupted ? 'stopped' : 'ok'),
    evaluating: false,
    provider: typeof meta.provider === 'string' ? meta.provider : undefined,
    model: meta.model || undefined,
    text: answer ? message.content : '',
    record: answer ? undefined : message.content,
    failure: meta.failure,
    fix: meta.fix,
    steps: (meta.steps ?? []).map((s) => ({ ...s, summary: s.summary ?? '' })),
    notices: [],
    durationMs: meta.durationMs,
    usage: meta.usage,
    at: message.createdAt,
  };
}

export const providerName = (providers: ProviderInfo[] | undefined, id: string): string =>
  providers?.find((p) => p.id === id)?.displayName ?? id;

/** "Claude Code · Sonnet": the provider's name and the model's label, as the registry has them. */
export function agentLabel(providers: ProviderInfo[] | undefined, provider: string | undefined, model: string | undefined): string {
  if (!provider) return '';
  const info = providers?.find((p) => p.id === provider);
  const modelLabel = model ? (info?.models.find((m) => m.id === model)?.label ?? model) : '';
  return [info?.displayName ?? provider, modelLabel].filter(Boolean).join(' · ');
}

/** What a failure class means, in a few words (the record's sentence says the rest). */
const FAILURES: Record<string, string> = {
  auth: 'not logged in',
  cli_missing: 'not installed',
  rate_limit: 'usage limit reached',
  overloaded: 'service overloaded',
  server_error: 'service error',
  timeout: 'timed out',
  network: 'network unreachable',
  stale_session: 'conversation no longer known',
  invalid_request: 'request refused',
  crash: 'stopped unexpectedly',
};

/** The heading of a failed run's record: who could not answer, and the kind of failure. */
export function failureTitle(name: string, failure: string | undefined): string {
  const what = failure ? FAILURES[failure] : undefined;
  return `${name || 'The agent'} could not answer${what ? `: ${what}` : ''}`;
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`);

/** "2.3 s · 120→30 tokens · $0.0123": only what there is (a run that failed at once used no tokens). */
export function usageText(durationMs: number | undefined, usage: Record<string, number> | undefined): string {
  const parts: string[] = [];
  if (durationMs !== undefined) parts.push(`${(durationMs / 1000).toFixed(1)} s`);
  const input = usage?.inputTokens ?? 0;
  const output = usage?.outputTokens ?? 0;
  if (input > 0 || output > 0) parts.push(`${input}→${output} tokens`);
  if ((usage?.costUsd ?? 0) > 0) parts.push(`$${usage!.costUsd!.toFixed(4)}`);
  return parts.join(' · ');
}

/** A notice as a sentence, with the providers' names. */
export function noticeText(notice: RunNotice, name: (id: string) => string): string {
  switch (notice.kind) {
    case 'retry':
      // the CLI's own retry is told in its own sentence ("Codex CLI is retrying on its own: …")
      if (notice.byCli) return `${notice.reason} (attempt ${notice.attempt})`;
      return `Retrying ${name(notice.provider)} (attempt ${notice.attempt})${notice.delayMs > 0 ? ` in ${seconds(notice.delayMs)}` : ''}… ${notice.reason}`;
    case 'fallback':
      return `Switched from ${name(notice.from)} to ${name(notice.to)}: ${notice.reason}`;
    case 'steer':
      return notice.text;
  }
}
