// What the executive sees and does: on the manager every instance (through the dashboard's service),
// on a core server only itself. The service is written against this interface only.
import type { LifecycleAction } from '../../protocol/executive.ts';

export interface FleetInstance {
  id: string;
  label: string;
  status: string;
  busy: boolean;
  /** Whether the fleet may start, stop and restart it. */
  owned: boolean;
  workingDir: string | null;
}

export interface Fleet {
  scope: 'manager' | 'instance';
  list(): FleetInstance[];
  /** One instance with what the fleet knows of it now (latest messages, run, queue). */
  inspect(id: string): { instance: FleetInstance; latest: unknown };
  /** Sends a prompt; resolves with the request id as soon as the instance took it. */
  send(id: string, prompt: string): Promise<{ requestId: string }>;
  lifecycle(action: LifecycleAction, id: string): Promise<unknown>;
}
