// A worker run that failed because its own CLI could not run (not installed, not logged in) has no result for
// the main agent: the agent cannot install a CLI or log in, only the person can. Given to the agent as a
// turn, it would cost a run that can only pass the news on, and fail the same way when the agent's provider
// is the same CLI; an agent that dispatches again makes a loop of failing runs. So the session gets a note
// with the fix instead, and no run starts. Pure: the worker service saves the note.
import { readiness } from '../../agent/readiness.ts';
import { describeFailure } from '../../agent/failures.ts';
import { isProviderId, providerInfo } from '../../agent/providers/registry.ts';
import type { StoredRun } from './workers.repo.ts';

/** The failures of the worker's own setup: what a person fixes in a terminal, not what the agent can act on. */
const SETUP_FAILURES = ['cli_missing', 'auth'] as const;
type SetupFailure = (typeof SETUP_FAILURES)[number];

/** A failed run's reason is `<failure class>: <message>` (WorkerService.end); a setup failure's class and message, or undefined. */
export function setupFailureOf(run: Pick<StoredRun, 'status' | 'reason'>): { failure: SetupFailure; message: string } | undefined {
  if (run.status !== 'failed' || !run.reason) return undefined;
  const match = /^([a-z_]+): ([\s\S]*)$/.exec(run.reason);
  const failure = SETUP_FAILURES.find((f) => f === match?.[1]);
  return failure ? { failure, message: match![2]! } : undefined;
}

/** The note the session gets in place of the result: which run could not run, why, and the one thing to do. */
export function setupNote(run: Pick<StoredRun, 'runId' | 'employee'>, setup: { failure: SetupFailure; message: string }): { content: string; fix?: string } {
  const provider = run.employee.provider;
  const info = isProviderId(provider) ? providerInfo(provider) : undefined;
  const head = `Worker run ${run.runId} of ${run.employee.id} (${run.employee.name}) could not run`;
  const tail = 'Nothing was passed to the agent; dispatch the task again once this is fixed.';
  const detail = setup.message.replace(/\s+/g, ' ').trim().replace(/[.\s]+$/, '');
  // not logged in: readiness's sentence (what the picker and `svc status` say), not "the CLI said": svc may have found it
  const login = info && setup.failure === 'auth' ? readiness(info, true, { state: 'missing' }) : undefined;
  if (login?.state === 'needs_login') return { content: `${head}${detail ? ` (${detail})` : ''}: ${login.summary} ${tail}`, ...(login.fix ? { fix: login.fix } : {}) };
  const report = info ? describeFailure(info, setup.failure, setup.message) : { summary: `${provider} could not run${detail ? ` (${detail})` : ''}.`, fix: undefined };
  return { content: `${head}: ${report.summary} ${tail}`, ...(report.fix ? { fix: report.fix } : {}) };
}
