// A machine in its own network namespace, joined to a hub in this one over TLS on a veth link: it joins with the
// real `svc fleet join`, its `svc serve` listens on the namespace's loopback only (the hub cannot reach it) and
// connects out; the dashboard answers through it all the same (its chat, through the tunnel over that connection);
// the link cut for 20 s takes it offline, and it is back by itself once the link is, chat included.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import https from 'node:https';
import { readMembership } from '../../../src/modules/fleet/membership.ts';
import { findNatsServer } from '../../../src/modules/fleet/hub-side.ts';
import { instanceKey } from '../../../src/modules/fleet/machine-side.ts';
import { fleetInstanceId } from '../../../src/modules/fleet/instance-names.ts';
import { createCoreServer } from '../../../src/servers/core.ts';
import { FAKE_CLIS } from '../../support/agent.ts';
import { SVC_BIN } from '../../support/cli.ts';
import { makeNamespace, netnsUnavailable, type Namespace } from '../../support/netns.ts';
import { freePort } from '../../support/ports.ts';
import { makeCertificate } from '../../support/tls.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';

const skip = !findNatsServer() ? 'nats-server is not installed (apt-get install nats-server)' : netnsUnavailable();

/** The output of a process so far, for a failure's message. */
function collect(child: ChildProcess): { text: () => string } {
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  return { text: () => out };
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('the fleet across a network link', { skip, timeout: 120_000 }, () => {
  const tls = makeCertificate('svc-fleet-hub');
  let ns: Namespace;
  let manager: TestManager;
  let serve: ChildProcess | undefined;
  const home = mkdtempSync(join(tmpdir(), 'svc-machine-'));
  // the machine's processes get a clean environment: no extra CA bundle to load, the user's PATH
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, SVC_HOME: home };

  before(async () => {
    // the machine's agent is the fake Claude Code of the tests, set before it joins
    const setup = await createCoreServer({ home, logLevel: 'silent' });
    setup.services.settings.update({ agent: { executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: home } } });
    await setup.close();
    ns = makeNamespace();
    manager = await startManager({ tls, fleet: { host: ns.hostAddress, port: await freePort() } });
  });
  after(async () => {
    if (serve && serve.exitCode === null) {
      const gone = exited(serve);
      serve.kill('SIGTERM');
      await gone;
    }
    await manager?.close();
    ns?.remove();
    rmSync(home, { recursive: true, force: true });
  });

  const machine = () => manager.app.fleet.hub!.machines()[0];

  test('joins from its namespace, connects out, survives a 20 s cut of the link', async () => {
    const invite = manager.app.fleet.hub!.createInvite();
    assert.match(invite.command, new RegExp(`^svc fleet join tls://${ns.hostAddress.replace(/\./g, '\\.')}:\\d+ --code \\S+ --fingerprint ${tls.fingerprint}$`));
    const args = invite.command.split(' ').slice(1);
    const join = ns.spawn(process.execPath, [SVC_BIN, ...args, '--name', 'vm in a namespace', '--home', home], env);
    const joinOut = collect(join);
    assert.equal(await exited(join), 0, joinOut.text());
    assert.match(joinOut.text(), /joined the fleet at tls:\/\/.* as 'vm in a namespace'/);
    const id = readMembership(home)!.machineId;

    serve = ns.spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0', '--proxy-port', '0', '--home', home], env);
    const serveOut = collect(serve);
    await until(() => (machine()?.online ? true : undefined), 'the machine online', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${serveOut.text()}`);
    });
    assert.equal(machine()!.id, id);
    const [instance] = machine()!.instances;
    assert.match(instance!.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'it listens on its own loopback');
    // nothing listens for the hub on the machine's address: it is reached only through its own connection
    const port = Number(new URL(instance!.url).port);
    const refused = await new Promise<string>((resolve) => {
      const socket = tcpConnect({ host: ns.address, port }, () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    assert.equal(refused, 'ECONNREFUSED');
    // the dashboard runs its agent all the same, through the tunnel over the machine's own connection
    const instanceId = fleetInstanceId(id, instanceKey(home));
    // (the dashboard serves HTTPS with the hub's certificate: this client trusts exactly it)
    const call = (method: string, path: string, body?: unknown) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = https.request(`${manager.url}${path}`, { method, ca: tls.cert, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, text }));
        });
        request.on('error', reject).end(body === undefined ? undefined : JSON.stringify(body));
      });
    const chat = async (prompt: string) => {
      await until(async () => (JSON.parse((await call('GET', `/api/dashboard/instances/${instanceId}`)).text) as { status: string }).status === 'online' || undefined, 'its instance online through the tunnel', 30_000);
      const answer = await call('POST', `/i/${instanceId}/api/message`, { prompt: `${prompt} scenario:text` });
      assert.equal(answer.status, 200, answer.text);
      const done = JSON.parse(answer.text.trim().split('\n').at(-1)!) as { type: string; status: string };
      assert.deepEqual([done.type, done.status], ['done', 'ok']);
    };
    await chat('from the hub');

    const seen = machine()!.lastSeen!;
    ns.down();
    try {
      await until(() => (machine()!.online ? undefined : true), 'offline while the link is down', 30_000);
      await new Promise((r) => setTimeout(r, Math.max(0, 20_000 - (Date.now() - seen))));
    } finally {
      ns.up();
    }
    await until(() => (machine()!.online && machine()!.lastSeen! > seen ? true : undefined), 'online again by itself', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${serveOut.text()}`);
    });
    assert.equal(manager.app.fleet.hub!.machines().length, 1, 'the same machine, not a new one');
    await chat('after the cut');
  });
});
