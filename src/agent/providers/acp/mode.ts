// A CLI svc runs headless unless a person answers its permission requests, then over ACP (Gemini CLI,
// OpenCode): its state holds an ACP conversation in that case, and these entry points send each call
// to the mode the run is in.

import type { AdapterOutput, ExitInfo, NormalizedEvent, PermissionAnswer } from '../types.ts';
import { acpAnswerPermission, acpFinish, acpParseLine, acpStart, type AcpState } from './conversation.ts';

export function headlessOrAcp<S extends { acp?: AcpState }>(headless: {
  parseLine(state: S, line: string): AdapterOutput;
  finish(state: S, exit: ExitInfo): NormalizedEvent[];
}) {
  return {
    start: (state: S): AdapterOutput => (state.acp ? acpStart(state.acp) : { events: [] }),
    parseLine: (state: S, line: string): AdapterOutput => (state.acp ? acpParseLine(state.acp, line) : headless.parseLine(state, line)),
    // A headless run never asks (it emits no permission_request), so it is never answered.
    answerPermission: (state: S, requestId: string, answer: PermissionAnswer): AdapterOutput =>
      state.acp ? acpAnswerPermission(state.acp, requestId, answer) : { events: [] },
    finish: (state: S, exit: ExitInfo): NormalizedEvent[] => (state.acp ? acpFinish(state.acp, exit) : headless.finish(state, exit)),
  };
}
