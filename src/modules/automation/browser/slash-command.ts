// `/browser …` in the chat. Its parser and renderer (commands.ts, with the actions' zod schemas) load
// on its first use: the core server registers the command at start without building them.
import { lazyCommand, type SlashCommand } from '../../../agent/commands.ts';
import type { BrowserActor } from './commands.ts';

/** `/browser …`: the browser skill as a slash command (the browser server starts on first use). */
export function browserCommand(client: BrowserActor): SlashCommand {
  return lazyCommand(
    {
      name: 'browser',
      usage: '/browser <open|screenshot|click|type|extract|eval|wait|snapshot|tabs|tab|console|network|fetch> ...',
      description: 'Drive the controlled browser (Chromium over CDP); the browser server starts on first use.',
    },
    async () => {
      const { runBrowserCommand } = await import('./commands.ts');
      return async (args) => (await runBrowserCommand(args, client)).text;
    },
  );
}
