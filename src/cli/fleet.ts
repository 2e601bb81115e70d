// `svc fleet join`, `svc fleet invite` and `svc fleet permissions` (docs/fleet.md).
import { existsSync, readFileSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { join } from 'node:path';
import { readServerLock } from '../core/server-lock.ts';
import { isNatsUrl, loadFleetHub, loadFleetMachine } from '../modules/fleet/index.ts';
import { DEFAULT_DASHBOARD_PORT } from './defaults.ts';
import { jsonOf, requestText } from './http-client.ts';

export async function fleetJoin(o: { url: string; code: string; name?: string; home: string; fingerprint?: string; credsFile?: string }): Promise<number> {
  const current = (await loadFleetMachine()).readMembership(o.home);
  if (current) {
    console.error(`svc: ${o.home} is already machine ${current.machineId} ('${current.name}') of the fleet at ${current.url}; revoke it on that dashboard and remove ${join(o.home, 'fleet')} to join another`);
    return 1;
  }
  if (!isNatsUrl(o.url)) {
    console.error(`svc: '${o.url}' is not a fleet address: give the one the invite shows, like nats://hub.example:4222`);
    return 1;
  }
  let creds: string | undefined;
  try {
    if (o.credsFile !== undefined) creds = await readCredsFile('--creds', o.credsFile);
  } catch (err) {
    console.error(`svc: ${(err as Error).message}`);
    return 1;
  }
  const { joinFleet, JoinError } = await loadFleetHub();
  try {
    const joined = await joinFleet({ url: o.url, code: o.code, name: o.name ?? hostname(), home: o.home, ...(o.fingerprint ? { fingerprint: o.fingerprint } : {}), ...(creds !== undefined ? { creds } : {}) });
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

/** A NATS user's credentials file given with `flag`, read and checked; the error says which file and why. */
export async function readCredsFile(flag: string, file: string): Promise<string> {
  let creds: string;
  try {
    creds = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${flag} ${file}: ${(err as Error).message}`);
  }
  try {
    (await loadFleetHub()).parseCreds(creds);
  } catch (err) {
    throw new Error(`${flag} ${file} is not a NATS user's credentials file: ${(err as Error).message}`);
  }
  return creds;
}

/**
 * For the operator of a NATS a fleet runs on: the id a machine's user key gives it and what that user may do,
 * from the key itself or from the machine's .creds file. Printed as the `nsc` flags, or as a user JWT's JSON.
 */
export async function fleetPermissions(keyOrCreds: string, o: { json: boolean }): Promise<number> {
  const { machineIdOf, parseCreds, operatorUserPermissions } = await loadFleetHub();
  let publicKey = keyOrCreds;
  if (existsSync(keyOrCreds)) {
    try {
      publicKey = parseCreds(readFileSync(keyOrCreds, 'utf8')).publicKey;
    } catch (err) {
      console.error(`svc: ${keyOrCreds} is not a NATS user's credentials file: ${(err as Error).message}`);
      return 1;
    }
  } else if (!/^U[A-Z2-7]{55}$/.test(keyOrCreds)) {
    console.error(`svc: '${keyOrCreds}' is neither a user's public key (U… , 56 characters) nor a .creds file`);
    return 1;
  }
  const machineId = machineIdOf(publicKey);
  const permissions = operatorUserPermissions(machineId);
  if (o.json) {
    console.log(JSON.stringify({ publicKey, machineId, permissions }, null, 2));
    return 0;
  }
  const quoted = (subjects: string[]) => `'${subjects.join(',')}'`;
  console.log(`machine ${machineId} (user ${publicKey})`);
  console.log(`  publish:   ${permissions.pub.allow.join('  ')}`);
  console.log(`  not:       ${permissions.pub.deny.join('  ')}`);
  console.log(`  subscribe: ${permissions.sub.allow.join('  ')}`);
  console.log('  and one reply to each request it is sent');
  console.log('with nsc, for the user of this key:');
  console.log(`  nsc edit user --name <user> --allow-pub ${quoted(permissions.pub.allow)} --deny-pub ${quoted(permissions.pub.deny)} --allow-sub ${quoted(permissions.sub.allow)} --allow-pub-response`);
  return 0;
}
