// What each notification says, made from the event it is about. Bounded: a push message carries at
// most 4096 bytes once encrypted (RFC 8291 over RFC 8030), so a notification is its title and the
// start of what a person decides from, never a whole file. Pure.
import { createHash } from 'node:crypto';
import type { Decider, PermissionRequest } from '../../protocol/permissions.ts';
import type { PushPayload } from '../../protocol/push.ts';

/** The largest payload svc sends, in bytes of JSON (the encrypted record adds 103 bytes, well under 4096). */
export const MAX_PAYLOAD_BYTES = 3000;
const MAX_TITLE = 120;
const MAX_BODY = 600;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const firstLines = (text: string, lines: number) => text.split('\n').slice(0, lines).join('\n');

/** RFC 8030 Topic: a later message with the same topic replaces one the push service still holds. */
export const topicOf = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 32);

export const permissionTag = (id: string) => `perm-${id}`;

/** What the request's summary says under its title: the command, the file and its change, or the input. */
function summaryText(request: PermissionRequest): string {
  const s = request.summary;
  if (s.command !== undefined) return s.command;
  if (s.path !== undefined) return s.diff ? `${s.path}\n${firstLines(s.diff, 8)}` : s.path;
  return s.detail ?? request.tool;
}

export function permissionPayload(request: PermissionRequest, tokens: { allow: string; deny: string }): PushPayload {
  return {
    v: 1,
    kind: 'permission',
    tag: permissionTag(request.id),
    title: cut(request.summary.title, MAX_TITLE),
    body: cut(summaryText(request), MAX_BODY),
    sessionId: request.sessionId,
    requestId: request.id,
    expiresAt: request.expiresAt,
    actions: [
      { action: 'allow', title: 'Allow', token: tokens.allow },
      { action: 'deny', title: 'Deny', token: tokens.deny },
    ],
  };
}

const DECIDED_BY: Record<Decider, string> = {
  person: 'in svc',
  telegram: 'on Telegram',
  discord: 'on Discord',
  push: 'from a notification',
  rule: 'by a remembered rule',
  timeout: 'nobody answered in time',
  'run-ended': 'the run ended first',
  restart: 'svc restarted',
};

/** Replaces the request's notification (same tag) once anyone decided it, so no stale Allow stays on a phone. */
export function resolvedPayload(request: Pick<PermissionRequest, 'id' | 'sessionId' | 'summary'>, decision: 'allow' | 'deny', by: Decider): PushPayload {
  const verdict = decision === 'allow' ? 'Allowed' : 'Denied';
  return {
    v: 1,
    kind: 'permission_resolved',
    tag: permissionTag(request.id),
    title: cut(request.summary.title, MAX_TITLE),
    body: by === 'timeout' || by === 'run-ended' || by === 'restart' ? `${verdict}: ${DECIDED_BY[by]}.` : `${verdict} ${DECIDED_BY[by]}.`,
    sessionId: request.sessionId,
    requestId: request.id,
  };
}

export function runDonePayload(run: { traceId: string; status: 'ok' | 'error' | 'stopped'; text: string; error?: string; reason?: string }, sessionId?: string): PushPayload {
  const title = run.status === 'ok' ? 'The agent finished' : run.status === 'stopped' ? 'The run was stopped' : 'The run failed';
  const body = run.status === 'ok' ? run.text.trim() || '(no text)' : run.error || run.reason || run.text.trim();
  return { v: 1, kind: 'run_done', tag: `run-${run.traceId}`, title, body: cut(firstLines(body, 6), MAX_BODY), ...(sessionId ? { sessionId } : {}) };
}

export function goalDonePayload(goal: { goalId: string; sessionId: string }, objective?: string): PushPayload {
  return { v: 1, kind: 'goal_done', tag: `goal-${goal.goalId}`, title: 'A goal is done', body: cut(objective || 'The chat reached its goal.', MAX_BODY), sessionId: goal.sessionId };
}

const WORKER_TITLES: Record<string, string> = {
  worker_stalled: 'A worker stalled',
  worker_timeout: 'A worker timed out',
  worker_disconnected: 'A worker was disconnected',
};
export const WORKER_EVENTS = Object.keys(WORKER_TITLES);

export function workerPayload(event: string, worker: { runId: string; sessionId: string; reason: string }): PushPayload {
  return { v: 1, kind: 'worker_attention', tag: `worker-${worker.runId}`, title: WORKER_TITLES[event] ?? 'A worker needs attention', body: cut(worker.reason, MAX_BODY), sessionId: worker.sessionId };
}

export function testPayload(): PushPayload {
  return { v: 1, kind: 'test', tag: 'test', title: 'svc notifications work', body: 'This device will be told when a tool call waits for you.' };
}

/** The payload as sent: JSON of at most MAX_PAYLOAD_BYTES (the body is shortened until it fits). */
export function encodePayload(payload: PushPayload): Buffer {
  let json = Buffer.from(JSON.stringify(payload));
  let body = payload.body;
  while (json.length > MAX_PAYLOAD_BYTES && body.length > 0) {
    body = body.length > 8 ? cut(body, Math.floor(body.length * 0.75)) : '';
    json = Buffer.from(JSON.stringify({ ...payload, body }));
  }
  return json;
}
