// The fleet's card: whether the hub runs (and why not), an invite for a machine to join (its code, the
// command to run there, a QR code of that command), and the machines that joined, revoked only when asked.
import { useEffect, useState } from 'preact/hooks';
import { encode } from 'uqr';
import { Badge, Button, Card, EmptyState } from '../ui/components.tsx';
import { Icon } from '../ui/icons.tsx';
import { copyText } from '../ui/clipboard.ts';
import { count } from '../ui/text.ts';
import { api, type FleetStatus, type Invite, type Machine } from './api.ts';
import { confirmAction, failed, toast } from './feedback.tsx';
import { Time } from './parts.tsx';

/** Fleet events of the manager's stream (main.tsx): the card reads its state again. */
export const fleetEvents = new EventTarget();

/** The QR code of `text`, drawn as one SVG path (no script, no inline style: the page's CSP holds). */
function QrCode({ text, label }: { text: string; label: string }) {
  const { data, size } = encode(text, { border: 2 });
  let d = '';
  data.forEach((row, y) => row.forEach((dark, x) => dark && (d += `M${x} ${y}h1v1h-1z`)));
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} class="qr-light" />
      <path d={d} class="qr-dark" />
    </svg>
  );
}

function InvitePanel({ invite, onClose }: { invite: Invite; onClose: () => void }) {
  const copy = async () => toast((await copyText(invite.command)) ? 'Copied the join command.' : 'Copying failed: select the command and copy it.', 'info');
  return (
    <div class="fleet-invite" role="group" aria-labelledby="fleet-invite-title">
      <div class="fleet-invite-text">
        <h3 id="fleet-invite-title">
          Invite code <span class="fleet-code">{invite.code}</span>
        </h3>
        <p class="muted">
          Single use, until <Time at={invite.expiresAt} clock />. Run this on the machine that joins, then start (or restart) its <code>svc serve</code>:
        </p>
        <pre class="fleet-command">
          <code>{invite.command}</code>
        </pre>
        <div class="form-actions">
          <Button small onClick={() => void copy()}>
            <Icon name="copy" size={15} /> Copy the command
          </Button>
          <Button small variant="ghost" onClick={onClose}>
            Done
          </Button>
        </div>
      </div>
      <QrCode text={invite.command} label={`QR code of the join command with code ${invite.code}`} />
    </div>
  );
}

function MachineRow({ machine, reload }: { machine: Machine; reload: () => void }) {
  const revoke = async () => {
    const yes = await confirmAction({
      title: `Revoke ${machine.name}?`,
      body: <p>Its key can no longer connect, and its connection is closed now. To bring it back, invite it again and run <code>svc fleet join</code> there.</p>,
      confirmLabel: 'Revoke',
      danger: true,
    });
    if (!yes) return;
    try {
      await api(`/api/dashboard/machines/${encodeURIComponent(machine.id)}`, { method: 'DELETE' });
      toast(`Revoked ${machine.name}.`);
    } catch (err) {
      failed(`Revoking ${machine.name} failed`)(err);
    }
    reload();
  };
  return (
    <li class="machine" data-machine-id={machine.id}>
      <div class="machine-head">
        <strong>{machine.name}</strong>
        <Badge tone={machine.online ? 'ok' : 'neutral'}>{machine.online ? 'online' : 'offline'}</Badge>
      </div>
      <p class="muted machine-facts">
        {machine.lastSeen ? (
          <>
            seen <Time at={machine.lastSeen} />
          </>
        ) : (
          'not connected yet'
        )}
        {machine.version && <> · svc {machine.version}</>} · {count(machine.instances.length, 'instance')}
        {machine.instances.some((i) => i.busy) && <> · working</>}
      </p>
      <Button small variant="danger-outline" onClick={() => void revoke()} aria-label={`Revoke ${machine.name}`}>
        Revoke
      </Button>
    </li>
  );
}

export function Fleet() {
  const [status, setStatus] = useState<FleetStatus | null>(null);
  const [machines, setMachines] = useState<Machine[]>([]);
  const [invite, setInvite] = useState<Invite | null>(null);
  const [inviting, setInviting] = useState(false);
  const load = () =>
    void Promise.all([api<FleetStatus>('/api/dashboard/fleet'), api<{ machines: Machine[] }>('/api/dashboard/machines')]).then(
      ([s, m]) => {
        setStatus(s);
        setMachines(m.machines);
      },
      failed('Reading the fleet failed'),
    );
  useEffect(() => {
    load();
    fleetEvents.addEventListener('change', load);
    return () => fleetEvents.removeEventListener('change', load);
  }, []);
  const makeInvite = async () => {
    setInviting(true);
    try {
      setInvite(await api<Invite>('/api/dashboard/fleet/invites', { method: 'POST', body: {} }));
    } catch (err) {
      failed('Making an invite failed')(err);
    } finally {
      setInviting(false);
    }
  };
  const online = machines.filter((m) => m.online).length;
  return (
    <Card
      title="Fleet"
      titleId="fleet-title"
      class="fleet"
      actions={
        status?.enabled && (
          <Button small variant="primary" onClick={() => void makeInvite()} disabled={inviting}>
            <Icon name="plus" size={15} /> {inviting ? 'Inviting…' : 'Invite a machine'}
          </Button>
        )
      }
    >
      {status && !status.enabled ? (
        <EmptyState title="The fleet is off">{status.reason}</EmptyState>
      ) : (
        status && (
          <p class="muted fleet-status" role="status">
            Machines join at <code>{status.url}</code> · NATS{' '}
            <Badge tone={status.nats === 'running' ? 'ok' : 'warn'} title={status.reason}>
              {status.nats ?? 'off'}
            </Badge>{' '}
            · {online}/{machines.length} online
          </p>
        )
      )}
      {invite && <InvitePanel invite={invite} onClose={() => setInvite(null)} />}
      {status?.enabled &&
        (machines.length === 0 ? (
          <EmptyState title="No machines yet">Invite one: it connects out to this dashboard, so it needs no open port.</EmptyState>
        ) : (
          <ul class="machines" aria-label="Machines">
            {machines.map((m) => (
              <MachineRow key={m.id} machine={m} reload={load} />
            ))}
          </ul>
        ))}
    </Card>
  );
}
