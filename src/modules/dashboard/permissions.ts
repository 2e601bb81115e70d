// Tool permissions across instances, as the manager shows and answers them: the pending requests of
// every online instance (its GET /api/permissions, with its token), each labelled by its instance, and
// a decision handed to the instance that holds the request (its POST /api/permissions/:id). The
// manager keeps nothing: each instance stays the one place a request is decided (first decision wins).
import type { Instance } from '../../protocol/dashboard.ts';
import type { DecisionBody, PermissionRequest } from '../../protocol/permissions.ts';
import { callInstance, type Target } from './instance-client.ts';

export type InstancePermission = PermissionRequest & { instanceId: string; instanceLabel: string };

export interface PendingAcross {
  requests: InstancePermission[];
  /** How many instances were asked (the online ones). */
  asked: number;
  /** The instances that did not answer, and why. */
  errors: { instanceId: string; instanceLabel: string; message: string }[];
}

/** Every online instance's pending requests, oldest first; an instance that fails is named, never fatal. */
export async function pendingAcross(instances: { row: Instance; target: Target }[], timeoutMs = 5000): Promise<PendingAcross> {
  const errors: PendingAcross['errors'] = [];
  const lists = await Promise.all(
    instances.map(async ({ row, target }) => {
      try {
        const answer = await callInstance<{ requests: PermissionRequest[] }>(target, '/api/permissions', { timeoutMs });
        return answer.requests.map((r): InstancePermission => ({ ...r, instanceId: row.id, instanceLabel: row.label }));
      } catch (err) {
        errors.push({ instanceId: row.id, instanceLabel: row.label, message: (err as Error).message });
        return [];
      }
    }),
  );
  return { requests: lists.flat().sort((a, b) => a.createdAt - b.createdAt), asked: instances.length, errors };
}

/**
 * A person's decision, made on the instance that holds the request with the instance's token: its
 * answer (404 unknown, 409 decided already) comes back with its status.
 */
export async function decideOn(target: Target, requestId: string, body: DecisionBody): Promise<PermissionRequest> {
  const answer = await callInstance<{ request: PermissionRequest }>(target, `/api/permissions/${encodeURIComponent(requestId)}`, { method: 'POST', body, timeoutMs: 10_000 });
  return answer.request;
}
