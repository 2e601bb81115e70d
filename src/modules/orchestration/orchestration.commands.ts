// Slash commands: /orchestrate [I|P|A|B|C|D|IDLE|status|reset] [approve], /pabcd (start a cycle, or
// say where it is), /dispatch <employee> <task…>. Who sent them (a human, or the agent by its
// credential) counts as it does on the routes.
import { badRequest } from '../../core/errors.ts';
import type { SlashCommand } from '../../agent/commands.ts';
import { PHASES, type OrcState, type Phase } from '../../protocol/orchestration.ts';
import type { OrchestrationService } from './orchestration.service.ts';
import type { WorkerService } from './workers.service.ts';

const ORC_USAGE = '/orchestrate [I|P|A|B|C|D|IDLE|status|reset] [approve]';
const DISPATCH_USAGE = '/dispatch <employee-id> <task…>';

export function describeState(state: OrcState): string {
  const gate = state.waitingOn ? `, waiting on the ${state.waitingOn} gate` : '';
  const records = [
    state.plan ? `plan v${state.plan.version}` : 'no plan',
    state.audit ? `audit ${state.audit.verdict}` : 'no audit',
    state.verification ? `verification ${state.verification.verdict}` : 'no verification',
    state.check ? `check exit ${state.check.exitCode}` : 'no check',
  ];
  return `Orchestration: phase ${state.phase} (${state.status}${gate}); ${records.join(', ')}.`;
}

export function orchestrationCommands(orchestration: OrchestrationService, workers: WorkerService): SlashCommand[] {
  return [
    {
      name: 'orchestrate',
      usage: ORC_USAGE,
      description: 'the orchestration of this chat: its state, a move to a phase (approve: a human approves its gate), reset',
      async run(args, ctx) {
        const [word = 'status', extra, ...rest] = args.split(/\s+/).filter(Boolean);
        if (rest.length || (extra && extra.toLowerCase() !== 'approve')) throw badRequest('INVALID_COMMAND_ARGS', `Usage: ${ORC_USAGE}`, { command: 'orchestrate' });
        const acting = orchestration.acting(ctx.caller);
        if (word === 'status') return describeState(orchestration.state(acting.sessionId));
        if (word === 'reset') return describeState(orchestration.reset(acting));
        const phase = word.toUpperCase();
        if (!(PHASES as readonly string[]).includes(phase)) throw badRequest('INVALID_COMMAND_ARGS', `Usage: ${ORC_USAGE}`, { command: 'orchestrate' });
        return describeState(await orchestration.move(acting, { phase: phase as Phase, approve: Boolean(extra) }));
      },
    },
    {
      name: 'pabcd',
      usage: '/pabcd',
      description: 'start an orchestrated cycle (plan, audit, build, check, done) in this chat, or say where it is',
      async run(_args, ctx) {
        const acting = orchestration.acting(ctx.caller);
        const state = orchestration.state(acting.sessionId);
        if (state.phase !== 'IDLE') return describeState(state);
        return describeState(await orchestration.move(acting, { phase: 'P' }));
      },
    },
    {
      name: 'dispatch',
      usage: DISPATCH_USAGE,
      description: 'give a task to a worker (an employee id from GET /api/employees); its result comes back to this chat',
      run(args, ctx) {
        const match = /^(\S+)\s+([\s\S]+)$/.exec(args.trim());
        if (!match) throw badRequest('INVALID_COMMAND_ARGS', `Usage: ${DISPATCH_USAGE}`, { command: 'dispatch' });
        const run = workers.dispatch(orchestration.acting(ctx.caller), { employee: match[1]!, task: match[2]! });
        return `Dispatched ${run.runId} to ${run.employeeId} (${run.status}); its result comes back to this chat.`;
      },
    },
  ];
}
