// Slash commands of the chat module: /sessions and /new.
import type { SlashCommand } from '../../agent/commands.ts';
import type { ChatService } from './chat.service.ts';

export function chatCommands(chat: ChatService): SlashCommand[] {
  return [
    {
      name: 'sessions',
      usage: '/sessions',
      description: 'List the chat sessions.',
      run: () => chat.sessions.list(50).map((s) => `${s.active ? '*' : ' '} ${s.id}  ${s.title}`).join('\n'),
    },
    {
      name: 'new',
      usage: '/new [title]',
      description: 'Start a new chat session and switch to it.',
      run(args) {
        const session = chat.createSession(args || undefined, true);
        return `switched to new session ${session.title} (${session.id})`;
      },
    },
  ];
}
