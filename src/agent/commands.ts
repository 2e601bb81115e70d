// Slash commands (POST /api/command, GET /api/commands). Each command parses its own arguments
// and either answers with text or streams an agent run into the response.
import { ApiError, badRequest } from '../http/errors.ts';
import { PROVIDER_IDS } from '../config/settings.ts';
import type { ProviderId } from './providers/types.ts';
import type { AgentRuntime } from './runtime.ts';
import type { ChatService } from '../services/chat.ts';
import type { SettingsService } from '../services/settings.ts';
import type { RunSink } from './stream-lines.ts';

export interface CommandContext {
  agent: AgentRuntime;
  chat: ChatService;
  settings: SettingsService;
  /** Opens the streamed response; only commands that stream a run call it. */
  openStream(): RunSink;
}

/** A command answers with text, or with `streamed` once it has handed the stream to a run. */
export type CommandResult = string | { streamed: true };

export interface SlashCommand {
  name: string;
  usage: string;
  description: string;
  run(args: string, ctx: CommandContext): Promise<CommandResult> | CommandResult;
}

export class CommandRegistry {
  private readonly commands = new Map<string, SlashCommand>();

  register(command: SlashCommand): void {
    if (this.commands.has(command.name)) throw new Error(`command /${command.name} is registered twice`);
    this.commands.set(command.name, command);
  }

  list(): { name: string; usage: string; description: string }[] {
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

const usageError = (command: string, usage: string) => badRequest('INVALID_COMMAND_ARGS', `Usage: ${usage}`, { command });

function parseProvider(name: string, usage: string): ProviderId {
  if (!(PROVIDER_IDS as readonly string[]).includes(name)) {
    throw badRequest('UNKNOWN_PROVIDER', `Unknown provider '${name}'. Providers: ${PROVIDER_IDS.join(', ')}. Usage: ${usage}`);
  }
  return name as ProviderId;
}

export function builtInCommands(registry: CommandRegistry): SlashCommand[] {
  const commands: SlashCommand[] = [
    {
      name: 'help',
      usage: '/help [command]',
      description: 'List the commands, or show how to use one.',
      run(args) {
        if (args) {
          const { command } = registry.resolve(`/${args.replace(/^\//, '')}`);
          return `${command.usage}\n${command.description}`;
        }
        return registry.list().map((c) => `${c.usage.padEnd(34)} ${c.description}`).join('\n');
      },
    },
    {
      name: 'cli',
      usage: '/cli [provider]',
      description: 'Show or choose the provider CLI that runs the agent.',
      run(args, { settings }) {
        if (!args) return `provider: ${settings.get().agent.provider}`;
        const provider = parseProvider(args, '/cli <provider>');
        settings.update({ agent: { provider, model: '' } });
        return `provider set to ${provider} (model reset to the CLI's default)`;
      },
    },
    {
      name: 'model',
      usage: '/model [name|default]',
      description: 'Show or choose the model of the active provider.',
      run(args, { settings }) {
        const agent = settings.get().agent;
        if (!args) return `model: ${agent.model || `${agent.provider}'s default`}`;
        const model = args === 'default' ? '' : args;
        settings.update({ agent: { model } });
        return `model set to ${model || `${agent.provider}'s default`}`;
      },
    },
    {
      name: 'fallback',
      usage: '/fallback [provider ...|off]',
      description: 'Show or set the providers tried, in order, when the active one fails.',
      run(args, { settings }) {
        if (!args) return `fallback: ${settings.get().agent.fallback.join(' → ') || 'off'}`;
        const fallback = args === 'off' ? [] : args.split(/\s+/).map((p) => parseProvider(p, '/fallback <provider> [provider ...]'));
        settings.update({ agent: { fallback } });
        return `fallback: ${fallback.join(' → ') || 'off'}`;
      },
    },
    {
      name: 'stop',
      usage: '/stop',
      description: 'Stop the running agent and drop queued messages.',
      run(_args, { agent }) {
        const { stopped, cleared } = agent.stop();
        return stopped || cleared ? `stopped${cleared ? `; ${cleared} queued message(s) dropped` : ''}` : 'nothing was running';
      },
    },
    {
      name: 'clear',
      usage: '/clear',
      description: 'Delete the messages of the current chat and start a fresh provider session.',
      run(_args, { agent, chat }) {
        const { deleted } = agent.clearSession(chat.activeSession().id);
        return `cleared ${deleted} message(s)`;
      },
    },
    {
      name: 'reset',
      usage: '/reset',
      description: 'Keep the history but start a fresh provider session with the next message.',
      run(_args, { agent, chat }) {
        agent.resetProviderSession(chat.activeSession().id);
        return 'the next message starts a fresh provider session';
      },
    },
    {
      name: 'status',
      usage: '/status',
      description: 'Show the provider, model, fallback chain, and what the agent is doing.',
      run(_args, { agent, chat, settings }) {
        const a = settings.get().agent;
        const status = agent.status();
        const session = chat.activeSession();
        return [
          `provider: ${a.provider}${a.model ? ` (model ${a.model})` : ''}${a.effort ? `, effort ${a.effort}` : ''}`,
          `fallback: ${a.fallback.join(' → ') || 'off'}`,
          `agent: ${status.active ? `running ${status.active.traceId} on ${status.active.provider}` : 'idle'}, ${status.pending} queued`,
          `chat session: ${session.title} (${session.id})`,
        ].join('\n');
      },
    },
    {
      name: 'steer',
      usage: '/steer <text>',
      description: 'Redirect the running agent with new instructions.',
      run(args, ctx) {
        if (!args) throw usageError('steer', '/steer <text>');
        if (!ctx.agent.status().busy) throw new ApiError(409, 'NOT_RUNNING', 'Nothing is running to steer; send the text as a message instead.');
        ctx.agent.steer(args, ctx.openStream());
        return { streamed: true };
      },
    },
    {
      name: 'sessions',
      usage: '/sessions',
      description: 'List the chat sessions.',
      run(_args, { chat }) {
        return chat.sessions.list(50).map((s) => `${s.active ? '*' : ' '} ${s.id}  ${s.title}`).join('\n');
      },
    },
    {
      name: 'new',
      usage: '/new [title]',
      description: 'Start a new chat session and switch to it.',
      run(args, { chat }) {
        const session = chat.createSession(args || undefined, true);
        return `switched to new session ${session.title} (${session.id})`;
      },
    },
  ];
  return commands;
}
