// `svc browser serve` (the browser server) and `svc browser <action>` (a client of it, which starts it
// when nothing answers on its port). The agent's CLIs use these commands for the browser skill.
import { AppError } from '../core/errors.ts';
import { ensureHome } from '../core/home.ts';
import { browserClientFor, runBrowserArgs } from '../modules/automation/browser/index.ts';

export async function browserCommand(action: string, args: string[], defaultHomeDir: string): Promise<number> {
  if (action === 'serve') {
    const { parseServeArgs, serveBrowser } = await import('../servers/browser.ts');
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
    const message = err instanceof AppError ? `${err.message} (${err.code})` : (err as Error).message;
    console.error(`svc browser ${action}: ${message}`);
    return 1;
  }
}
