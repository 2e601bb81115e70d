// The permissions card: the tool calls waiting for a person in every online instance
// (GET /api/dashboard/permissions), each answerable here with the chat's card and its three answers
// (POST /api/dashboard/instances/:id/permissions/:requestId), and the instances that could not say
// named. Read again when an instance's permission event comes through the manager's stream (the page
// forwards it: permissionEvents), and every few seconds while the page is open, since an instance's
// own timeout decides without an event the manager may have missed.
import { useEffect, useState } from 'preact/hooks';
import type { DecisionBody, PermissionRequest } from '../../src/protocol/permissions.ts';
import { Card, EmptyState } from '../ui/components.tsx';
import { PermissionCard } from '../ui/PermissionCard.tsx';
import { count } from '../ui/text.ts';
import { api, messageOf } from './api.ts';

type InstancePermission = PermissionRequest & { instanceId: string; instanceLabel: string };

interface Pending {
  requests: InstancePermission[];
  asked: number;
  errors: { instanceId: string; instanceLabel: string; message: string }[];
}

/** Where the page tells the card that an instance asked or was answered (dispatch a plain Event). */
export const permissionEvents = new EventTarget();

const REFRESH_MS = 10_000;
const DECIDED_SHOWN_MS = 30_000;

/** The pending requests across instances, kept current while the page is open. */
export function usePendingPermissions(): { pending: Pending | null; failure: string | null; reload: () => Promise<void> } {
  const [pending, setPending] = useState<Pending | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const reload = async () => {
    try {
      setPending(await api<Pending>('/api/dashboard/permissions'));
      setFailure(null);
    } catch (err) {
      setFailure(messageOf(err));
    }
  };
  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), REFRESH_MS);
    const onEvent = () => void reload();
    permissionEvents.addEventListener('change', onEvent);
    return () => {
      clearInterval(timer);
      permissionEvents.removeEventListener('change', onEvent);
    };
  }, []);
  return { pending, failure, reload };
}

export function Permissions({ pending, failure, reload }: ReturnType<typeof usePendingPermissions>) {
  const [decided, setDecided] = useState<Record<string, InstancePermission>>({});
  const answer = async (request: InstancePermission, body: DecisionBody) => {
    const answered = await api<{ request: InstancePermission }>(
      `/api/dashboard/instances/${encodeURIComponent(request.instanceId)}/permissions/${encodeURIComponent(request.id)}`,
      { method: 'POST', body },
    );
    // shown decided for a while (how it was answered; the focus lands on that line), then dropped
    setDecided((d) => ({ ...d, [request.id]: answered.request }));
    setTimeout(() => setDecided(({ [request.id]: _gone, ...rest }) => rest), DECIDED_SHOWN_MS);
    await reload();
  };
  const waiting = pending?.requests ?? [];
  const shown = [...waiting, ...Object.values(decided).filter((d) => !waiting.some((r) => r.id === d.id))];
  return (
    <Card title="Permissions" titleId="permissions-title" class="perm-section">
      <p class="card-note muted">
        Tool calls an agent is waiting on, in every online instance. Each instance decides its own: the first answer stands, and no answer in time is a deny.
      </p>
      {failure && (
        <p class="form-error" role="alert">
          Could not read the requests: {failure}
        </p>
      )}
      {pending?.errors.map((e) => (
        <p key={e.instanceId} class="form-error" data-instance-error={e.instanceId}>
          {e.instanceLabel} did not say what it waits on: {e.message}
        </p>
      ))}
      {pending && !shown.length && (
        <EmptyState title="Nothing waits for an answer">
          <span>{pending.asked ? `${count(pending.asked, 'online instance')} asked.` : 'No instance is online.'}</span>
        </EmptyState>
      )}
      {shown.map((r) => (
        <PermissionCard key={r.id} request={decided[r.id] ?? r} where={r.instanceLabel} onAnswer={(body) => answer(r, body)} />
      ))}
    </Card>
  );
}
