// Tool permissions across instances, as the manager shows and answers them: the pending requests of
// every online instance (its GET /api/permissions, with its token), each labelled by its instance, and
// a decision handed to the instance that holds the request (its POST /api/permissions/:id). The
// manager keeps nothing: each instance stays the one place a request is decided (first decision wins).
import type { Instance } from '../../protocol/dashboard.ts';
import type { DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import { callInstance, type Target } from './instance-client.ts';
import { askEvery, type Across, type FromInstance } from './across.ts';

export type InstancePermission = FromInstance<PermissionRequest>;

export interface PendingAcross extends Omit<Across<PermissionRequest>, 'items'> {
  requests: InstancePermission[];
}

/** Every online instance's pending requests, oldest first; an instance that fails is named, never fatal. */
export async function pendingAcross(instances: { row: Instance; target: Target }[], timeoutMs = 5000): Promise<PendingAcross> {
  const { items, ...rest } = await askEvery(instances, '/api/permissions', (answer: { requests: PermissionRequest[] }) => answer.requests, timeoutMs);
  return { requests: items.sort((a, b) => a.createdAt - b.createdAt), ...rest };
}

/**
 * A person's decision, made on the instance that holds the request with the instance's token: its
 * answer (404 unknown, 409 decided already) comes back with its status.
 */
export async function decideOn(target: Target, requestId: string, body: DecisionBody): Promise<PermissionRequest> {
  const answer = await callInstance<{ request: PermissionRequest }>(target, `/api/permissions/${encodeURIComponent(requestId)}`, { method: 'POST', body, timeoutMs: 10_000 });
  return answer.request;
}
