// `/web-ai …` in the chat. Its parser and renderer (commands.ts, with the bodies' zod schemas) load on its
// first use: the core server registers the command at start without building them.
import { lazyCommand, type SlashCommand } from '../../../agent/commands.ts';
import type { WebAiApi } from './types.ts';

/** `/web-ai …`: the web-ai skill as a slash command. */
export function webAiCommand(api: WebAiApi): SlashCommand {
  return lazyCommand(
    {
      name: 'web-ai',
      usage: '/web-ai <send|poll|query|code|code-extract|stop|status|sessions|profiles> …',
      description: 'Ask a web chat assistant (ChatGPT, Gemini, Claude, Grok) in the controlled browser and take its code back.',
    },
    async () => {
      const { parseWebAiCommand, runWebAiCall } = await import('./commands.ts');
      return async (args) => (await runWebAiCall(parseWebAiCommand(args), api)).text;
    },
  );
}
