// Tool permission requests as a person reads them, the same wherever one is answered (the chat's card,
// the dashboard): how long it still waits, how it was decided, and the three answers as decision
// bodies. Zod-free (the web UI takes values from it).
import type { Decider, DecisionBody, PermissionDecision } from './permissions.ts';

/** The three answers a person gives: allow this call, allow it for the rest of the session, deny it. */
export type PermissionAnswer = 'once' | 'session' | 'deny';

/** The POST /api/permissions/:id body of an answer (a deny's reason only when one was written). */
export function decisionBody(answer: PermissionAnswer, reason = ''): DecisionBody {
  if (answer === 'once') return { decision: 'allow' };
  if (answer === 'session') return { decision: 'allow', remember: 'session' };
  const trimmed = reason.trim();
  return trimmed ? { decision: 'deny', reason: trimmed } : { decision: 'deny' };
}

/** "expires in 9 min 32 s", "expires in 12 s", "expiring now": the time left before the timeout denies it. */
export function expiryText(expiresAt: number, now: number): string {
  const left = Math.ceil((expiresAt - now) / 1000);
  if (left <= 0) return 'expiring now';
  const min = Math.floor(left / 60);
  const sec = left % 60;
  return `expires in ${min ? `${min} min ` : ''}${min && !sec ? '' : `${sec} s`}`.trim();
}

/** Who answered, after the verb: "Allowed by a person", "Denied: nobody answered in time". */
const BY: Record<Decider, string> = {
  person: 'by a person',
  telegram: 'from Telegram',
  discord: 'from Discord',
  push: 'from a notification',
  rule: 'by a remembered rule',
  timeout: ': nobody answered in time',
  'run-ended': ': the run ended first',
  restart: ': svc restarted',
};

/** How a request was decided, in one line. */
export function decidedText(decision: PermissionDecision, by: Decider): string {
  const text = BY[by];
  return `${decision === 'allow' ? 'Allowed' : 'Denied'}${text.startsWith(':') ? '' : ' '}${text}`;
}
