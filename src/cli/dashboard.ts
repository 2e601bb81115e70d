// `svc dashboard serve`: starts the manager dashboard and stops it cleanly on SIGINT/SIGTERM. The
// instances it started keep running; the next manager on the same home re-adopts them.
import { createManagerServer } from '../servers/manager.ts';
import { HomeInUseError } from '../core/server-lock.ts';
import { loadServerTls, TlsFilesError, type TlsFileOptions } from './tls-files.ts';
import { announce, complain } from '../core/log.ts';
import { startServiceLog } from './service-log.ts';
import { exposedWithoutTls } from '../modules/fleet/index.ts';

export interface DashboardServeOptions extends TlsFileOptions {
  port: number;
  home: string;
  /** This run's scan range; each one not given comes from the manager's settings. */
  from?: number;
  count?: number;
  /** `--fleet`: the hub's NATS port and address (default: every interface with TLS, loopback without). */
  fleet?: { port: number; host?: string };
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
  const fleet = o.fleet && { port: o.fleet.port, host: o.fleet.host ?? (tls ? '0.0.0.0' : '127.0.0.1') };
  const exposed = fleet && exposedWithoutTls(fleet.host, Boolean(tls));
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
