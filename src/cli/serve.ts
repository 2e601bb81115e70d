// `svc serve`: starts the core server and stops it cleanly on SIGINT/SIGTERM.
import { createCoreServer, ProxyListenError } from '../servers/core.ts';
import { HomeInUseError } from '../core/server-lock.ts';
import { killLiveGroupsSync } from '../agent/process.ts';
import { loadServerTls, TlsFilesError, type TlsFileOptions } from './tls-files.ts';
import { announce, complain } from '../core/log.ts';
import { startServiceLog } from './service-log.ts';

export interface ServeOptions extends TlsFileOptions {
  port: number;
  host: string;
  home: string;
  /** The web-routing proxy's port; 0 leaves it off. */
  proxyPort: number;
}

export async function serve(options: ServeOptions): Promise<void> {
  startServiceLog(options.home, 'svc');
  let tls;
  try {
    tls = loadServerTls(options);
  } catch (err) {
    if (!(err instanceof TlsFilesError)) throw err;
    fail(err.message);
  }
  let app;
  try {
    app = await createCoreServer({ home: options.home, ...(options.proxyPort ? { proxyPort: options.proxyPort } : {}), ...(tls ? { tls } : {}) });
  } catch (err) {
    if (err instanceof HomeInUseError) fail(`${options.home}: ${err.message}`);
    fail(`cannot open the data directory ${options.home}: ${(err as Error).message}`);
  }
  let address: string;
  try {
    address = await app.listen(options.port, options.host);
  } catch (err) {
    await app.close();
    if (err instanceof ProxyListenError) fail(proxyProblem(err));
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${options.port} on ${options.host} is already in use (is another svc running? try --port <n>)`);
    if (code === 'EACCES') fail(`not allowed to listen on ${options.host}:${options.port} (try a port above 1024)`);
    if (code === 'EADDRNOTAVAIL') fail(`${options.host} is not an address of this machine`);
    fail(`cannot listen on ${options.host}:${options.port}: ${(err as Error).message}`);
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    announce(`svc: ${signal} received, shutting down`);
    const force = setTimeout(() => {
      complain('svc: shutdown took longer than 10 s, exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        complain(`svc: error during shutdown: ${(err as Error)?.stack ?? String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // However the process ends (a crash included), no provider CLI outlives it.
  process.on('exit', killLiveGroupsSync);
  // Printed last: whoever waits for these lines may signal the server at once.
  announce(`svc ${app.services.version} listening on ${address}`);
  if (app.services.proxy) announce(`web-routing proxy on ${app.services.proxy.url}`);
  announce(`data directory: ${app.services.home.root}`);
  // What a first run needs to know: which provider CLIs can answer, and the one command for each that cannot.
  const providers = await app.services.detector.quickCheck();
  announce('providers:');
  for (const [id, status] of Object.entries(providers)) {
    // the custom provider is opt-in: it is worth a line once it is set up
    if (id === 'custom' && !status.installed) continue;
    announce(`  ${status.readiness.state === 'ready' ? 'ok' : '- '} ${id.padEnd(9)} ${status.readiness.summary}`);
  }
  if (options.host !== '127.0.0.1' && options.host !== 'localhost' && options.host !== '::1') {
    console.log('remote clients need the token: `svc token` prints it');
    if (!tls) console.log('over plain HTTP the token crosses the network readable: --tls-cert and --tls-key serve HTTPS');
  }
}

/**
 * The proxy port is as much the user's choice as the main port (3458 unless --proxy-port says otherwise),
 * so a busy one is the same one-line error, with both ways out: another port, or no proxy.
 */
function proxyProblem(err: ProxyListenError): string {
  const ways = `give another with --proxy-port <n>, or --proxy-port 0 to run without the proxy`;
  if (err.code === 'EADDRINUSE') return `web-routing proxy port ${err.port} on 127.0.0.1 is already in use (is another svc running?); ${ways}`;
  if (err.code === 'EACCES') return `not allowed to listen on 127.0.0.1:${err.port} for the web-routing proxy; ${ways}`;
  return `${err.message}; ${ways}`;
}

function fail(message: string): never {
  complain(`svc: ${message}`);
  process.exit(1);
}
