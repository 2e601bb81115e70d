// `svc browser serve` (the browser server), `svc browser status|stop`, and `svc browser <action>`
// (a client of the browser server, which starts it when nothing answers on its port). The agent's
// CLIs use these commands for the browser skill. Help needs no server and writes nothing.
import { AppError } from '../core/errors.ts';
import { defaultHome, ensureHome, homePaths } from '../core/home.ts';
import { browserClientFor, createBrowserClient, DEFAULT_BROWSER_PORT, loadBrowserCommands } from '../modules/automation/browser/index.ts';

const SERVE_HELP = `Usage: svc browser serve [--port 3459] [--home DIR] [--cdp-url URL] [--headed] [--browser-path PATH]
Runs the browser server on 127.0.0.1: one Chromium (launched on first use, or attached with --cdp-url)
that \`svc browser <action>\` and the core server's /api/browser routes drive.
  --port N           port on 127.0.0.1 (default ${DEFAULT_BROWSER_PORT}, or $SVC_BROWSER_PORT)
  --home DIR         data directory (browser profile, screenshots; default $SVC_HOME or ~/.svc)
  --cdp-url URL      attach to a browser you started (chromium --remote-debugging-port=9222)
  --headed           show the browser window (default headless)
  --browser-path P   the Chromium/Chrome executable`;

const help = (browserHelp: string) => `${browserHelp.replace(/^Browser commands:/, 'Usage: svc browser <action> [args]').replace(/\/browser /g, 'svc browser ')}
  status                               is a browser server running, and its browser?
  stop                                 stop the browser server (and the browser it launched)
  serve [options]                      run the browser server in the foreground (svc browser serve --help)
The browser server starts on first use and keeps its tabs between commands.`;

const isHelp = (arg: string | undefined) => arg === undefined || arg === 'help' || arg === '--help' || arg === '-h';
const port = () => Number(process.env.SVC_BROWSER_PORT) || DEFAULT_BROWSER_PORT;

export async function browserCommand(action: string | undefined, args: string[]): Promise<number> {
  const { BROWSER_HELP, runBrowserArgs } = await loadBrowserCommands();
  if (isHelp(action)) {
    console.log(help(BROWSER_HELP));
    return 0;
  }
  if (action === 'serve') return serveCommand(args);
  if (action === 'status' || action === 'stop') return action === 'status' ? statusCommand() : stopCommand();
  // a client makes no home: the browser server creates it (`browser serve` below) when one must be started
  const home = homePaths(defaultHome());
  const client = browserClientFor({ home: home.root });
  try {
    const { text } = await runBrowserArgs([action!, ...args], client);
    console.log(text);
    return 0;
  } catch (err) {
    const message = err instanceof AppError ? `${err.message} (${err.code})` : (err as Error).message;
    console.error(`svc browser ${action}: ${message}`);
    return 1;
  } finally {
    // Started from a terminal (not by the core server, with which it would exit): say that it stays.
    if (client.spawnedServer && !process.env.SVC_SERVER_PID) {
      console.error(`svc: the browser server now runs on 127.0.0.1:${client.port} (log: ${home.root}/browser-server.log) and keeps its tabs for the next command; stop it with \`svc browser stop\`.`);
    }
    client.close();
  }
}

async function serveCommand(args: string[]): Promise<number> {
  if (args.some((a) => isHelp(a))) {
    console.log(SERVE_HELP);
    return 0;
  }
  const { parseServeArgs, serveBrowser } = await import('../servers/browser.ts');
  try {
    const options = parseServeArgs(args, { ...process.env, SVC_HOME: process.env.SVC_HOME ?? defaultHome() });
    ensureHome(options.home);
    const server = await serveBrowser(options);
    await server.closed;
    return 0;
  } catch (err) {
    console.error(`svc browser serve: ${(err as Error).message}`);
    return 1;
  }
}

async function statusCommand(): Promise<number> {
  const client = createBrowserClient({ port: port() });
  try {
    const s = await client.status();
    if (!s.server) {
      console.log(`no browser server on 127.0.0.1:${client.port} (it starts with the first \`svc browser <action>\`)`);
      return 0;
    }
    const browser = s.running ? `its browser runs (${s.mode}${s.headless ? ', headless' : ''}${s.pid ? `, pid ${s.pid}` : ''}), ${s.tabs} tab${s.tabs === 1 ? '' : 's'}` : 'no browser is open yet';
    console.log(`browser server on 127.0.0.1:${client.port}: ${browser}`);
    return 0;
  } catch (err) {
    console.error(`svc browser status: ${(err as Error).message}`);
    return 1;
  } finally {
    client.close();
  }
}

async function stopCommand(): Promise<number> {
  const client = createBrowserClient({ port: port() });
  try {
    if (!(await client.status()).server) {
      console.log(`no browser server runs on 127.0.0.1:${client.port}`);
      return 0;
    }
    await client.shutdown();
    console.log(`stopped the browser server on 127.0.0.1:${client.port}`);
    return 0;
  } finally {
    client.close();
  }
}
