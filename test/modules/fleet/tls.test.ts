// A hub that serves NATS over TLS: the invite names its certificate, a join pins it (and refuses another, saying
// which it got), and the joined machine's svc serve connects with the pinned certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMembership } from '../../../src/modules/fleet/membership.ts';
import { findNatsServer, joinFleet, JoinError } from '../../../src/modules/fleet/hub-side.ts';
import { freePort } from '../../support/ports.ts';
import { startServer } from '../../support/server.ts';
import { makeCertificate } from '../../support/tls.ts';
import { startManager, until, type TestManager } from '../dashboard/helpers.ts';

describe('the fleet over TLS', { skip: findNatsServer() ? false : 'nats-server is not installed (apt-get install nats-server)' }, () => {
  const tls = makeCertificate('svc-fleet-hub');
  const other = makeCertificate('svc-other');
  let manager: TestManager;
  let url: string;
  const homes: string[] = [];
  const home = () => {
    const h = mkdtempSync(join(tmpdir(), 'svc-machine-'));
    homes.push(h);
    return h;
  };

  before(async () => {
    const port = await freePort();
    url = `tls://127.0.0.1:${port}`;
    manager = await startManager({ tls, fleet: { host: '127.0.0.1', port, heartbeatMs: 200 } });
  });
  after(async () => {
    await manager?.close();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  // the hub itself: the HTTPS routes are the same as over HTTP (hub.test.ts)
  const invite = async () => manager.app.fleet.hub!.createInvite();

  test('the invite names the certificate; a join with another fingerprint is refused and says what it saw', async () => {
    const { code, command } = await invite();
    assert.equal(command, `svc fleet join ${url} --code ${code} --fingerprint ${tls.fingerprint}`);
    const err = await joinFleet({ url, code, name: 'x', home: home(), fingerprint: other.fingerprint }).catch((e: unknown) => e);
    assert.ok(err instanceof JoinError);
    assert.match(err.message, new RegExp(`presents another certificate than the invite names: it has SHA-256 ${tls.fingerprint}, the invite ${other.fingerprint}`));
    const unpinned = await joinFleet({ url, code, name: 'x', home: home() }).catch((e: unknown) => e);
    assert.ok(unpinned instanceof JoinError, 'without the pin a self-signed hub is not trusted');
    assert.match(unpinned.message, /cannot reach the hub at tls:.*self.signed certificate/i);
  });

  test('a pinned join keeps the certificate, and svc serve connects with it', async () => {
    const { code } = await invite();
    const h = home();
    const membership = await joinFleet({ url, code, name: 'vm', home: h, fingerprint: tls.fingerprint.toLowerCase() });
    assert.equal(readMembership(h)!.hubCertificate!.fingerprint, tls.fingerprint);
    const server = await startServer({ home: h, fleetHeartbeatMs: 200 });
    try {
      await until(() => (manager.app.fleet.hub!.machines().find((m) => m.id === membership.machineId)?.online ? true : undefined), 'online over TLS');
    } finally {
      await server.close({ removeHome: false });
    }
  });
});
