// The goal banner (objective, status, budget used, the last checkpoints, the pause gate when it is armed,
// pause/resume/cancel) and the tasks panel under it. Both follow live events: goal_* and task_update.
import { useEffect, useState } from 'preact/hooks';
import { budgetText, goalApi, type GoalView, type Task } from '../goals.ts';
import { onLiveEvent, toast, useStore } from '../store.ts';
import { goalStateText } from '../../../src/protocol/goals-text.ts';
import { ConfirmDialog } from '../../ui/components.tsx';

const GOAL_EVENTS = new Set(['goal_update', 'goal_done', 'goal_done_rejected', 'goal_cancel', 'goal_pause_gate_pending', 'goal_pause_detected', 'goal_continuation', 'goal_continuation_limit']);
const OPEN_TASK = new Set(['pending', 'in_progress']);

function useGoal(sessionId: string | null): GoalView | null {
  const [view, setView] = useState<GoalView | null>(null);
  useEffect(() => {
    if (!sessionId) return;
    let current = true;
    const load = () => void goalApi.view(sessionId).then((v) => current && setView(v), () => undefined);
    load();
    const stop = onLiveEvent((ev) => {
      if (GOAL_EVENTS.has(ev.event) && (ev.sessionId === undefined || ev.sessionId === sessionId)) load();
    });
    return () => {
      current = false;
      stop();
    };
  }, [sessionId]);
  return view;
}

function useTasks(): Task[] {
  const [tasks, setTasks] = useState<Task[]>([]);
  useEffect(() => {
    let current = true;
    const load = () => void goalApi.tasks().then((t) => current && setTasks(t.tasks), () => undefined);
    load();
    const stop = onLiveEvent((ev) => ev.event === 'task_update' && load());
    return () => {
      current = false;
      stop();
    };
  }, []);
  return tasks;
}

export function GoalBanner() {
  const sessionId = useStore((s) => s.view.sessionId);
  const view = useGoal(sessionId);
  const tasks = useTasks().filter((t) => OPEN_TASK.has(t.status));
  const [confirmCancel, setConfirmCancel] = useState(false);
  const goal = view?.goal;
  const act = (action: 'pause' | 'resume' | 'cancel') => {
    setConfirmCancel(false);
    if (!sessionId) return;
    void goalApi.act(sessionId, action).then(
      (r) => toast(r.outcome, 'info'),
      (err) => toast((err as Error).message),
    );
  };
  if (!goal && !tasks.length) return null;
  const open = goal?.status === 'active' || goal?.status === 'paused';
  return (
    <section class="goal-banner" aria-label="Goal" data-testid="goal-banner">
      {goal && (
        <div class="goal-main" data-status={goal.status}>
          <div class="goal-head">
            <span class={`goal-status goal-${goal.status}`} data-testid="goal-status">{goalStateText(goal)}</span>
            <span class="goal-objective" title={goal.objective}>{goal.objective}</span>
            <span class="goal-budget" data-testid="goal-budget">{budgetText(goal)}</span>
            <span class="goal-actions">
              {goal.status === 'active' && <button type="button" class="link-btn" onClick={() => act('pause')}>Pause</button>}
              {open && (goal.status === 'paused' || view.pauseGate.state !== 'open') && <button type="button" class="link-btn" onClick={() => act('resume')}>Resume</button>}
              {open && <button type="button" class="link-btn" onClick={() => setConfirmCancel(true)}>Cancel goal…</button>}
            </span>
          </div>
          <ConfirmDialog open={confirmCancel} title="Cancel this goal?" confirmLabel="Cancel the goal" cancelLabel="Keep it" danger onConfirm={() => act('cancel')} onCancel={() => setConfirmCancel(false)}>
            <p>The agent stops working towards “{goal.objective}”. A cancelled goal cannot be resumed: to go on later, set a new goal.</p>
          </ConfirmDialog>
          {view.pauseGate.state !== 'open' && (
            <div class="goal-gate" role="status" data-testid="goal-gate">
              The agent asked to pause ({view.pauseGate.state.replace('_', ' ')}): {view.pauseGate.reason}
            </div>
          )}
          {goal.note && <div class="goal-note">{goal.note}</div>}
          {view.checkpoints.length > 0 && (
            <ol class="goal-checkpoints" data-testid="goal-checkpoints">
              {view.checkpoints.slice(0, 3).map((c) => (
                <li key={c.id}>
                  {c.summary}
                  {c.nextAction && <span class="goal-next"> → {c.nextAction}</span>}
                  {c.evidence.length > 0 && <span class="goal-evidence"> ({c.evidence.map((e) => `${e.path}${e.exists ? '' : ' missing'}`).join(', ')})</span>}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
      {tasks.length > 0 && (
        <ul class="tasks" aria-label="Tasks" data-testid="tasks">
          {tasks.map((t) => (
            <li key={t.id} data-task={t.id} data-status={t.status}>
              <button type="button" class="task-check" aria-label={`Mark done: ${t.content}`} onClick={() => void goalApi.taskDone(t.id).catch((err) => toast((err as Error).message))} />
              <span>{t.content}</span>
              {t.owner !== 'main' && <span class="task-owner">{t.owner}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
