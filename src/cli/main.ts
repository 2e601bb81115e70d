// The `svc` command-line program. Each command loads its own modules when it runs, so `svc token`
// does not pay for the HTTP server and `svc serve` does not pay for the browser automation stack.
import { Command, InvalidArgumentError } from 'commander';
import { VERSION } from '../core/version.ts';
import { defaultHome, ensureHome } from '../core/home.ts';
import { loadOrCreateToken } from '../core/token.ts';

export const DEFAULT_PORT = 3457;
export const DEFAULT_HOST = '127.0.0.1';
/** The web-routing proxy's default port (src/modules/automation/web-routing/proxy.ts says the same). */
const DEFAULT_PROXY_PORT = 3458;

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
    .enablePositionalOptions()
    .showHelpAfterError();

  program
    .command('serve')
    .description('start the core server')
    .option('-p, --port <port>', `port to listen on (env SVC_PORT, default ${DEFAULT_PORT})`, parsePort)
    .option('-H, --host <host>', `address to listen on (default ${DEFAULT_HOST})`, DEFAULT_HOST)
    .option('--home <dir>', 'data directory (env SVC_HOME, default ~/.svc)')
    .option('--proxy-port <port>', `web-routing proxy port on 127.0.0.1, 0 = off (default ${DEFAULT_PROXY_PORT})`, parsePort, DEFAULT_PROXY_PORT)
    .action(async (opts: { port?: number; host: string; home?: string; proxyPort: number }) => {
      const { serve } = await import('./serve.ts');
      await serve({ port: opts.port ?? envPort(), host: opts.host, home: opts.home ?? defaultHome(), proxyPort: opts.proxyPort });
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
    .command('chat')
    .description('send a message to a running server and print the answer as it streams')
    .argument('[message...]', 'the message (default: read from stdin)')
    .option('--url <url>', 'server address (default http://127.0.0.1:$SVC_PORT or :3457)')
    .option('--session <id>', 'chat session (default: the active one)')
    .option('--token <token>', 'bearer token for a remote server (env SVC_TOKEN)')
    .option('-q, --quiet', 'print only the answer, not thinking and tool steps')
    .option('-a, --attach <file>', 'upload a file and attach it to the message (repeatable)', collect, [])
    .action(async (words: string[], opts: { url?: string; session?: string; token?: string; quiet?: boolean; attach: string[] }) => {
      const prompt = words.length ? words.join(' ') : await readStdin();
      if (!prompt.trim() && opts.attach.length === 0) {
        console.error('svc: nothing to send: give a message, pipe one in or attach a file');
        process.exitCode = 2;
        return;
      }
      const { chat } = await import('./chat.ts');
      process.exitCode = await chat(prompt, {
        url: opts.url ?? `http://127.0.0.1:${envPort()}`,
        token: opts.token ?? process.env.SVC_TOKEN,
        sessionId: opts.session,
        quiet: Boolean(opts.quiet),
        attach: opts.attach,
      });
    });

  program
    .command('upload')
    .description('upload files to a running server\'s media directory; prints each one\'s path on the server and its URL')
    .argument('<file...>', 'the files')
    .option('--url <url>', 'server address (default http://127.0.0.1:$SVC_PORT or :3457)')
    .option('--token <token>', 'bearer token for a remote server (env SVC_TOKEN)')
    .action(async (files: string[], opts: { url?: string; token?: string }) => {
      const { uploadCommand } = await import('./upload.ts');
      process.exitCode = await uploadCommand(files, {
        url: opts.url ?? `http://127.0.0.1:${envPort()}`,
        token: opts.token ?? process.env.SVC_TOKEN,
      });
    });

  program
    .command('browser')
    .description('the browser skill: `svc browser serve` runs the browser server; `svc browser <action>` drives it (open, click, type, extract, eval, wait, snapshot, screenshot, tabs, fetch)')
    .argument('<action>', 'serve, or a browser action')
    .argument('[args...]', 'the action\'s arguments (see `svc browser help`)')
    .passThroughOptions()
    .allowUnknownOption()
    .helpOption(false)
    .action(async (action: string, args: string[]) => {
      const { browserCommand } = await import('./browser.ts');
      process.exitCode = await browserCommand(action, args, defaultHome());
    });

  for (const name of ['web-routing', 'vision-click']) {
    program
      .command(name)
      .description(`run /${name} on the running server (\`svc ${name} help\`)`)
      .argument('[args...]')
      .option('--url <url>', 'server address (env SVC_URL, default http://127.0.0.1:3457)')
      .passThroughOptions()
      .allowUnknownOption()
      .action(async (args: string[], opts: { url?: string }) => {
        const url = opts.url ?? process.env.SVC_URL ?? `http://127.0.0.1:${envPort()}`;
        const { forwardCommand } = await import('./forward.ts');
        process.exitCode = await forwardCommand(name, args, url, process.env.SVC_TOKEN);
      });
  }

  const memory = program.command('memory').description('the memory of a running server: search, context, save, read, list, status, reindex');
  /** What every memory subcommand shares: the server, the token, --json. */
  const memoryClient = (name: string, description: string) =>
    memory
      .command(name)
      .description(description)
      .option('--url <url>', 'server address (env SVC_URL, default http://127.0.0.1:3457)')
      .option('--token <token>', 'bearer token for a remote server (env SVC_TOKEN)')
      .option('--json', 'print the server\'s JSON answer');
  const runMemory = async (call: import('./memory.ts').MemoryCall, opts: { url?: string; token?: string; json?: boolean }) => {
    const { memoryCommand } = await import('./memory.ts');
    process.exitCode = await memoryCommand(call, {
      url: opts.url ?? process.env.SVC_URL ?? `http://127.0.0.1:${envPort()}`,
      token: opts.token ?? process.env.SVC_TOKEN,
      json: Boolean(opts.json),
    });
  };
  memoryClient('search', 'search memory (words, inside words, and meaning when embeddings are set up)')
    .argument('<words...>')
    .option('-k, --kind <kind>', 'only profile, note, episode or procedure')
    .option('-n, --limit <n>', 'at most this many hits (default 10)', parseCount)
    .action((words: string[], opts) => runMemory({ kind: 'search', query: words.join(' '), limit: opts.limit, type: opts.kind }, opts));
  memoryClient('context', 'print the memory block the agent would get for a prompt')
    .argument('[words...]')
    .option('-b, --budget <chars>', 'at most this many characters (default: the setting memory.contextBudget)', parseCount)
    .action((words: string[], opts) => runMemory({ kind: 'context', query: words.join(' '), budget: opts.budget }, opts));
  memoryClient('save', 'save text to a memory file (the text from the arguments, or from stdin)')
    .argument('<path>', 'relative to the memory directory, ending in .md (e.g. notes/decisions.md)')
    .argument('[text...]')
    .option('-m, --mode <mode>', 'append (default), replace (the whole file), or section (replace the section with the same heading)', 'append')
    .action(async (path: string, words: string[], opts) => {
      const content = words.length ? words.join(' ') : await readStdin();
      await runMemory({ kind: 'save', path, content, mode: opts.mode }, opts);
    });
  memoryClient('read', 'print a memory file, or some of its lines')
    .argument('<path>')
    .option('-l, --lines <range>', 'e.g. 10-40, 10 or 10-')
    .action((path: string, opts) => runMemory({ kind: 'read', path, lines: opts.lines }, opts));
  memoryClient('list', 'list the memory files')
    .option('-k, --kind <kind>', 'only profile, note, episode or procedure')
    .action((opts) => runMemory({ kind: 'list', type: opts.kind }, opts));
  memoryClient('status', 'files, sections, index state, embeddings, summaries, last error').action((opts) => runMemory({ kind: 'status' }, opts));
  memoryClient('reindex', 're-read every memory file (joins a reindex that is already running)').action((opts) => runMemory({ kind: 'reindex' }, opts));

  program
    .command('status')
    .description('show the health of a running server')
    .option('--url <url>', 'server address (default http://127.0.0.1:$SVC_PORT or :3457)')
    .option('--json', 'print the raw JSON')
    .action(async (opts: { url?: string; json?: boolean }) => {
      const { status } = await import('./status.ts');
      process.exitCode = await status(opts.url ?? `http://127.0.0.1:${envPort()}`, Boolean(opts.json));
    });

  return program;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
}

/** Commander option parser for a repeatable option. */
const collect = (value: string, previous: string[]) => [...previous, value];

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

await buildProgram().parseAsync(process.argv);
