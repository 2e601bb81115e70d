// The `svc` command-line program.
import { Command, InvalidArgumentError } from 'commander';
import { VERSION } from '../version.ts';
import { defaultHome, ensureHome } from '../config/home.ts';
import { loadOrCreateToken } from '../config/token.ts';
import { serve } from './serve.ts';
import { status } from './status.ts';

export const DEFAULT_PORT = 3457;
export const DEFAULT_HOST = '127.0.0.1';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return port;
}

const envPort = () => (process.env.SVC_PORT ? parsePort(process.env.SVC_PORT) : DEFAULT_PORT);

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Local agent runtime: runs provider CLIs behind one HTTP/SSE service')
    .version(VERSION, '-v, --version')
    .showHelpAfterError();

  program
    .command('serve')
    .description('start the core server')
    .option('-p, --port <port>', `port to listen on (env SVC_PORT, default ${DEFAULT_PORT})`, parsePort)
    .option('-H, --host <host>', `address to listen on (default ${DEFAULT_HOST})`, DEFAULT_HOST)
    .option('--home <dir>', 'data directory (env SVC_HOME, default ~/.svc)')
    .action(async (opts: { port?: number; host: string; home?: string }) => {
      await serve({ port: opts.port ?? envPort(), host: opts.host, home: opts.home ?? defaultHome() });
    });

  program
    .command('token')
    .description('print the access token remote clients send as "Authorization: Bearer <token>"')
    .option('--home <dir>', 'data directory (env SVC_HOME, default ~/.svc)')
    .action((opts: { home?: string }) => {
      const home = ensureHome(opts.home ?? defaultHome());
      console.log(loadOrCreateToken(home.token));
    });

  program
    .command('status')
    .description('show the health of a running server')
    .option('--url <url>', 'server address (default http://127.0.0.1:$SVC_PORT or :3457)')
    .option('--json', 'print the raw JSON')
    .action(async (opts: { url?: string; json?: boolean }) => {
      process.exitCode = await status(opts.url ?? `http://127.0.0.1:${envPort()}`, Boolean(opts.json));
    });

  return program;
}

await buildProgram().parseAsync(process.argv);
