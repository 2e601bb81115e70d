// `svc dashboard serve`: starts the manager dashboard and stops it cleanly on SIGINT/SIGTERM. The
// instances it started keep running; the next manager on the same home re-adopts them.
import { createManagerServer } from '../servers/manager.ts';
import { HomeInUseError } from '../core/server-lock.ts';
import { loadServerTls, TlsFilesError, type TlsFileOptions } from './tls-files.ts';
import { announce, complain } from '../core/log.ts';
import { startServiceLog } from './service-log.ts';
import { exposedWithoutTls, isNatsUrl } from '../modules/fleet/index.ts';
import { readCredsFile } from './fleet.ts';

export interface DashboardServeOptions extends TlsFileOptions {
  port: number;
  home: string;
  /** This run's scan range; each one not given comes from the manager's settings. */
  from?: number;
  count?: number;
  /**
   * `--fleet`: the hub's NATS port and address (default: every interface with TLS, loopback without); or, with
   * `--nats-url` and `--nats-creds`, a NATS an operator runs and the hub's credentials file there.
   */
  fleet?: { port: number; host?: string; url?: string; credsFile?: string };
}

export async function serveDashboard(o: DashboardServeOptions): Promise<void> {
  startServiceLog(o.home, 'dashboard');
  let tls;
  try {
    tls = loadServerTls(o);
  } catch (err) {
    if (!(err instanceof TlsFilesError)) throw err;
    complain(`svc dashboard: ${err.message}`);
    process.exit(1);
  }
  let external;
  try {
    external = o.fleet && (await operatorNats(o.fleet));
  } catch (err) {
    complain(`svc dashboard: ${(err as Error).message}`);
    process.exit(1);
  }
  const fleet = o.fleet && { port: o.fleet.port, host: o.fleet.host ?? (tls ? '0.0.0.0' : '127.0.0.1'), ...(external ? { external } : {}) };
  const exposed = fleet && !external && exposedWithoutTls(fleet.host, Boolean(tls));
  if (exposed) {
    complain(`svc dashboard: ${exposed}`);
    process.exit(1);
  }
  let app;
  try {
    app = await createManagerServer({ home: o.home, scan: { from: o.from, count: o.count }, ...(tls ? { tls } : {}), ...(fleet ? { fleet } : {}) });
  } catch (err) {
    const why = err instanceof HomeInUseError ? 'another manager uses this home' : (err as Error).message;
    complain(`svc dashboard: cannot open ${o.home}: ${why}`);
    process.exit(1);
  }
  let address: string;
  try {
    address = await app.listen(o.port, '127.0.0.1');
  } catch (err) {
    await app.close();
    const code = (err as NodeJS.ErrnoException).code;
    complain(code === 'EADDRINUSE' ? `svc dashboard: port ${o.port} is in use (is a manager running? try --port <n>)` : `svc dashboard: cannot listen: ${(err as Error).message}`);
    process.exit(1);
  }
  const stop = (signal: NodeJS.Signals) => {
    announce(`svc dashboard: ${signal} received, shutting down`);
    void app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  announce(`svc dashboard listening on ${address}`);
  const { from, count } = app.instances.scanRange;
  const hub = app.fleet.hub?.status();
  if (hub) announce(`fleet: machines join at ${hub.url} (svc fleet invite makes a code)`);
  announce(`manager home: ${o.home}; ${count ? `scanning ports ${from}-${from + count - 1}` : 'no port scan'}`);
}

/** The operator's NATS of `--nats-url`/`--nats-creds` (both or neither), its credentials read and checked. */
async function operatorNats(f: { url?: string; credsFile?: string }): Promise<{ url: string; creds: string } | undefined> {
  if (f.url === undefined && f.credsFile === undefined) return undefined;
  if (f.url === undefined || f.credsFile === undefined) throw new Error('--nats-url and --nats-creds go together: the NATS an operator runs, and the credentials file of the user it made for this hub');
  if (!isNatsUrl(f.url)) throw new Error(`--nats-url '${f.url}' is not a NATS address, like nats://nats.example:4222 or tls://nats.example:4222`);
  return { url: f.url, creds: await readCredsFile('--nats-creds', f.credsFile) };
}
