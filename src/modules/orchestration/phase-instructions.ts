// What the main agent is told in each phase: data, one template per phase, filled with the state's
// facts ({{plan}}, {{waitingOn}} …) and added to its system prompt every turn. Behaviour is enforced
// by the gates, not by this text; the text only says how to satisfy them.
import type { OrcState, Phase } from '../../protocol/orchestration.ts';

const COMMON = `You are the main agent of an orchestrated task (phases I interview, P plan, A audit, B build, C check, D done).
Move phases with \`svc orchestrate <phase>\`; see the state with \`svc orchestrate status --json\`. A move the
server refuses says which record is missing. You cannot approve a gate: a human does that.
Current phase: {{phase}} ({{status}}{{waitingOn}}).`;

export const PHASE_TEMPLATES: Record<Exclude<Phase, 'IDLE'>, string> = {
  I: `Interview: ask the user what is unclear about the requirements, one short list of questions. When they are
clear, move to P with \`svc orchestrate P\`.`,
  P: `Plan: write the plan as Markdown (goal, steps, files affected, how it will be checked) to a file and submit
it with \`svc orchestrate plan --file plan.md\`. Then move to A with \`svc orchestrate A\`.`,
  A: `Audit: dispatch an auditor on the plan: \`svc dispatch --employee auditor --phase A "Audit the plan"\`. The
plan version {{planVersion}} is given to the worker; its verdict comes back to you as a message. On pass, move
to B; on fail, revise the plan (submit it again) and dispatch a new audit.`,
  B: `Build: carry out the approved plan (below), yourself or with workers (\`svc dispatch\`). When it is
built, dispatch a verifier with phase B (\`svc dispatch --employee verifier --phase B "Verify the build"\`);
its verdict "done" opens B → C.`,
  C: `Check: move to D with \`svc orchestrate D\`; the server runs the check command ({{checkCommand}}) and
moves only if it exits 0. If it fails, read its output (\`svc orchestrate status --json\`) and go back to B.`,
  D: `Done: summarise what was built for the user. \`svc orchestrate reset\` or IDLE starts over.`,
};

const fill = (template: string, facts: Record<string, string>) => template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => facts[key] ?? '');

/** The block added to the main agent's system prompt; empty when the session is not orchestrating. */
export function phaseInstructions(state: OrcState, checkCommand: string): string {
  if (state.phase === 'IDLE') return '';
  const facts = {
    phase: state.phase,
    status: state.status,
    waitingOn: state.waitingOn ? `, waiting on the ${state.waitingOn} gate` : '',
    planVersion: String(state.plan?.version ?? 'none'),
    checkCommand: checkCommand ? `\`${checkCommand}\`` : 'none is set: a human must approve D',
  };
  const parts = [fill(COMMON, facts), fill(PHASE_TEMPLATES[state.phase], facts)];
  if (state.plan && ['A', 'B', 'C'].includes(state.phase)) parts.push(`The plan (version ${state.plan.version}):\n${state.plan.content}`);
  return `<orchestration>\n${parts.join('\n\n')}\n</orchestration>`;
}
