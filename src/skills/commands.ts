// Slash commands of the automation skills, registered with the built-in ones.
import type { AppContext } from '../app.ts';
import type { SlashCommand } from '../agent/commands.ts';
import { runWebRoutingCommand } from './web-routing/commands.ts';
import { runBrowserCommand } from '../browser/commands.ts';
import { visionClickCommand } from './vision-click/commands.ts';

export function skillCommands(ctx: AppContext): SlashCommand[] {
  return [
    {
      name: 'browser',
      usage: '/browser <open|screenshot|click|type|extract|eval|wait|snapshot|tabs|tab|console|network|fetch> ...',
      description: 'Drive the controlled browser (Chromium over CDP); the browser server starts on first use.',
      async run(args) {
        return (await runBrowserCommand(args, ctx.browser)).text;
      },
    },
    {
      name: 'web-routing',
      usage: '/web-routing <add|rewrite|block|mock|transform|list|remove|clear> ...',
      // registered before the proxy starts, so the port named here is the default
      description: 'Intercept HTTP requests with rules (the local proxy, by default on 127.0.0.1:3458, and the controlled browser).',
      async run(args) {
        const result = await runWebRoutingCommand(args, ctx.rules);
        return result.text;
      },
    },
    visionClickCommand({ service: ctx.visionClick }),
  ];
}

