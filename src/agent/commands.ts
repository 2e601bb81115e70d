// Slash commands (POST /api/command, GET /api/commands): the registry, and what a command is. Each
// module contributes its own commands (modules/<d>/<d>.commands.ts); the server registers them all.
// A command parses its own arguments and either answers with text or streams an agent run into the
// response.
import { badRequest } from '../core/errors.ts';
import type { RunSink } from '../protocol/stream-lines.ts';
import type { Caller } from '../protocol/caller.ts';

export interface CommandContext {
  /** Opens the streamed response; only commands that stream a run call it. */
  openStream(): RunSink;
  /** Who sent the command: a human, or the agent of a run (by its credential). */
  caller: Caller;
}

/** A command answers with text, or with `streamed` once it has handed the stream to a run. */
export type CommandResult = string | { streamed: true };

export interface SlashCommand {
  name: string;
  usage: string;
  description: string;
  run(args: string, ctx: CommandContext): Promise<CommandResult> | CommandResult;
}

export interface CommandInfo {
  name: string;
  usage: string;
  description: string;
}

/**
 * A command whose code loads on its first use: the registry lists it from `info`, and `load` imports what
 * runs it (a parser and renderer with their schemas need not be built when the server starts).
 */
export function lazyCommand(info: CommandInfo, load: () => Promise<SlashCommand['run']>): SlashCommand {
  return { ...info, run: async (args, ctx) => (await load())(args, ctx) };
}

export class CommandRegistry {
  private readonly commands = new Map<string, SlashCommand>();

  register(...commands: SlashCommand[]): void {
    for (const command of commands) {
      if (this.commands.has(command.name)) throw new Error(`command /${command.name} is registered twice`);
      this.commands.set(command.name, command);
    }
  }

  list(): CommandInfo[] {
    return [...this.commands.values()].map(({ name, usage, description }) => ({ name, usage, description }));
  }

  /** Splits "/name rest" and finds the command; unknown names are a 400 listing what exists. */
  resolve(text: string): { command: SlashCommand; args: string } {
    const match = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
    if (!match) throw badRequest('NOT_A_COMMAND', 'A command starts with "/" followed by its name, e.g. /help.');
    const command = this.commands.get(match[1]!.toLowerCase());
    if (!command) throw badRequest('UNKNOWN_COMMAND', `Unknown command /${match[1]}. Commands: ${[...this.commands.keys()].map((n) => `/${n}`).join(' ')}`);
    return { command, args: (match[2] ?? '').trim() };
  }
}

export const usageError = (command: string, usage: string) => badRequest('INVALID_COMMAND_ARGS', `Usage: ${usage}`, { command });

/** One word of a command's arguments; `quoted` words are never read as options. */
export interface ArgToken {
  value: string;
  quoted: boolean;
}

/** Split on whitespace; "double" (with \" and \\ escapes) and 'single' quotes group words. */
export function tokenizeArgs(input: string): ArgToken[] | string {
  const out: ArgToken[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      let v = '';
      let j = i + 1;
      let closed = false;
      while (j < input.length) {
        const d = input[j]!;
        if (d === c) {
          closed = true;
          break;
        }
        if (c === '"' && d === '\\' && (input[j + 1] === '"' || input[j + 1] === '\\')) {
          v += input[j + 1];
          j += 2;
          continue;
        }
        v += d;
        j++;
      }
      if (!closed) return `unterminated ${c === '"' ? 'double' : 'single'} quote`;
      out.push({ value: v, quoted: true });
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < input.length && !/\s/.test(input[j]!)) j++;
    out.push({ value: input.slice(i, j), quoted: false });
    i = j;
  }
  return out;
}

/** Words and `--name value` options of a command's arguments (an option given twice keeps both values). */
export function splitOptions(input: string): { words: string[]; options: Map<string, string[]> } | string {
  const tokens = tokenizeArgs(input);
  if (typeof tokens === 'string') return tokens;
  const words: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const flag = !token.quoted && /^--([a-z][\w-]*)(?:=([\s\S]*))?$/.exec(token.value);
    if (!flag) {
      words.push(token.value);
      continue;
    }
    const value = flag[2] ?? (tokens[i + 1] && !/^--/.test(tokens[i + 1]!.value) ? tokens[++i]!.value : '');
    options.set(flag[1]!, [...(options.get(flag[1]!) ?? []), value]);
  }
  return { words, options };
}
