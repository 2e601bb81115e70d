// What the executive sees and does: on the manager every instance (through the dashboard's service),
// on a core server only itself. The service is written against this interface only.
import type { WorkInput } from '../fleet/index.ts';
import type { LifecycleAction, Watch } from '../../protocol/executive.ts';
import type { Message } from '../../protocol/chat.ts';

export interface DoneRun {
  instanceId: string;
  requestId: string;
  status: string;
  text: string;
  messageId?: number;
}

/** The ended runs among an instance's messages: answers and failure records name their request. */
export function runsOfMessages(instanceId: string, messages: readonly Message[]): DoneRun[] {
  return messages.flatMap((m) => {
    const meta = m.meta as { requestId?: unknown; status?: unknown } | undefined;
    if (m.role === 'user' || typeof meta?.requestId !== 'string') return [];
    return [{ instanceId, requestId: meta.requestId, status: String(meta.status ?? 'ok'), text: m.role === 'assistant' ? m.content : '', messageId: m.id }];
  });
}

/** An instance's current boot: when its process started, and the request it runs now. */
export interface Boot {
  startedAt: number;
  activeRequestId: string | null;
}

/**
 * Watched requests lost in a restart: sent before the instance's current boot (its queue and run live
 * in memory, so nothing from an earlier boot survives) and not its run now. Call it only after the
 * finished runs were claimed, so the ones that ended are not among them.
 */
export function lostRequests(watches: readonly Watch[], instanceId: string, boot: Boot): Watch[] {
  return watches.filter((w) => w.instanceId === instanceId && w.status === 'active' && w.requestId !== null && w.createdAt < boot.startedAt && w.requestId !== boot.activeRequestId);
}

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
  /** Queues work for the machines of the dashboard's fleet (absent: this fleet has none). */
  queueWork?(input: WorkInput): Promise<{ id: string; status: string }>;
  /**
   * Runs of an instance that ended lately, read from its saved answers: the fallback after a gap in
   * its event stream (a fleet that sees its own events in-process has no such gap and none of this).
   */
  finishedRuns?(id: string): Promise<DoneRun[]>;
  /** The instance's current boot (read after a gap, to tell the runs a restart lost). */
  boot?(id: string): Promise<Boot>;
}
