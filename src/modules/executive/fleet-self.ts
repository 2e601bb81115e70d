// A core server's fleet: itself only. It sends to its own runtime (the active chat session) and never
// starts or stops itself (that is the manager's).
import { conflict, notFound } from '../../core/errors.ts';
import type { Fleet, FleetInstance } from './fleet.ts';

export const SELF_ID = 'self';

export interface SelfDeps {
  label: string;
  status(): { busy: boolean; pending: number; active?: { requestId: string } };
  /** When this server started: its queue and run live in memory, so watches from before are lost. */
  startedAt: number;
  workingDir(): string;
  /** Submits a prompt to this server's agent; the request id comes back at once. */
  submit(prompt: string): { requestId: string };
}

export function selfFleet(d: SelfDeps): Fleet {
  const self = (): FleetInstance => ({ id: SELF_ID, label: d.label, status: 'online', busy: d.status().busy, owned: false, workingDir: d.workingDir() });
  const check = (id: string) => {
    if (id !== SELF_ID) throw notFound('Instance', id);
  };
  return {
    scope: 'instance',
    list: () => [self()],
    inspect: (id) => {
      check(id);
      return { instance: self(), latest: d.status() };
    },
    send: async (id, prompt) => {
      check(id);
      return d.submit(prompt);
    },
    boot: async (id) => {
      check(id);
      return { startedAt: d.startedAt, activeRequestId: d.status().active?.requestId ?? null };
    },
    lifecycle: async (_action, id) => {
      check(id);
      throw conflict('INSTANCE_NOT_OWNED', 'An instance does not start or stop itself; use the manager dashboard for that.');
    },
  };
}
