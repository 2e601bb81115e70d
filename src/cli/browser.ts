// `svc browser serve` (the browser server) and `svc browser <action>` (a client of it, which starts it
// when nothing answers on its port). The agent's CLIs use these commands for the browser skill.
import { ApiError } from '../http/errors.ts';
import { ensureHome } from '../config/home.ts';
import { parseServeArgs, serveBrowser } from '../browser/serve-entry.ts';
import { runBrowserArgs } from '../browser/commands.ts';
import { browserClientFor } from '../browser/spawn.ts';

export async function browserCommand(action: string, args: string[], defaultHomeDir: string): Promise<number> {
  if (action === 'serve') {
    const options = parseServeArgs(args, { ...process.env, SVC_HOME: process.env.SVC_HOME ?? defaultHomeDir });
    ensureHome(options.home);
    try {
      const server = await serveBrowser(options);
      await server.closed;
      return 0;
    } catch (err) {
      console.error(`svc browser: ${(err as Error).message}`);
      return 1;
    }
  }
  const home = ensureHome(process.env.SVC_HOME ?? defaultHomeDir);
  try {
    const { text } = await runBrowserArgs([action, ...args], browserClientFor({ home: home.root }));
    console.log(text);
    return 0;
  } catch (err) {
    const message = err instanceof ApiError ? `${err.message} (${err.code})` : (err as Error).message;
    console.error(`svc browser ${action}: ${message}`);
    return 1;
  }
}
