// Slash commands of agent control: /help, /cli, /model, /fallback, /stop, /clear, /reset, /status, /steer.
import { AppError, badRequest } from '../../core/errors.ts';
import { usageError, type CommandRegistry, type SlashCommand } from '../../agent/commands.ts';
import { isProviderId, PROVIDER_IDS, type ProviderId } from '../../agent/providers/registry.ts';
import type { AgentRuntime } from '../../agent/runtime.ts';
import type { AgentSettings } from '../../agent/settings.ts';
import type { CliStatus } from '../../protocol/providers.ts';
import type { ChatService } from '../chat/index.ts';

/** The settings as these commands read and change them. */
export interface AgentSettingsAccess {
  get(): { agent: AgentSettings };
  update(patch: { agent: Partial<AgentSettings> }): unknown;
}

export interface RunCommandDeps {
  registry: CommandRegistry;
  runtime: AgentRuntime;
  chat: ChatService;
  settings: AgentSettingsAccess;
  /** Which provider CLIs are installed and logged in (waits a few seconds for a detection to finish). */
  providers(): Promise<Record<ProviderId, CliStatus>>;
}

/** One line per provider: whether it can answer, and what to do when it cannot. */
function readinessLines(statuses: Record<ProviderId, CliStatus>): string[] {
  return PROVIDER_IDS.map((id) => {
    const status = statuses[id];
    return `  ${id.padEnd(9)} ${status.state === 'ready' ? status.readiness.summary : 'still checking…'}`;
  });
}

function parseProvider(name: string, usage: string): ProviderId {
  if (!isProviderId(name)) {
    throw badRequest('UNKNOWN_PROVIDER', `Unknown provider '${name}'. Providers: ${PROVIDER_IDS.join(', ')}. Usage: ${usage}`);
  }
  return name;
}

export function runCommands({ registry, runtime, chat, settings, providers }: RunCommandDeps): SlashCommand[] {
  return [
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
      async run(args) {
        const provider = args ? parseProvider(args, '/cli <provider>') : settings.get().agent.provider;
        if (args) settings.update({ agent: { provider, model: '' } });
        const status = (await providers())[provider];
        const readiness = status.state === 'ready' ? status.readiness.summary : 'svc is still checking whether it is installed.';
        return `${args ? `provider set to ${provider} (model reset to the CLI's default)` : `provider: ${provider}`}\n${readiness}`;
      },
    },
    {
      name: 'model',
      usage: '/model [name|default]',
      description: 'Show or choose the model of the active provider.',
      run(args) {
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
      run(args) {
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
      run() {
        const { stopped, cleared } = runtime.stop();
        return stopped || cleared ? `stopped${cleared ? `; ${cleared} queued message(s) dropped` : ''}` : 'nothing was running';
      },
    },
    {
      name: 'clear',
      usage: '/clear',
      description: 'Delete the messages of the current chat and start a fresh provider session.',
      run() {
        const { deleted } = chat.clearSession(chat.activeSession().id);
        return `cleared ${deleted} message(s)`;
      },
    },
    {
      name: 'reset',
      usage: '/reset',
      description: 'Keep the history but start a fresh provider session with the next message.',
      run() {
        runtime.resetProviderSession(chat.activeSession().id);
        return 'the next message starts a fresh provider session';
      },
    },
    {
      name: 'status',
      usage: '/status',
      description: 'Show the provider, model, fallback chain, what the agent is doing, and which provider CLIs are ready.',
      async run() {
        const a = settings.get().agent;
        const status = runtime.status();
        const session = chat.activeSession();
        return [
          `provider: ${a.provider}${a.model ? ` (model ${a.model})` : ''}${a.effort ? `, effort ${a.effort}` : ''}`,
          `fallback: ${a.fallback.join(' → ') || 'off'}`,
          `agent: ${status.active ? `running ${status.active.traceId} on ${status.active.provider}` : 'idle'}, ${status.total} queued`,
          `chat session: ${session.title} (${session.id})`,
          'providers:',
          ...readinessLines(await providers()),
        ].join('\n');
      },
    },
    {
      name: 'steer',
      usage: '/steer <text>',
      description: 'Redirect the running agent with new instructions.',
      run(args, ctx) {
        if (!args) throw usageError('steer', '/steer <text>');
        if (!runtime.status().busy) throw new AppError(409, 'NOT_RUNNING', 'Nothing is running to steer; send the text as a message instead.');
        runtime.steer(args, ctx.openStream());
        return { streamed: true };
      },
    },
  ];
}
