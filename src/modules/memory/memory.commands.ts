// The /memory slash command: search, save, status, reindex.
//   /memory search <words>
//   /memory save [--mode append|replace|section] <path> <text…>   (the text is kept as written, newlines included)
//   /memory status
//   /memory reindex
import { badRequest } from '../../core/errors.ts';
import type { SlashCommand } from '../../agent/commands.ts';
import { describeMemoryStatus, SAVE_MODES, type SaveMode } from '../../protocol/memory.ts';
import type { MemoryService } from './memory.service.ts';

const USAGE = '/memory search <words> | save [--mode append|replace|section] <path> <text> | status | reindex';

const usage = () => badRequest('INVALID_COMMAND_ARGS', `Usage: ${USAGE}`, { command: 'memory' });

/** The first word of `text` ("double" or 'single' quotes group one), and the rest as written. */
export function firstWord(text: string): [string, string] | undefined {
  const match = /^\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  const word = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!);
  return [word, match[4]!.replace(/^[ \t]*\n?|^\s+/, '')];
}

export function parseSave(args: string): { path: string; mode: SaveMode; content: string } {
  let rest = args;
  let mode: SaveMode = 'append';
  const flag = /^\s*--mode(?:=|\s+)(\S+)([\s\S]*)$/.exec(rest);
  if (flag) {
    if (!(SAVE_MODES as readonly string[]).includes(flag[1]!)) throw badRequest('INVALID_COMMAND_ARGS', `--mode is one of ${SAVE_MODES.join(', ')}.`, { command: 'memory' });
    mode = flag[1] as SaveMode;
    rest = flag[2]!;
  }
  const split = firstWord(rest);
  if (!split || !split[1].trim()) throw usage();
  // a text given as one quoted word (as `svc memory save` forwards it) loses its quotes
  const whole = firstWord(split[1]);
  const content = whole && !whole[1].trim() && /^\s*["']/.test(split[1]) ? whole[0] : split[1];
  return { path: split[0], mode, content };
}

export function memoryCommand(memory: MemoryService): SlashCommand {
  return {
    name: 'memory',
    usage: USAGE,
    description: 'Search, save to, and look after the memory the agent reads before it answers.',
    async run(args) {
      const split = firstWord(args);
      if (!split) throw usage();
      const [sub, rest] = split;
      switch (sub) {
        case 'search': {
          if (!rest.trim()) throw usage();
          const { hits } = await memory.search(rest, { limit: 10 });
          if (!hits.length) return `nothing in memory matches "${rest.trim()}"`;
          return hits.map((h) => `${h.path}:${h.startLine}-${h.endLine} (${h.kind}${h.heading ? `, ${h.heading}` : ''})\n  ${h.snippet}`).join('\n');
        }
        case 'save': {
          const saved = await memory.save(parseSave(rest));
          return `${saved.created ? 'created' : 'saved'} ${saved.path} (${saved.kind}, ${saved.mode}, ${saved.chunks} sections)`;
        }
        case 'status':
          return describeMemoryStatus(memory.status());
        case 'reindex': {
          const done = await memory.reindex();
          return `${done.joined ? 'joined the running reindex: ' : ''}${done.files} files, ${done.chunks} sections re-read in ${Math.round(done.durationMs)} ms`;
        }
        default:
          throw usage();
      }
    },
  };
}
