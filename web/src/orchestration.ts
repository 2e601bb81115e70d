// The orchestration's side of the API for the phase stepper and the workers panel, and a hook that
// keeps the active session's state and worker runs current from `orc_state` and `worker_run` events.
// Wire types come from src/protocol/orchestration.ts, like the server's.
import { useEffect, useState } from 'preact/hooks';
import { get, post, put } from './api.ts';
import { onLiveEvent, useStore } from './store.ts';
import type { OrcState, Phase, WorkerRun } from '../../src/protocol/orchestration.ts';

export type { OrcState, Phase, WorkerRun };

const q = (sessionId: string) => `sessionId=${encodeURIComponent(sessionId)}`;

export const orcApi = {
  state: (sessionId: string) => get<OrcState>(`/api/orchestrate/state?${q(sessionId)}`),
  move: (sessionId: string, phase: Phase, options: { approve?: boolean; reason?: string } = {}) =>
    put<OrcState>('/api/orchestrate/state', { sessionId, phase, ...(options.approve ? { approve: true } : {}), ...(options.reason ? { reason: options.reason } : {}) }),
  workerRuns: (sessionId: string) => get<{ runs: WorkerRun[] }>(`/api/orchestrate/worker-runs?${q(sessionId)}&limit=20`),
  output: (runId: string) => get<{ text: string; total: number }>(`/api/orchestrate/worker-runs/${runId}/output?offset=0&limit=20000`),
  cancel: (runId: string) => post<WorkerRun>(`/api/orchestrate/worker-runs/${runId}/cancel`, { reason: 'cancelled in the UI' }),
};

/** The active session's orchestration and worker runs, refetched on the events that change them. */
export function useOrchestration(): { state: OrcState | null; runs: WorkerRun[]; refresh: () => void } {
  const sessionId = useStore((s) => s.activeId ?? s.view.sessionId);
  const [state, setOrc] = useState<OrcState | null>(null);
  const [runs, setRuns] = useState<WorkerRun[]>([]);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    void orcApi.state(sessionId).then((s) => live && setOrc(s), () => undefined);
    void orcApi.workerRuns(sessionId).then((r) => live && setRuns(r.runs), () => undefined);
    return () => {
      live = false;
    };
  }, [sessionId, tick]);
  useEffect(
    () =>
      onLiveEvent((event) => {
        // a worker's tool steps carry its run id, not the session: any of them refreshes the list
        if (event.event === 'agent_tool' && event.workerRunId) setTick((t) => t + 1);
        else if ((event.event === 'orc_state' || event.event === 'worker_run') && event.sessionId === sessionId) setTick((t) => t + 1);
      }),
    [sessionId],
  );
  return { state, runs, refresh: () => setTick((t) => t + 1) };
}
