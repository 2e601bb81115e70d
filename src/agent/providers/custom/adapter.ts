// The `custom` provider: any command that prints its answer as plain text on stdout (a "print mode").
// The user configures a command template (the setting `agent.customCommand`, passed as `commandTemplate`;
// one array element per argument), e.g.
//   ["mycli", "--print", "{prompt}"]            prompt as an argument
//   ["mycli", "--model={model}", "--quiet"]      prompt on stdin (no {prompt} anywhere)
// Placeholders: {prompt} {model} {cwd} {session} {effort} {system}. They are substituted inside each
// argument separately and the result goes to the process as argv (never through a shell), so no value
// can inject extra arguments or shell syntax.
//
// What the protocol cannot express, and therefore is never emitted: session ids (resume unsupported:
// the runner starts a fresh process each turn), thinking, steps, usage.

import type {
  ExitInfo,
  Invocation,
  InvocationRequest,
  NormalizedEvent,
  ProviderAdapter,
} from '../types.ts';
import { refuseMcpOnly, resultFromExit } from '../shared.ts';

export interface CustomState {
  /** Lines of stdout seen: a failed run with no output and no stderr says "no output". */
  lines: number;
}

type Placeholder = 'prompt' | 'model' | 'cwd' | 'session' | 'effort' | 'system';

const PLACEHOLDER_RE = /\{(prompt|model|cwd|session|effort|system)\}/g;

/** Values for each placeholder; `undefined` means absent (the argument that uses it is dropped). */
function placeholderValues(req: InvocationRequest): Record<Placeholder, string | undefined> {
  return {
    // The prompt is always present, even when empty: dropping it would silently change the command.
    prompt: req.prompt,
    model: nonEmpty(req.model),
    cwd: req.cwd,
    session: nonEmpty(req.resumeSessionId),
    effort: nonEmpty(req.effort),
    system: nonEmpty(req.systemPrompt),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function usesPlaceholder(arg: string, name: Placeholder): boolean {
  return arg.includes(`{${name}}`);
}

/**
 * Substitutes one template argument in a single pass, so text inside a value (a prompt that
 * contains "{model}") is never substituted again. Returns `undefined` when the argument uses a
 * placeholder whose value is absent: `["--model", "{model}"]` loses "{model}", and
 * `"--model={model}"` is dropped whole rather than sent as a dangling "--model=".
 */
export function substituteArgument(
  arg: string,
  values: Record<Placeholder, string | undefined>,
): string | undefined {
  let absent = false;
  const out = arg.replace(PLACEHOLDER_RE, (_match, name: Placeholder) => {
    const value = values[name];
    if (value === undefined) {
      absent = true;
      return '';
    }
    return value;
  });
  return absent ? undefined : out;
}

function validateTemplate(template: string[] | undefined): [string, ...string[]] {
  if (!template || template.length === 0 || !template[0] || template[0].trim() === '') {
    throw new Error(
      'custom provider: the setting `agent.customCommand` is empty; set it to the command and its ' +
        'arguments, e.g. ["mycli", "--print", "{prompt}"]',
    );
  }
  return template as [string, ...string[]];
}

function buildInvocation(req: InvocationRequest): Invocation {
  if (req.readOnly) throw new Error('a custom command cannot be made read-only by svc; use claude, codex, gemini or copilot for a read-only worker');
  if (req.mcpOnly) refuseMcpOnly('A custom command');
  const template = validateTemplate(req.commandTemplate);
  const values = placeholderValues(req);
  const [commandTemplate, ...argTemplates] = template;
  // The executable itself may use a placeholder (e.g. "{cwd}/bin/agent"); it must resolve.
  const command = substituteArgument(commandTemplate, values);
  if (command === undefined || command === '') {
    throw new Error(
      `custom provider: the command "${commandTemplate}" in the setting \`agent.customCommand\` uses a ` +
        'placeholder with no value for this run; put a fixed executable first',
    );
  }
  const args: string[] = [];
  for (const argTemplate of argTemplates) {
    const arg = substituteArgument(argTemplate, values);
    if (arg !== undefined) args.push(arg);
  }
  args.push(...(req.extraArgs ?? []));
  const promptInArgs = template.some((arg) => usesPlaceholder(arg, 'prompt'));
  return promptInArgs
    ? { command, args, env: {}, stdin: 'close' }
    : { command, args, env: {}, stdin: 'write-close', stdinText: req.prompt };
}

/** Every line is answer text; the newline the runner stripped is put back so the joined text equals stdout. */
function parseLine(state: CustomState, line: string) {
  state.lines += 1;
  return { events: [{ kind: 'text_delta', text: `${line}\n` } satisfies NormalizedEvent] };
}

function finish(state: CustomState, exit: ExitInfo): NormalizedEvent[] {
  // No structured output exists: the exit status decides, and stderr text (else 'crash') says why.
  const hint = state.lines === 0 && !exit.stderr.trim() ? { failure: 'crash' as const, message: 'no output' } : undefined;
  return [resultFromExit(exit, hint)];
}

export const customAdapter: ProviderAdapter<CustomState> = {
  id: 'custom',
  displayName: 'Custom command',
  // No session ids, so a steer restarts the command with the new prompt (history is not carried).
  steerMode: 'interrupt-resume',
  buildInvocation,
  initialState: () => ({ lines: 0 }),
  parseLine,
  finish,
};
