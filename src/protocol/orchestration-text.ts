// The orchestration in words, for people: the phases' names, what each gate needs and what it means
// to approve one. Zod-free values (the web UI imports them; the server's 409s quote them), one
// definition for both.
import type { Gate, Phase } from './orchestration.ts';

export const PHASE_NAMES: Record<Phase, string> = { IDLE: 'idle', I: 'interview', P: 'plan', A: 'audit', B: 'build', C: 'check', D: 'done' };

/** The one forward move out of each phase that has one (the move a gate, when there is one, guards). */
export const NEXT_PHASE: Partial<Record<Phase, Phase>> = { I: 'P', P: 'A', A: 'B', B: 'C', C: 'D' };
/** Where the UI's "send back" goes from a phase waiting on its gate (one of the machine's back edges). */
export const SEND_BACK: Partial<Record<Phase, Phase>> = { P: 'I', A: 'P', B: 'I', C: 'B' };

export interface GateText {
  /** The record the gate takes, as a noun: "a submitted plan". */
  record: string;
  /** How an agent (or a person at the command line) provides it. */
  satisfiedBy: string;
}

export const GATE_TEXT: Record<Gate, GateText> = {
  plan: { record: 'a submitted plan', satisfiedBy: 'submit the plan: `svc orchestrate plan --file plan.md` (or POST /api/orchestrate/plan)' },
  audit: {
    record: 'an auditor\'s passing verdict on the current plan',
    satisfiedBy: 'dispatch an audit worker with phase A whose output ends with {"verdict":"pass","findings":[…]} for the current plan version',
  },
  verification: {
    record: 'a verifier\'s "done" verdict in this build round',
    satisfiedBy: 'dispatch a verification worker with phase B whose output ends with {"verdict":"done","findings":[…]} in this build round',
  },
  check: {
    record: 'the check command passing in this build round',
    satisfiedBy: 'the check command (setting orchestration.checkCommand) must exit 0 in this build round; moving to D runs it',
  },
};
