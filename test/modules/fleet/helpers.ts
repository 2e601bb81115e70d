// What the fleet's tests share: a manager running a hub on a free loopback port, invites, machine homes.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { findNatsServer } from '../../../src/modules/fleet/hub-side.ts';
import { freePort } from '../../support/ports.ts';
import { sendJson } from '../../support/server.ts';
import { startManager, type TestManager } from '../dashboard/helpers.ts';

export const skipWithoutNats = findNatsServer() ? false : 'nats-server is not installed (apt-get install nats-server)';

export async function fleetManager(options: { inviteTtlMs?: number; heartbeatMs: number; workAckWaitMs?: number }): Promise<{ manager: TestManager; url: string }> {
  const port = await freePort();
  const manager = await startManager({ fleet: { host: '127.0.0.1', port, ...options } });
  return { manager, url: `nats://127.0.0.1:${port}` };
}

export async function invite(manager: TestManager): Promise<{ id: string; code: string; expiresAt: number; command: string }> {
  const res = await sendJson(`${manager.url}/api/dashboard/fleet/invites`, 'POST', {});
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

export const machineHome = () => mkdtempSync(join(tmpdir(), 'svc-machine-'));

/** Collects the errors the server sends on a connection (permission violations arrive this way). */
export function serverErrors(connection: NatsConnection): string[] {
  const errors: string[] = [];
  void (async () => {
    for await (const s of connection.status()) if (s.type === 'error') errors.push(String((s as { error?: unknown }).error));
  })();
  return errors;
}
