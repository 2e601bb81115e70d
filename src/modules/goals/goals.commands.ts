// The /goal command (a person acting on the active chat's goal):
//   /goal                                   the goal, the gate, the last checkpoint
//   /goal set <objective> [--root <dir>] [--turns N] [--minutes N] [--dispatches N] [--replace]
//   /goal update <summary> [--next <action>] [--evidence <file>]... [--check <command>]
//   /goal refine <objective> | done [--note <text>] | cancel [reason] | pause [reason] | resume | clear | history
//   /goal run [preflight|start|approve|pause|resume|stop|complete] [--mode dry-run|assist|bounded|supervised]
import { splitOptions, usageError, type SlashCommand } from '../../agent/commands.ts';
import { badRequest } from '../../core/errors.ts';
import { GOAL_RUN_MODES, type Budget, type GoalRunMode } from '../../protocol/goals.ts';
import { describeGoal, describeHistory, describeRun } from '../../protocol/goals-text.ts';
import type { GoalRunAction, GoalService } from './goals.service.ts';

const USAGE = '/goal [status] | set <objective> [--root <dir>] [--turns N] [--minutes N] [--dispatches N] [--replace] | update <summary> [--next <action>] [--evidence <file or run:<runId>>] [--check <cmd>] | refine <objective> | done | cancel | pause | resume | clear | history | run [preflight|start|approve|pause|resume|stop|complete] [--mode <mode>]';
const RUN_ACTIONS = ['preflight', 'start', 'approve', 'pause', 'resume', 'stop', 'complete'] as const;

function count(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw badRequest('INVALID_COMMAND_ARGS', `--${name} is a whole number.`, { command: 'goal' });
  return n;
}

export function goalCommand(goals: GoalService): SlashCommand {
  return {
    name: 'goal',
    usage: USAGE,
    description: 'Set a goal the agent keeps working on until it is done with evidence; pause, resume, run it within a budget.',
    async run(args) {
      const parsed = splitOptions(args);
      if (typeof parsed === 'string') throw usageError('goal', USAGE);
      const { words, options } = parsed;
      const opt = (name: string) => options.get(name)?.[0];
      const [sub = 'status', ...rest] = words;
      const text = rest.join(' ');
      const caller = goals.caller();
      const act = async (input: Parameters<GoalService['act']>[1]) => {
        const result = await goals.act(caller, input);
        return `${result.outcome}\n${describeGoal(result)}`;
      };
      switch (sub) {
        case 'status':
          return describeGoal(goals.view(caller.sessionId));
        case 'history':
          return describeHistory(goals.history(caller.sessionId, 10).goals);
        case 'set': {
          const budget: Budget = { maxTurns: count(opt('turns'), 'turns'), maxMinutes: count(opt('minutes'), 'minutes'), maxDispatches: count(opt('dispatches'), 'dispatches') };
          for (const key of Object.keys(budget) as (keyof Budget)[]) if (budget[key] === undefined) delete budget[key];
          return act({ action: 'set', objective: text, projectRoot: opt('root'), budget, replace: options.has('replace') });
        }
        case 'update':
          return act({ action: 'update', summary: text, nextAction: opt('next'), evidence: options.get('evidence'), check: opt('check') });
        case 'refine':
          return act({ action: 'refine', objective: text });
        case 'done':
          return act({ action: 'done', note: opt('note') });
        case 'cancel':
          return act({ action: 'cancel', reason: text || undefined });
        case 'pause':
          return act({ action: 'pause', reason: text || undefined });
        case 'resume':
          return act({ action: 'resume' });
        case 'clear':
          return act({ action: 'clear' });
        case 'run': {
          const action = (rest[0] ?? 'preflight') as GoalRunAction['action'];
          if (!(RUN_ACTIONS as readonly string[]).includes(action)) throw usageError('goal', USAGE);
          const mode = opt('mode');
          if (mode !== undefined && !(GOAL_RUN_MODES as readonly string[]).includes(mode)) throw badRequest('INVALID_COMMAND_ARGS', `--mode is one of ${GOAL_RUN_MODES.join(', ')}.`, { command: 'goal' });
          return describeRun(goals.runAct(caller.sessionId, { action, mode: mode as GoalRunMode | undefined }));
        }
        default:
          throw usageError('goal', USAGE);
      }
    },
  };
}
