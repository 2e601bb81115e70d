// The manager's fleet: every instance of the dashboard, its lifecycle through the dashboard's service.
import type { Instance } from '../../protocol/dashboard.ts';
import type { InstancesService } from '../dashboard/index.ts';
import type { Message } from '../../protocol/chat.ts';
import type { WorkInput } from '../fleet/index.ts';
import { runsOfMessages, type Fleet, type FleetInstance } from './fleet.ts';

const view = (i: Instance): FleetInstance => ({ id: i.id, label: i.label, status: i.status, busy: i.busy, owned: i.owner === 'manager', workingDir: i.workingDir });

/** `queueWork`: the dashboard's work queue (it refuses while the fleet is off). */
export function managerFleet(instances: InstancesService, queueWork?: (input: WorkInput) => Promise<{ id: string; status: string }>): Fleet {
  return {
    ...(queueWork ? { queueWork } : {}),
    scope: 'manager',
    list: () => instances.list().map(view),
    inspect: (id) => ({ instance: view(instances.get(id)), latest: instances.latest(id) }),
    send: (id, prompt) => instances.dispatch(id, prompt),
    finishedRuns: async (id) => runsOfMessages(id, (await instances.read<{ messages: Message[] }>(id, '/api/messages?limit=100')).messages),
    boot: async (id) => {
      const r = await instances.read<{ startedAt: number; agent: { active?: { requestId: string } } }>(id, '/api/runtime');
      return { startedAt: r.startedAt, activeRequestId: r.agent.active?.requestId ?? null };
    },
    lifecycle: (action, id) => (action === 'start' ? instances.startAgain(id) : action === 'stop' ? instances.stop(id) : instances.restart(id)),
  };
}
