// The `svc` command-line program. Each command loads its own modules when it runs, so `svc token`
// does not pay for the HTTP server and `svc serve` does not pay for the browser automation stack.
// Help never needs a server and never writes a file.
import { Command, InvalidArgumentError, Option } from 'commander';
import { VERSION } from '../core/version.ts';
import { DEFAULT_DASHBOARD_PORT, DEFAULT_PORT } from './defaults.ts';
import type { ServerTarget, TargetOptions } from './target.ts';
import type { TlsFileOptions } from './tls-files.ts';

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
  // loaded here, not at start: `svc --help` does not need the lock file and TLS code it brings
  const { resolveTarget, TargetError } = await import('./target.ts');
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

/**
 * The top-level commands, in the order help lists them, each with the function that adds it (and its
 * subcommands) to the program. Building all of them (some 60 commands and 200 options) took 5-7 ms
 * of the 70 that `svc status` takes, so a run adds only the command it names; help, and a mistyped
 * name (commander suggests the nearest), get them all.
 */
const COMMANDS: ReadonlyArray<readonly [name: string, add: (program: Command) => void]> = [
  ['serve', serveCommand],
  ['dashboard', dashboardCommand],
  ['service', serviceCommand],
  ['fleet', fleetCommand],
  ['token', tokenCommand],
  ['chat', chatCommand],
  ['upload', uploadCommand],
  ['status', statusCommand],
  ['doctor', doctorCommand],
  ['browser', browserCommand],
  ['web-routing', (program) => skillCommand(program, 'web-routing')],
  ['vision-click', (program) => skillCommand(program, 'vision-click')],
  ['web-ai', webAiCommand],
  ['__ocr-process', ocrProcessCommand],
  ['channel', channelCommands],
  ['audit', auditCommands],
  ['memory', memoryCommands],
  ['orchestrate', orchestrateCommand],
  ['dispatch', dispatchCommand],
  ['worker', workerCommand],
  ['goal', goalCommands],
  ['task', taskCommands],
  ['wakeup', wakeupCommand],
];

/** The program for these arguments (the words after `svc`): with only the command they name, when they name one. */
export function buildProgram(args: readonly string[] = []): Command {
  const program = new Command('svc')
    .description('Local agent runtime: runs provider CLIs behind one HTTP/SSE service')
    .version(VERSION, '-v, --version')
    .enablePositionalOptions()
    .showHelpAfterError()
    .addHelpText('after', EXAMPLES);
  const named = COMMANDS.filter(([name]) => name === args[0]);
  for (const [, add] of named.length ? named : COMMANDS) add(program);
  helpCommands(program);
  return program;
}

/** `svc serve`: the core server. */
/**
 * `--service <manager>`: what SVC_SERVICE says, for a manager that sets no variables (the Task Scheduler
 * task `svc service install` writes passes it). Not in the help: a person does not type it.
 */
const serviceOption = () => new Option('--service <manager>').hideHelp();
const asService = (manager: string | undefined) => {
  if (manager) process.env.SVC_SERVICE = manager;
};

function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('start the core server (Ctrl-C stops it)')
    .option('-p, --port <port>', `port to listen on (or $SVC_PORT; default ${DEFAULT_PORT})`, parsePort)
    .option('-H, --host <host>', 'address to listen on', DEFAULT_HOST)
    .option('--home <dir>', 'data directory (or $SVC_HOME; default ~/.svc)')
    .option('--proxy-port <port>', 'web-routing proxy port on 127.0.0.1, 0 = off', parsePort, DEFAULT_PROXY_PORT)
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate, e.g. from mkcert or `tailscale cert` (or $SVC_TLS_CERT)')
    .option('--tls-key <file>', "the certificate's private key, PEM (or $SVC_TLS_KEY)")
    .addOption(serviceOption())
    .action(async (opts: { port?: number; host: string; home?: string; proxyPort: number; service?: string } & TlsFileOptions) => {
      asService(opts.service);
      const [{ serve }, { defaultHome }] = await Promise.all([import('./serve.ts'), import('../core/home.ts')]);
      await serve({ port: opts.port ?? envPort(), host: opts.host, home: opts.home ?? defaultHome(), proxyPort: opts.proxyPort, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey });
    });
}

/** `svc dashboard serve`: the manager dashboard. */
function dashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description(`the manager dashboard: \`svc dashboard serve\` runs it (http://127.0.0.1:${DEFAULT_DASHBOARD_PORT})`)
    .command('serve')
    .description('start the manager dashboard (Ctrl-C stops it; instances it started keep running)')
    .option('-p, --port <port>', 'port on 127.0.0.1', parsePort, DEFAULT_DASHBOARD_PORT)
    .option('--home <dir>', 'the manager\'s home (default ~/.svc-dashboard)')
    .option('--from <port>', 'first port of the scan for local instances, for this run (default: the manager\'s setting, 3457)', parsePort)
    .option('--count <n>', 'how many ports the scan covers, for this run (0 = no scan; default: the setting, 50)', parseCount)
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate; the instances it starts serve HTTPS with it too (or $SVC_TLS_CERT)')
    .option('--tls-key <file>', "the certificate's private key, PEM (or $SVC_TLS_KEY)")
    .option('--fleet', 'run the fleet: other machines join this dashboard over NATS (supervises nats-server; docs/fleet.md)')
    .option('--nats-port <port>', "the fleet's NATS port", parsePort, 4222)
    .option('--nats-host <host>', "the fleet's NATS address (default: every interface with --tls-cert, 127.0.0.1 without)")
    .option('--nats-url <url>', 'use a NATS an operator runs instead of starting nats-server (with --nats-creds; docs/fleet.md)')
    .option('--nats-creds <file>', "the credentials file of the hub's user on that NATS")
    .addOption(serviceOption())
    .action(async (opts: { port: number; home?: string; from?: number; count?: number; service?: string; fleet?: boolean; natsPort: number; natsHost?: string; natsUrl?: string; natsCreds?: string } & TlsFileOptions) => {
      asService(opts.service);
      const [{ serveDashboard }, { homedir }, { join }] = await Promise.all([import('./dashboard.ts'), import('node:os'), import('node:path')]);
      await serveDashboard({
        port: opts.port,
        home: opts.home ?? process.env.SVC_DASHBOARD_HOME ?? join(homedir(), '.svc-dashboard'),
        from: opts.from,
        count: opts.count,
        tlsCert: opts.tlsCert,
        tlsKey: opts.tlsKey,
        ...(opts.fleet || opts.natsUrl ? { fleet: { port: opts.natsPort, ...(opts.natsHost ? { host: opts.natsHost } : {}), url: opts.natsUrl, credsFile: opts.natsCreds } } : {}),
      });
    });
}

/** `svc fleet …`: this machine in a fleet (join), or the hub's invites (invite). */
function fleetCommand(program: Command): void {
  const fleet = program.command('fleet').description('several machines under one dashboard over NATS: join one, or make an invite on the hub (docs/fleet.md)');
  fleet
    .command('join <url>')
    .description("join this machine to the fleet of the hub at <url> (nats://host:4222): svc serve then connects out to it")
    .requiredOption('--code <code>', 'the invite code the dashboard showed (svc fleet invite, or the Fleet panel)')
    .option('--name <name>', "this machine's name on the dashboard (default: its host name)")
    .option('--home <dir>', 'the data directory of the svc serve that joins (or $SVC_HOME; default ~/.svc)')
    .option('--fingerprint <sha256>', "the hub's certificate (the invite names it when the hub serves TLS): any other is refused")
    .option('--creds <file>', "a fleet on a NATS an operator runs: the credentials file of the user the operator made for this machine (svc fleet permissions says what it may do)")
    .action(async (url: string, opts: { code: string; name?: string; home?: string; fingerprint?: string; creds?: string }) => {
      const [{ fleetJoin }, { defaultHome }] = await Promise.all([import('./fleet.ts'), import('../core/home.ts')]);
      process.exitCode = await fleetJoin({ url, code: opts.code, ...(opts.name ? { name: opts.name } : {}), ...(opts.fingerprint ? { fingerprint: opts.fingerprint } : {}), ...(opts.creds ? { credsFile: opts.creds } : {}), home: opts.home ?? defaultHome() });
    });
  fleet
    .command('permissions <key-or-creds>')
    .description("for a NATS operator: the machine id and the permissions of a machine's user, from its public key (U…) or its .creds file")
    .option('--json', 'print them as JSON (the subjects of a user JWT: pub, sub, resp)')
    .action(async (keyOrCreds: string, opts: { json?: boolean }) => {
      const { fleetPermissions } = await import('./fleet.ts');
      process.exitCode = await fleetPermissions(keyOrCreds, { json: Boolean(opts.json) });
    });
  fleet
    .command('invite')
    .description('make a single-use invite code on the dashboard (10 minutes) and print the command to join with it')
    .option('--url <url>', `the dashboard (default: the one running on --home, else http://127.0.0.1:${DEFAULT_DASHBOARD_PORT})`)
    .option('--home <dir>', "the dashboard's home (default ~/.svc-dashboard)")
    .option('--token <token>', "the dashboard's token, when it is not on this machine")
    .action(async (opts: { url?: string; home?: string; token?: string }) => {
      const { fleetInvite } = await import('./fleet.ts');
      process.exitCode = await fleetInvite(opts);
    });
}

/** `svc service …`: svc (or, with --dashboard, the manager dashboard) as a service of this machine. */
function serviceCommand(program: Command): void {
  const service = program
    .command('service')
    .description('run svc (or the dashboard) as a service of this machine: install, uninstall, start, stop, restart, status, logs');
  type ServiceOpts = import('./service.ts').ServiceOptions;
  const run = async (command: import('./service.ts').ServiceCommand, opts: ServiceOpts) => {
    const { runService } = await import('./service.ts');
    process.exitCode = await runService(command, opts, envPort());
  };
  const dashboard = (command: Command) => command.option('--dashboard', 'the manager dashboard (svc dashboard serve) instead of svc serve');
  dashboard(service.command('install').description('install and start the service (systemd user unit, launchd agent or scheduled task)'))
    .option('-p, --port <port>', `its port (default: $SVC_PORT or ${DEFAULT_PORT}; with --dashboard ${DEFAULT_DASHBOARD_PORT})`, parsePort)
    .option('--home <dir>', 'its data directory (default: $SVC_HOME or ~/.svc; with --dashboard ~/.svc-dashboard)')
    .option('--print', 'print the file and the commands, change nothing')
    .option('--force', 'replace a unit file that was changed since svc wrote it')
    .option('--system', 'systemd: a system unit (/etc/systemd/system) that runs as you; needs root')
    .action((opts: ServiceOpts) => run('install', opts));
  dashboard(service.command('uninstall').description('stop the service and remove its file (its data and service.env are kept)'))
    .option('--system', 'the system unit')
    .action((opts: ServiceOpts) => run('uninstall', opts));
  for (const [name, description] of [
    ['start', 'start the installed service'],
    ['stop', 'stop it (it starts again at the next login or boot)'],
    ['restart', 'restart it (e.g. after a change of service.env)'],
  ] as const) {
    dashboard(service.command(name).description(description))
      .option('--system', 'the system unit')
      .action((opts: ServiceOpts) => run(name, opts));
  }
  dashboard(service.command('status').description('installed? running? its pid, restarts and file (exit 1 when it does not run)'))
    .option('--system', 'the system unit')
    .option('--json', 'print JSON')
    .action((opts: ServiceOpts) => run('status', opts));
  dashboard(service.command('logs').description("the service's log (<home>/logs/svc.log and its rotated files)"))
    .option('-f, --follow', 'keep printing what is added (Ctrl-C stops)')
    .option('-n, --lines <n>', 'the last n lines (default 50)', parseCount)
    .action((opts: ServiceOpts) => run('logs', opts));
}

function tokenCommand(program: Command): void {
  program
    .command('token')
    .description('print the access token remote clients send as "Authorization: Bearer <token>": the running server\'s, or that of --home')
    .option('--home <dir>', 'the token of the server on this data directory (its token file when none runs; never created)')
    .option('--url <url>', 'ask this server (on this machine) for its token')
    .action(async (opts: { home?: string; url?: string }) => {
      const { printToken } = await import('./token.ts');
      process.exitCode = await printToken(opts);
    });
}

function chatCommand(program: Command): void {
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
}

function uploadCommand(program: Command): void {
  serverOptions(
    program
      .command('upload')
      .description("upload files to a running server's media directory; prints each one's path on the server and its URL")
      .argument('<file...>', 'the files'),
  ).action(async (files: string[], opts: TargetOptions) => {
    const { uploadCommand } = await import('./upload.ts');
    await withTarget(opts, (target) => uploadCommand(files, target));
  });
}

function statusCommand(program: Command): void {
  serverOptions(
    program
      .command('status')
      .description('show whether a server is running, and which provider CLIs are ready')
      .option('--json', 'print the raw JSON'),
  ).action(async (opts: TargetOptions & { json?: boolean }) => {
    const { status } = await import('./status.ts');
    await withTarget(opts, (target) => status(target, Boolean(opts.json)));
  });
}

/** `svc doctor`: one line per check of what svc needs (server, service, provider CLIs, disk, TLS, push). */
function doctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check what svc needs (server, service, provider CLIs as the service runs them, disk, TLS, push) and say how to fix what is off (exit 1 on a failure)')
    .option('--home <dir>', 'the data directory to check (or $SVC_HOME; default ~/.svc)')
    .option('--url <url>', 'the server to ask (default: the one running on the home, as for svc status)')
    .option('--json', 'print { checks: [{ id, status, summary, fix? }], ok }')
    .action(async (opts: { home?: string; url?: string; json?: boolean }) => {
      const { doctor } = await import('./doctor.ts');
      process.exitCode = await doctor(opts);
    });
}

function browserCommand(program: Command): void {
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
}

/** `svc web-routing …` and `svc vision-click …`: the skill's slash command, run on the server. */
function skillCommand(program: Command, name: 'web-routing' | 'vision-click'): void {
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

function webAiCommand(program: Command): void {
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
}

function ocrProcessCommand(program: Command): void {
  // Internal: the OCR process of vision-click (started by the server, ended when idle).
  program.command('__ocr-process', { hidden: true }).action(async () => {
    const { loadOcrProcess } = await import('../modules/automation/vision-click/index.ts');
    await (await loadOcrProcess()).runOcrProcess();
  });
}

function channelCommands(program: Command): void {
  const channel = program.command('channel').description('the chat channels of a running server: list, send, pair');
  const runChannel = async (call: import('./channel.ts').ChannelCall, opts: TargetOptions & { json?: boolean }) => {
    const { channelCommand } = await import('./channel.ts');
    await withTarget(opts, (target) => channelCommand(call, target, Boolean(opts.json)));
  };
  serverOptions(channel.command('list').description('each channel: connected, bot, allowlist size, counts'))
    .option('--json', "print the server's JSON answer")
    .action((opts: TargetOptions & { json?: boolean }) => runChannel({ kind: 'list' }, opts));
  serverOptions(channel.command('send').description('send text or a file to a chat on the allowlist').argument('[text...]', 'the text (Markdown)'))
    .option('-c, --channel <name>', 'telegram, discord or active (default: the channel written to last)', 'active')
    .option('--type <type>', 'text, photo, document or voice', 'text')
    .option('-f, --file <path>', 'the file to send (in the media or working directory)')
    .option('--caption <text>', "the file's caption")
    .option('-t, --target <chat>', 'a chat id on the allowlist (default: the last chat that wrote)')
    .option('--json', "print the server's JSON answer")
    .action((words: string[], opts: TargetOptions & { json?: boolean; channel: string; type: string; file?: string; caption?: string; target?: string }) => {
      const text = words.join(' ');
      const body = { channel: opts.channel, type: opts.type, ...(text ? { text } : {}), file: opts.file, caption: opts.caption, target: opts.target };
      return runChannel({ kind: 'send', body: body as import('../protocol/channels.ts').ChannelSendBody }, opts);
    });
  serverOptions(channel.command('pair').description('a one-time code to send to the bot from the chat to allow').argument('<channel>', 'telegram or discord'))
    .option('--json', "print the server's JSON answer")
    .action((name: string, opts: TargetOptions & { json?: boolean }) => runChannel({ kind: 'pair', channel: name }, opts));
}

function auditCommands(program: Command): void {
  const audit = program.command('audit').description('the security audit log of a running server: tail, verify');
  const runAudit = async (call: import('./audit.ts').AuditCall, opts: TargetOptions & { json?: boolean }) => {
    const { auditCommand } = await import('./audit.ts');
    await withTarget(opts, (target) => auditCommand(call, target, Boolean(opts.json)));
  };
  serverOptions(audit.command('tail').description('the newest entries'))
    .option('-n, --limit <n>', 'at most this many entries (default 100)', parseCount)
    .option('--action <name>', 'only this action, or a dotted prefix of it (e.g. channel)')
    .option('--outcome <outcome>', 'only ok, refused or failed')
    .option('--json', "print the server's JSON answer")
    .action((opts: TargetOptions & { json?: boolean; limit?: number; action?: string; outcome?: string }) =>
      runAudit({ kind: 'tail', limit: opts.limit, action: opts.action, outcome: opts.outcome }, opts));
  serverOptions(audit.command('verify').description('recompute the hash chain; exit 1 and name the first bad entry when it is broken'))
    .option('--json', "print the server's JSON answer")
    .action((opts: TargetOptions & { json?: boolean }) => runAudit({ kind: 'verify' }, opts));
}

function memoryCommands(program: Command): void {
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
}

const runOrc = async (call: (m: typeof import('./orchestrate.ts')) => import('./orchestrate.ts').OrcCall | string, opts: TargetOptions & { json?: boolean }) => {
  const orc = await import('./orchestrate.ts');
  await withTarget(opts, (target) => orc.orcCommand(call(orc), target, Boolean(opts.json)));
};

function orchestrateCommand(program: Command): void {
  serverOptions(
    program
      .command('orchestrate')
      .description('the orchestration of a chat session: status, a phase (I P A B C D IDLE), plan, check, reset')
      .argument('<action>', 'status | I | P | A | B | C | D | IDLE | plan | check | reset'),
  )
    .option('--session <id>', 'the chat session (default: the active one; for the agent, its own)')
    .option('--approve', 'approve the gate of this move (humans only)')
    .option('--reason <text>', 'why (kept in the history)')
    .option('-f, --file <plan.md>', 'plan: the plan file (else stdin)')
    .option('--json', "print the server's JSON answer")
    .action(async (action: string, opts) => {
      const text = action === 'plan' && !opts.file ? await readStdin() : undefined;
      await runOrc((orc) => orc.orchestrateCall(action, { ...opts, text }), opts);
    });
}

function dispatchCommand(program: Command): void {
  serverOptions(
    program
      .command('dispatch')
      .description('give a task to a worker: an employee by id (svc worker employees) or a one-off --virtual one')
      .argument('<task...>'),
  )
    .option('-e, --employee <id>', 'the employee id')
    .option('--virtual <json>', 'a one-off worker: {"name","role","provider","model","instructions","capability"}')
    .option('--phase <phase>', 'the phase it works for (A: its verdict is the audit)')
    .option('--affects <path>', 'a file it will change (repeatable)', collect, [])
    .option('--wait', 'wait until the run ends and print its result')
    .option('--session <id>', 'the chat session its result goes to')
    .option('--json', "print the server's JSON answer")
    .action(async (words: string[], opts) => {
      const orc = await import('./orchestrate.ts');
      let virtual: unknown;
      try {
        virtual = opts.virtual ? JSON.parse(opts.virtual) : undefined;
      } catch {
        console.error('svc: --virtual must be JSON');
        process.exitCode = 2;
        return;
      }
      const body = {
        task: words.join(' '),
        ...(opts.employee ? { employee: opts.employee } : {}),
        ...(virtual ? { virtual } : {}),
        ...(opts.phase ? { phase: String(opts.phase).toUpperCase() } : {}),
        ...(opts.affects.length ? { affectedFiles: opts.affects } : {}),
        ...(opts.wait ? { wait: true } : {}),
        ...(opts.session ? { sessionId: opts.session } : {}),
      };
      await withTarget(opts, (target) => orc.orcCommand({ label: 'dispatch', method: 'POST', path: '/api/orchestrate/dispatch', body }, target, Boolean(opts.json)));
    });
}

function workerCommand(program: Command): void {
  serverOptions(
    program
      .command('worker')
      .description('worker runs: list, show, output, cancel; and the employees')
      .argument('<action>', 'list | show | output | cancel | employees')
      .argument('[runId]'),
  )
    .option('--session <id>', 'list: only this chat session')
    .option('--status <status>', 'list: only runs in this status')
    .option('--offset <n>', 'output: from this character', parseCount)
    .option('-n, --limit <n>', 'list: at most this many runs; output: this many characters', parseCount)
    .option('--reason <text>', 'cancel: why')
    .option('--json', "print the server's JSON answer")
    .action((action: string, runId: string | undefined, opts) => runOrc((orc) => orc.workerCall(action, runId, opts), opts));
}


/**
 * `svc help [command…]` (and `svc goal help [subcommand]` in each command group): the same help as
 * `svc <command…> --help`, exit 0. Commander's own help command reads one word only and takes
 * `svc help --help` for an unknown command (exit 1), so each group gets this one instead.
 */
function helpCommands(group: Command): void {
  const groups = group.commands.filter((c) => c.commands.length > 0);
  group.helpCommand(false);
  const path = (c: Command): string[] => (c.parent ? [...path(c.parent), c.name()] : []);
  group
    .command('help')
    .description(`show the help of ${group.parent ? 'a subcommand' : 'a command'} (the same as adding --help to it)`)
    .argument('[command...]', group.parent ? 'the subcommand' : 'the command, and its subcommand')
    .action(async (words: string[]) => {
      let at = group;
      for (const word of words) {
        const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
        // words after a command that has no subcommands are its own arguments: its help tells them
        if (!sub && at.commands.length === 0) break;
        if (!sub) {
          const where = ['svc', ...path(at)].join(' ');
          console.error(`svc: \`${where}\` has no command '${word}'; \`${where} --help\` lists them`);
          process.exitCode = 1;
          return;
        }
        at = sub;
      }
      if (at === group && !group.parent) {
        group.outputHelp();
        return;
      }
      // a fresh program: this one is in the middle of its parse
      await buildProgram(path(at)).parseAsync([...path(at), '--help'], { from: 'user' });
    });
  for (const sub of groups) helpCommands(sub);
}

// `svc goal …`, `svc task …`, `svc wakeup …` (src/cli/goals.ts); each takes the server options and --json.
type GoalOpts = TargetOptions & { json?: boolean } & Record<string, any>;

async function runGoalCall(make: (api: typeof import('./goals.ts')) => import('./goals.ts').ApiCall, opts: GoalOpts): Promise<void> {
  const api = await import('./goals.ts');
  await withTarget(opts, (target) => api.runCall(make(api), target, Boolean(opts.json)));
}

const goalClient = (parent: Command, name: string, description: string, isDefault = false) =>
  serverOptions(parent.command(name, { isDefault }).description(description)).option('--json', "print the server's JSON answer");

function budgetOf(opts: GoalOpts) {
  const b = { maxTurns: opts.turns, maxMinutes: opts.minutes, maxDispatches: opts.dispatches };
  return Object.values(b).some((v) => v !== undefined) ? b : undefined;
}

function goalCommands(program: Command): void {
  const goal = program.command('goal').description("the chat's goal: the agent works on it until it is done with evidence (`svc goal` shows it)");
  goalClient(goal, 'status', 'the goal, its pause gate and last checkpoint (the default)', true).action((opts: GoalOpts) => runGoalCall((a) => a.goalStatus(), opts));
  goalClient(goal, 'set', 'set the goal of the active chat')
    .argument('<objective...>')
    .option('--root <dir>', 'the project root (absolute): evidence files and checks live there')
    .option('--turns <n>', 'turn budget', parseCount)
    .option('--minutes <n>', 'time budget (minutes of agent turns)', parseCount)
    .option('--dispatches <n>', 'worker dispatch budget', parseCount)
    .option('--replace', 'end the current goal and set this one')
    .action((words: string[], opts: GoalOpts) => runGoalCall((a) => a.goalCall('set', { objective: words.join(' '), projectRoot: opts.root, budget: budgetOf(opts), replace: opts.replace }), opts));
  goalClient(goal, 'update', 'record a checkpoint: what was done, what is next, the evidence')
    .argument('<summary...>')
    .option('--next <action>', 'the next action')
    .option('-e, --evidence <file>', 'a file under the project root that shows the work (repeatable)', collect, [])
    .option('--check <command>', 'a command the server runs in the project root; exit 0 is evidence')
    .action((words: string[], opts: GoalOpts) => runGoalCall((a) => a.goalCall('update', { summary: words.join(' '), nextAction: opts.next, evidence: opts.evidence.length ? opts.evidence : undefined, check: opts.check }), opts));
  goalClient(goal, 'refine', 'restate the objective').argument('<objective...>').action((words: string[], opts: GoalOpts) => runGoalCall((a) => a.goalCall('refine', { objective: words.join(' ') }), opts));
  goalClient(goal, 'done', 'complete the goal (refused unless the latest checkpoint has checkable evidence)')
    .option('--note <text>', 'a closing note')
    .action((opts: GoalOpts) => runGoalCall((a) => a.goalCall('done', { note: opts.note }), opts));
  goalClient(goal, 'cancel', 'cancel the goal').argument('[reason...]').action((words: string[], opts: GoalOpts) => runGoalCall((a) => a.goalCall('cancel', { reason: words.join(' ') || undefined }), opts));
  goalClient(goal, 'pause', "pause the goal (the agent: --reason first, which arms the pause gate; --audit in the audit turn)")
    .option('--reason <why>', 'why it should pause')
    .option('--audit <why>', 'why it cannot go on (the second request)')
    .action((opts: GoalOpts) => runGoalCall((a) => a.goalCall('pause', { reason: opts.reason, audit: opts.audit }), opts));
  goalClient(goal, 'resume', 'resume a paused goal, or withdraw a pause request').action((opts: GoalOpts) => runGoalCall((a) => a.goalCall('resume'), opts));
  goalClient(goal, 'clear', 'cancel and forget the goal').action((opts: GoalOpts) => runGoalCall((a) => a.goalCall('clear'), opts));
  goalClient(goal, 'history', "the chat's goals, newest first")
    .option('-n, --limit <n>', 'at most this many (default 10)', parseCount)
    .action((opts: GoalOpts) => runGoalCall((a) => a.goalHistory(opts.limit), opts));
  goalClient(goal, 'run', 'the goal-run: status, preflight, start, approve, pause, resume, stop, complete')
    .argument('[action]', 'status (default), preflight, start, approve, pause, resume, stop or complete', 'status')
    .option('--mode <mode>', 'dry-run, assist, bounded or supervised')
    .option('--turns <n>', 'turn budget', parseCount)
    .option('--minutes <n>', 'time budget', parseCount)
    .option('--dispatches <n>', 'dispatch budget', parseCount)
    .action((action: string, opts: GoalOpts) => runGoalCall((a) => a.goalRun(action, { mode: opts.mode, budget: budgetOf(opts) }), opts));
}

function taskCommands(program: Command): void {
  const task = program.command('task').description('the task list shared by goals and workers');
  goalClient(task, 'list', 'the tasks (the default)', true)
    .option('--status <status>', 'pending, in_progress, done or cancelled')
    .option('--owner <name>', 'main or a worker')
    .option('--goal <id>', 'of this goal')
    .action((opts: GoalOpts) => runGoalCall((a) => a.taskList({ status: opts.status, owner: opts.owner, goalId: opts.goal }), opts));
  goalClient(task, 'add', 'add a task')
    .argument('<content...>')
    .option('--owner <name>', 'main (default) or a worker')
    .option('--after <id>', 'a task this one waits for (repeatable)', collect, [])
    .option('--goal <id>', 'the goal it serves')
    .action((words: string[], opts: GoalOpts) => runGoalCall((a) => a.taskCall('add', { content: words.join(' '), owner: opts.owner, after: opts.after.length ? opts.after : undefined, goalId: opts.goal }), opts));
  goalClient(task, 'update', 'change a task')
    .argument('<id>')
    .option('--status <status>', 'pending, in_progress, done or cancelled')
    .option('--content <text>')
    .option('--owner <name>')
    .option('--after <id>', 'a task this one waits for (repeatable; replaces the list)', collect, [])
    .action((id: string, opts: GoalOpts) => runGoalCall((a) => a.taskCall('update', { id, status: opts.status, content: opts.content, owner: opts.owner, after: opts.after.length ? opts.after : undefined }), opts));
  goalClient(task, 'done', 'mark a task done').argument('<id>').action((id: string, opts: GoalOpts) => runGoalCall((a) => a.taskCall('done', { id }), opts));
  goalClient(task, 'clear', 'remove the finished tasks').action((opts: GoalOpts) => runGoalCall((a) => a.taskCall('clear'), opts));
}

function wakeupCommand(program: Command): void {
  serverOptions(
    program
      .command('wakeup')
      .description('resume the agent later with a prompt (`svc wakeup --in 10m "check the build"`; `svc wakeup list`)')
      .argument('<prompt...>', "the prompt, or 'list'")
      .option('--in <delay>', 'e.g. 90s, 10m, 2h, 1d')
      .option('--reason <text>', 'why (shown in the UI)')
      .option('--json', "print the server's JSON answer"),
  ).action((words: string[], opts: GoalOpts) => {
    if (words.length === 1 && words[0] === 'list') return runGoalCall((a) => a.wakeupList(), opts);
    if (!opts.in) {
      console.error('svc wakeup: say when with --in (e.g. --in 10m)');
      process.exitCode = 2;
      return;
    }
    return runGoalCall((a) => a.wakeupCall({ in: opts.in, prompt: words.join(' '), reason: opts.reason }), opts);
  });
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

// Not a top-level await: the bundle is a script (scripts/build.mjs). A local file the user named that
// cannot be read is one line and exit 1, whichever command read it (src/cli/local-file.ts); any other
// rejection still ends the process with its stack, as an unhandled one does.
buildProgram(process.argv.slice(2))
  .parseAsync(process.argv)
  .catch(async (err: unknown) => {
    const { fileErrorLine } = await import('./local-file.ts');
    const line = fileErrorLine(err);
    if (line === undefined) throw err;
    console.error(`svc: ${line}`);
    process.exitCode = 1;
  });
