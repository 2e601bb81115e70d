// `svc audit tail|verify`: the security audit log of a running server. `verify` exits 1 when the chain
// is broken, so scripts can check it.
import type { AuditPage, AuditVerify } from '../protocol/security-audit.ts';
import { jsonOf, requestText } from './http-client.ts';
import { authHeaders, type ServerTarget } from './target.ts';

export type AuditCall = { kind: 'tail'; limit?: number; action?: string; outcome?: string } | { kind: 'verify' };

function pathOf(call: AuditCall): string {
  if (call.kind === 'verify') return '/api/security-audit/verify';
  const query = new URLSearchParams();
  if (call.limit !== undefined) query.set('limit', String(call.limit));
  if (call.action) query.set('action', call.action);
  if (call.outcome) query.set('outcome', call.outcome);
  return `/api/security-audit/entries${query.size ? `?${query}` : ''}`;
}

export function renderAudit(call: AuditCall, answer: unknown): string {
  if (call.kind === 'verify') {
    const v = answer as AuditVerify;
    return v.ok ? `the audit log is intact (${v.entries} entries)` : `the audit log is broken at entry ${v.firstBadSeq}: ${v.problem}`;
  }
  const { entries } = answer as AuditPage;
  if (!entries.length) return 'the audit log has no entries that match';
  return entries
    .map((e) => {
      const details = Object.keys(e.details).length ? ` ${JSON.stringify(e.details)}` : '';
      return `${String(e.seq).padStart(6)} ${new Date(e.ts).toISOString()} ${e.outcome.padEnd(7)} ${e.action} ${e.target} (${e.actor})${details}`;
    })
    .join('\n');
}

export async function auditCommand(call: AuditCall, target: ServerTarget, json: boolean): Promise<number> {
  let response;
  try {
    response = await requestText(`${target.url}${pathOf(call)}`, { headers: { accept: 'application/json', ...authHeaders(target) }, pin: target.pin });
  } catch (err) {
    console.error(`svc audit: cannot reach ${target.url}: ${(err as Error).message}. Start it with \`svc serve\`.`);
    return 1;
  }
  const answer = jsonOf(response);
  if (!response.ok) {
    console.error(`svc audit ${call.kind}: ${String(answer.message ?? `HTTP ${response.status}`)}`);
    return 1;
  }
  console.log(json ? JSON.stringify(answer, null, 2) : renderAudit(call, answer));
  return call.kind === 'verify' && !(answer as AuditVerify).ok ? 1 : 0;
}
