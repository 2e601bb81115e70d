// `svc fleet join` and `svc fleet invite` (docs/fleet.md).
import { hostname, homedir } from 'node:os';
import { join } from 'node:path';
import { readServerLock } from '../core/server-lock.ts';
import { loadFleetHub, loadFleetMachine } from '../modules/fleet/index.ts';
import { DEFAULT_DASHBOARD_PORT } from './defaults.ts';
import { jsonOf, requestText } from './http-client.ts';

export async function fleetJoin(o: { url: string; code: string; name?: string; home: string; fingerprint?: string }): Promise<number> {
  const current = (await loadFleetMachine()).readMembership(o.home);
  if (current) {
    console.error(`svc: ${o.home} is already machine ${current.machineId} ('${current.name}') of the fleet at ${current.url}; revoke it on that dashboard and remove ${join(o.home, 'fleet')} to join another`);
    return 1;
  }
  if (!/^(nats|tls):\/\/[^/\s]+$/.test(o.url)) {
    console.error(`svc: '${o.url}' is not a fleet address: give the one the invite shows, like nats://hub.example:4222`);
    return 1;
  }
  const { joinFleet, JoinError } = await loadFleetHub();
  try {
    const joined = await joinFleet({ url: o.url, code: o.code, name: o.name ?? hostname(), home: o.home, ...(o.fingerprint ? { fingerprint: o.fingerprint } : {}) });
    console.log(`joined the fleet at ${joined.url} as '${joined.name}' (machine ${joined.machineId})`);
    console.log('svc serve on this home now connects to the hub by itself: start it (or restart it) with `svc serve`');
    return 0;
  } catch (err) {
    if (!(err instanceof JoinError)) throw err;
    console.error(`svc: ${err.message}`);
    return 1;
  }
}

export async function fleetInvite(o: { url?: string; home?: string; token?: string }): Promise<number> {
  const home = o.home ?? process.env.SVC_DASHBOARD_HOME ?? join(homedir(), '.svc-dashboard');
  const running = readServerLock(join(home, 'manager.lock'));
  const url = o.url ?? running?.url ?? `http://127.0.0.1:${DEFAULT_DASHBOARD_PORT}`;
  const pin = o.url ? undefined : running?.certFingerprint;
  let answer;
  try {
    answer = await requestText(`${url.replace(/\/+$/, '')}/api/dashboard/fleet/invites`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
      body: '{}',
      ...(pin ? { pin } : {}),
      timeoutMs: 10_000,
    });
  } catch (err) {
    console.error(`svc: cannot reach the dashboard at ${url}: ${(err as Error).message} (is \`svc dashboard serve --fleet\` running?)`);
    return 1;
  }
  const body = jsonOf(answer);
  if (!answer.ok) {
    console.error(`svc: ${String(body.message ?? `the dashboard answered ${answer.status}`)}`);
    return 1;
  }
  console.log(`code ${String(body.code)} (single use, until ${new Date(Number(body.expiresAt)).toLocaleTimeString()})`);
  console.log(`on the machine to join: ${String(body.command)}`);
  return 0;
}
