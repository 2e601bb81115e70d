// A manager given a certificate: it serves HTTPS, the instances it starts serve HTTPS with the same
// files, and it reaches them (health, facts, the proxy /i/<id>/…) pinning the fingerprint each one's
// lock file records. A lock file naming another certificate makes the proxy refuse the instance.
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { homePaths } from '../../../src/core/home.ts';
import { readServerLock } from '../../../src/core/server-lock.ts';
import { connectionOptions, type ServerTls } from '../../../src/core/tls.ts';
import { HSTS } from '../../../src/http/create-server.ts';
import { makeCertificate } from '../../support/tls.ts';
import { startManager } from './helpers.ts';
import { SVC_BIN } from '../../support/cli.ts';

// `svc serve` as a user runs it: the built program (npm test builds it first)
const SVC = [process.execPath, SVC_BIN];

/** A JSON request to the manager over HTTPS, pinning its certificate. */
function call(tls: ServerTls, url: string, method = 'GET', body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const request = https.request(target, { method, headers, ...connectionOptions(target, tls.fingerprint) }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: parsed });
      });
    });
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test('a manager on HTTPS starts its instances on HTTPS and proxies to them pinning their certificate', async () => {
  const tls = makeCertificate();
  const manager = await startManager({ tls, svcCommand: SVC });
  let pid: number | undefined;
  try {
    assert.match(manager.url, /^https:\/\//);
    const started = await call(tls, `${manager.url}/api/dashboard/instances/start`, 'POST', { label: 'tls' });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const inst = started.body;
    pid = inst.pid;
    assert.match(inst.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(inst.status, 'online');
    assert.equal(readServerLock(homePaths(inst.home).lock)?.certFingerprint, tls.fingerprint);

    const health = await call(tls, `${manager.url}/i/${inst.id}/api/health`);
    assert.equal(health.status, 200);
    assert.equal(health.body.ok, true);
    assert.equal(health.headers['strict-transport-security'], HSTS, "the manager's own HSTS");

    // the proxied WebSocket: wss from the caller, wss to the instance, each pinned
    const wsUrl = `${manager.url.replace(/^https/, 'wss')}/i/${inst.id}/ws`;
    const socket = new WebSocket(wsUrl, Object.assign({}, connectionOptions(wsUrl, tls.fingerprint)));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, answer) => reject(new Error(`HTTP ${answer.statusCode}`)));
    });
    socket.close();

    // the lock file now names another certificate: the proxy refuses to send the token to this one
    const lockPath = homePaths(inst.home).lock;
    const lock = readFileSync(lockPath, 'utf8');
    writeFileSync(lockPath, JSON.stringify({ ...JSON.parse(lock), certFingerprint: makeCertificate('other').fingerprint }));
    const refused = await call(tls, `${manager.url}/i/${inst.id}/api/health`);
    assert.equal(refused.status, 502, JSON.stringify(refused.body));
    assert.match(refused.body.message, /certificate of .* is not the one expected/);
    writeFileSync(lockPath, lock);

    const stopped = await call(tls, `${manager.url}/api/dashboard/instances/${inst.id}/stop`, 'POST', {});
    assert.equal(stopped.body.status, 'offline');
  } finally {
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await manager.close();
  }
});
