// The `svc` command-line program. Each command loads its own modules when it runs, so `svc token`
// does not pay for the HTTP server and `svc serve` does not pay for the browser automation stack.
// Help never needs a server and never writes a file.
import { Command, InvalidArgumentError } from 'commander';
import { VERSION } from '../core/version.ts';
import { DEFAULT_PORT, resolveTarget, TargetError, type ServerTarget, type TargetOptions } from './target.ts';

export const DEFAULT_HOST = '127.0.0.1';
/** The web-routing proxy's default port (src/modules/automation/web-routing/proxy.ts says the same). */
const DEFAULT_PROXY_PORT = 3458;

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return port;
}

const envPort = () => (process.env.SVC_PORT?.trim() ? parsePort(process.env.SVC_PORT) : DEFAULT_PORT);

const EXAMPLES = `
Examples:
  svc serve                          start the service (http://127.0.0.1:3457, data in ~/.svc)
  svc status                         is it running? which provider CLIs are ready?
  svc chat "explain this repo"       send a message and print the answer as it streams
  svc chat -a shot.png "what is wrong here?"
  svc browser open https://example.com
  svc token                          the token a browser or script on another machine needs

Which server a command talks to: --url, else $SVC_URL, else the one running on --home (or
$SVC_HOME, or ~/.svc), else http://127.0.0.1:$SVC_PORT (3457). A remote server needs --token or
$SVC_TOKEN.`;

/** The options every client command takes to name its server (resolved by src/cli/target.ts). */
function serverOptions(command: Command): Command {
  return command
    .option('--url <url>', 'server address (or $SVC_URL)')
    .option('--home <dir>', 'the server running on this data directory (or $SVC_HOME)')
    .option('--token <token>', 'bearer token of a remote server (or $SVC_TOKEN)');
}

/** Runs a client command against its server; a bad address is a one-line error, exit 2. */
async function withTarget(options: TargetOptions, run: (target: ServerTarget) => Promise<number>): Promise<void> {
  let target: ServerTarget;
  try {
    target = resolveTarget(options);
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    console.error(`svc: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  process.exitCode = await run(target);
}

const isHelp = (arg: string | undefined) => arg === 'help' || arg === '--help' || arg === '-h';

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('Local agent runtime: runs provider CLIs behind one HTTP/SSE service')
    .version(VERSION, '-v, --version')
    .enablePositionalOptions()
    .showHelpAfterError()
    .addHelpText('after', EXAMPLES);

  program
    .command('serve')
    .description('start the core server (Ctrl-C stops it)')
    .option('-p, --port <port>', `port to listen on (or $SVC_PORT; default ${DEFAULT_PORT})`, parsePort)
    .option('-H, --host <host>', 'address to listen on', DEFAULT_HOST)
    .option('--home <dir>', 'data directory (or $SVC_HOME; default ~/.svc)')
    .option('--proxy-port <port>', 'web-routing proxy port on 127.0.0.1, 0 = off', parsePort, DEFAULT_PROXY_PORT)
    .action(async (opts: { port?: number; host: string; home?: string; proxyPort: number }) => {
      const [{ serve }, { defaultHome }] = await Promise.all([import('./serve.ts'), import('../core/home.ts')]);
      await serve({ port: opts.port ?? envPort(), host: opts.host, home: opts.home ?? defaultHome(), proxyPort: opts.proxyPort });
    });

  program
    .command('dashboard')
    .description('the manager dashboard: `svc dashboard serve` runs it (http://127.0.0.1:24576)')
    .command('serve')
    .description('start the manager dashboard (Ctrl-C stops it; instances it started keep running)')
    .option('-p, --port <port>', 'port on 127.0.0.1', parsePort, 24576)
    .option('--home <dir>', 'the manager\'s home (default ~/.svc-dashboard)')
    .option('--from <port>', 'first port of the scan for local instances', parsePort, 3457)
    .option('--count <n>', 'how many ports the scan covers (0 = no scan)', parseCount, 50)
    .action(async (opts: { port: number; home?: string; from: number; count: number }) => {
      const [{ serveDashboard }, { homedir }, { join }] = await Promise.all([import('./dashboard.ts'), import('node:os'), import('node:path')]);
      await serveDashboard({ port: opts.port, home: opts.home ?? process.env.SVC_DASHBOARD_HOME ?? join(homedir(), '.svc-dashboard'), from: opts.from, count: opts.count });
    });

  program
    .command('token')
    .description('print the access token remote clients send as "Authorization: Bearer <token>": the running server\'s, or that of --home')
    .option('--home <dir>', 'the token of this data directory (created if it has none)')
    .option('--url <url>', 'ask this server (on this machine) for its token')
    .action(async (opts: { home?: string; url?: string }) => {
      const { printToken } = await import('./token.ts');
      process.exitCode = await printToken(opts);
    });

  serverOptions(
    program
      .command('chat')
      .description('send a message to a running server and print the answer as it streams')
      .argument('[message...]', 'the message (default: read from stdin)')
      .option('--session <id>', 'chat session (default: the active one)')
      .option('-q, --quiet', 'print only the answer, not thinking and tool steps')
      .option('-a, --attach <file>', 'upload a file and attach it to the message (repeatable)', collect, []),
  ).action(async (words: string[], opts: TargetOptions & { session?: string; quiet?: boolean; attach: string[] }) => {
    const prompt = words.length ? words.join(' ') : await readStdin();
    if (!prompt.trim() && opts.attach.length === 0) {
      console.error('svc: nothing to send: give a message, pipe one in or attach a file');
      process.exitCode = 2;
      return;
    }
    const { chat } = await import('./chat.ts');
    await withTarget(opts, (target) => chat(prompt, { ...target, sessionId: opts.session, quiet: Boolean(opts.quiet), attach: opts.attach }));
  });

  serverOptions(
    program
      .command('upload')
      .description("upload files to a running server's media directory; prints each one's path on the server and its URL")
      .argument('<file...>', 'the files'),
  ).action(async (files: string[], opts: TargetOptions) => {
    const { uploadCommand } = await import('./upload.ts');
    await withTarget(opts, (target) => uploadCommand(files, target));
  });

  serverOptions(
    program
      .command('status')
      .description('show whether a server is running, and which provider CLIs are ready')
      .option('--json', 'print the raw JSON'),
  ).action(async (opts: TargetOptions & { json?: boolean }) => {
    const { status } = await import('./status.ts');
    await withTarget(opts, (target) => status(target, Boolean(opts.json)));
  });

  program
    .command('browser')
    .description('the browser skill: `svc browser serve` runs the browser server; `svc browser <action>` drives it; `svc browser status|stop`')
    .argument('[action]', 'serve, status, stop, help, or a browser action (open, click, type, extract, eval, wait, snapshot, screenshot, tabs, fetch)')
    .argument('[args...]', "the action's arguments")
    .passThroughOptions()
    .allowUnknownOption()
    .helpOption(false)
    .action(async (action: string | undefined, args: string[]) => {
      const { browserCommand } = await import('./browser.ts');
      process.exitCode = await browserCommand(action, args);
    });

  for (const name of ['web-routing', 'vision-click'] as const) {
    serverOptions(
      program
        .command(name)
        .description(`run /${name} on the running server (\`svc ${name} help\` lists its subcommands)`)
        .argument('[args...]')
        .passThroughOptions()
        .allowUnknownOption()
        .helpOption(false),
    ).action(async (args: string[], opts: TargetOptions) => {
      if (args.length === 0 || isHelp(args[0])) {
        const { skillHelp } = await import('./forward.ts');
        console.log(await skillHelp(name));
        return;
      }
      const { forwardCommand } = await import('./forward.ts');
      await withTarget(opts, (target) => forwardCommand(name, args, target));
    });
  }

serverOptions(
    program
      .command('web-ai')
      .description('ask a web chat assistant (ChatGPT, Gemini, Claude, Grok) in the controlled browser and take its code back (`svc web-ai help`)')
      .argument('[args...]', 'send, poll, query, code, code-extract, stop, status, sessions or profiles, and their arguments')
      .option('--json', 'print the answer as JSON')
      .passThroughOptions()
      .allowUnknownOption(),
  ).action(async (args: string[], opts: TargetOptions & { json?: boolean }) => {
    // --json may also follow the arguments (`svc web-ai sessions --json`), up to a `--`
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    const json = Boolean(opts.json) || args.slice(0, end).includes('--json');
    const rest = [...args.slice(0, end).filter((a) => a !== '--json'), ...args.slice(end)];
    const { webAiCommand } = await import('./web-ai.ts');
    await withTarget(opts, (target) => webAiCommand(rest, { ...target, json }));
  });

  // Internal: the OCR process of vision-click (started by the server, ended when idle).
  program.command('__ocr-process', { hidden: true }).action(async () => {
    const { loadOcrProcess } = await import('../modules/automation/vision-click/index.ts');
    await (await loadOcrProcess()).runOcrProcess();
  });

  const memory = program.command('memory').description('the memory of a running server: search, context, save, read, list, status, reindex');
  /** What every memory subcommand shares: the server options and --json. */
  const memoryClient = (name: string, description: string) =>
    serverOptions(memory.command(name).description(description)).option('--json', "print the server's JSON answer");
  const runMemory = async (call: import('./memory.ts').MemoryCall, opts: TargetOptions & { json?: boolean }) => {
    const { memoryCommand } = await import('./memory.ts');
    await withTarget(opts, (target) => memoryCommand(call, target, Boolean(opts.json)));
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

// Not a top-level await: the bundle is a script (scripts/build.mjs). A rejection still ends the
// process with its stack, as an unhandled one does.
void buildProgram().parseAsync(process.argv);
