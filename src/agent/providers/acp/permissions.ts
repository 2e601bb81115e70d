// `session/request_permission` of the Agent Client Protocol: the request as a person reads it, and the
// answer written back. Pure; shared by every CLI svc drives over ACP (Copilot, Gemini CLI, OpenCode).
//
// ACP v1 names no tool: a request's `kind` (execute, edit, delete, move, read, search, fetch, other) is
// the tool, stable across calls, so remembered rules read `execute(npm test)` or `edit(<path>)`; the
// title ("Create file", the model's description of a command) is the description. Each CLI puts the
// input its own way: Copilot `rawInput {command}` or `{fileName, diff}`, OpenCode `rawInput {filepath,
// diff}`, Gemini no `rawInput` but a `diff` content block {path, oldText, newText}.

import type { NormalizedEvent } from '../types.ts';
import { objectAt, stringAt, type JsonObject } from '../shared.ts';
import { toolCallInput } from './updates.ts';

/** The option to pick: "allow once" before "always", whose answer the CLI may remember beyond svc's rules. */
export function chooseOption(options: JsonObject[], allow: boolean): string | undefined {
  const preference = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of preference) {
    const id = stringAt(options.find((o) => o.kind === kind), 'optionId');
    if (id) return id;
  }
  const word = allow ? /allow|approve|yes/i : /reject|deny|no\b/i;
  return stringAt(
    options.find((o) => word.test(`${stringAt(o, 'optionId') ?? ''} ${stringAt(o, 'name') ?? ''}`)),
    'optionId',
  );
}

/** The JSON-RPC answer: the option picked, or `cancelled` (no option, or the turn was cancelled). */
export function permissionAnswer(id: string | number, optionId: string | undefined): string {
  const outcome = optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' };
  return JSON.stringify({ jsonrpc: '2.0', id, result: { outcome } });
}

export function permissionRequestEvent(requestId: string, params: JsonObject | undefined): NormalizedEvent {
  const call = objectAt(params, 'toolCall');
  const title = stringAt(call, 'title');
  return {
    kind: 'permission_request',
    requestId,
    tool: stringAt(call, 'kind') ?? 'other',
    input: toolCallInput(call),
    ...(title ? { description: title } : {}),
  };
}
