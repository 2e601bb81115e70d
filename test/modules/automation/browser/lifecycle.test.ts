// Browser and server lifecycle: crash detection and relaunch, closing what we launched and never what
// we attached to, re-adopting a browser a dead server left behind, spawning the server on first use.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { BrowserClient } from '../../../../src/modules/automation/browser/client.ts';
import { launchBrowser } from '../../../../src/modules/automation/browser/launcher.ts';
import { isPidAlive } from '../../../../src/core/pid.ts';
import { startBrowserServer } from '../../../../src/servers/browser.ts';
import { rejectsWith, refOf, startHarness, tempHome } from '../../../fixtures/browser/harness.ts';
import { startSite } from '../../../fixtures/browser/site.ts';
import { freePort } from '../../../support/ports.ts';
import { SVC_BIN } from '../../../support/cli.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}


function rawRequest(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: { error?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : {} }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** `svc browser serve`, built (npm test builds it first). */
const serveEntry = [SVC_BIN, 'browser', 'serve'];

describe('browser lifecycle', { timeout: 240_000 }, () => {
  test('a killed browser is detected and the next command relaunches it; old refs are stale', async () => {
    const h = await startHarness();
    try {
      await h.client.act({ action: 'open', url: `${h.site.url}/form` });
      const ref = refOf((await h.client.snapshot()).text, 'button "Increment"');
      const before = await h.client.status();
      assert.equal(before.running, true);
      assert.equal(before.launches, 1);
      const pid = before.pid!;
      assert.ok(isPidAlive(pid));
      process.kill(pid, 'SIGKILL');
      // Two signals: the CDP connection drops, and the process exit is reaped.
      await until('the crash to be noticed', async () => {
        const st = await h.client.status();
        return !st.running && st.lastExit?.reason === 'crashed';
      });
      const down = await h.client.status();
      assert.equal(down.lastExit?.signal, 'SIGKILL');

      const r = await h.client.act({ action: 'open', url: `${h.site.url}/landing` });
      assert.equal(r.title, 'Landing');
      const after = await h.client.status();
      assert.equal(after.running, true);
      assert.equal(after.launches, 2);
      assert.notEqual(after.pid, pid);
      assert.ok(isPidAlive(after.pid!));
      await rejectsWith(h.client.act({ action: 'click', target: ref }), 409, 'REF_STALE');
    } finally {
      await h.close();
    }
  });

  test('closing the server closes the browser it launched', async () => {
    const h = await startHarness();
    const st = await h.client.start();
    const pid = st.pid!;
    assert.ok(isPidAlive(pid));
    assert.ok(existsSync(join(h.home, 'browser-profile', 'svc-browser-owner.json')));
    await h.close();
    await until('the browser to exit', () => !isPidAlive(pid), 8000);
  });

  test('attach mode drives the user browser and never closes it', async () => {
    const userProfile = tempHome('svc-user-browser-');
    const user = await launchBrowser({ profileDir: userProfile, headless: true });
    const site = await startSite();
    const home = tempHome();
    try {
      const server = await startBrowserServer({ port: 0, home, cdpUrl: `http://127.0.0.1:${user.port}` });
      const client = new BrowserClient({ port: server.port });
      const r = await client.act({ action: 'open', url: `${site.url}/landing` });
      assert.equal(r.title, 'Landing');
      const st = await client.status();
      assert.equal(st.mode, 'attach');
      assert.equal(st.pid, undefined, 'an attached browser is not ours');
      await rejectsWith(client.start({ headless: false }), 400, 'ATTACHED_MODE_FIXED');
      client.close();
      await server.close();
      await sleep(500);
      assert.ok(isPidAlive(user.pid), 'the user browser still runs');
      const list = (await (await fetch(`http://127.0.0.1:${user.port}/json/list`)).json()) as { url: string }[];
      assert.ok(list.some((t) => t.url === `${site.url}/landing`), 'and keeps its tabs');
      assert.ok(!existsSync(join(home, 'browser-profile')), 'attach mode never touches our own profile');
    } finally {
      await user.kill();
      await site.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(userProfile, { recursive: true, force: true });
    }
  });

  test('attach mode: an unreachable browser is a 503 that says how to start one', async () => {
    const home = tempHome();
    const port = await freePort();
    const server = await startBrowserServer({ port: 0, home, cdpUrl: `http://127.0.0.1:${port}` });
    const client = new BrowserClient({ port: server.port });
    try {
      await rejectsWith(client.act({ action: 'tabs' }), 503, 'BROWSER_ATTACH_FAILED', /--remote-debugging-port/);
    } finally {
      client.close();
      await server.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('ensureServer spawns the browser server on first use, then reuses it', async () => {
    const home = tempHome();
    const port = await freePort();
    const site = await startSite();
    const spawn = {
      command: process.execPath,
      args: [...serveEntry, '--port', String(port), '--home', home, '--parent-pid', String(process.pid)],
      logFile: join(home, 'browser-server.log'),
    };
    const a = new BrowserClient({ port, spawn });
    const b = new BrowserClient({ port, spawn });
    let browserPid: number | undefined;
    let serverPid: number | undefined;
    try {
      assert.equal((await a.status()).server, false, 'nothing runs yet, and status does not start it');
      await rejectsWith(new BrowserClient({ port }).act({ action: 'tabs' }), 503, 'BROWSER_SERVER_DOWN', /svc browser serve/);
      const r = await a.act({ action: 'open', url: `${site.url}/landing` });
      assert.equal(r.title, 'Landing');
      const h1 = await a.health();
      assert.ok(h1 && h1.pid !== process.pid, 'the server runs in a child process');
      serverPid = h1.pid;
      const h2 = await b.ensureServer();
      assert.equal(h2.pid, h1.pid, 'a second client reuses the running server');
      assert.equal((await b.act({ action: 'extract', target: 'h1', what: 'text' })).value, 'Landed', 'and its browser session');
      browserPid = (await b.status()).pid;
      assert.ok(browserPid && isPidAlive(browserPid));
    } finally {
      await a.shutdown();
      a.close();
      b.close();
      await site.close();
    }
    // gone when shutdown resolves, so the profile may be removed at once (it stopped answering before
    // its browser had exited, and a home removed then failed with ENOTEMPTY as Chromium still wrote to it)
    assert.equal(isPidAlive(serverPid!), false, 'the server process has exited');
    assert.equal(isPidAlive(browserPid!), false, 'its browser has exited');
    assert.equal(await new BrowserClient({ port }).health(), null);
    rmSync(home, { recursive: true, force: true });
  });

  test('a browser left behind by a server that died is re-adopted, then closed with the new server', async () => {
    const home = tempHome();
    const port = await freePort();
    const site = await startSite();
    const spawned = new BrowserClient({
      port,
      spawn: { command: process.execPath, args: [...serveEntry, '--port', String(port), '--home', home] },
    });
    let browserPid = 0;
    try {
      await spawned.act({ action: 'open', url: `${site.url}/landing` });
      browserPid = (await spawned.status()).pid!;
      const serverPid = (await spawned.health())!.pid;
      spawned.close();
      process.kill(serverPid, 'SIGKILL');
      await until('the server to die', () => !isPidAlive(serverPid));
      assert.ok(isPidAlive(browserPid), 'its browser outlives it');

      const server = await startBrowserServer({ port: 0, home });
      const client = new BrowserClient({ port: server.port });
      const st = await client.start();
      assert.equal(st.pid, browserPid, 'the same browser, adopted rather than fighting over the profile');
      assert.equal(st.adopted, true);
      const tabs = await client.tabs();
      assert.ok(tabs.tabs.some((t) => t.url === `${site.url}/landing`));
      client.close();
      await server.close();
      await until('the adopted browser to exit', () => !isPidAlive(browserPid), 8000);
    } finally {
      if (browserPid && isPidAlive(browserPid)) process.kill(browserPid, 'SIGKILL');
      await site.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('headed mode without a display is a clear 503', async () => {
    const display = process.env.DISPLAY;
    const wayland = process.env.WAYLAND_DISPLAY;
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    const home = tempHome();
    const server = await startBrowserServer({ port: 0, home, headless: false });
    const client = new BrowserClient({ port: server.port });
    try {
      await rejectsWith(client.start(), 503, 'BROWSER_NO_DISPLAY', /DISPLAY/);
    } finally {
      if (display !== undefined) process.env.DISPLAY = display;
      if (wayland !== undefined) process.env.WAYLAND_DISPLAY = wayland;
      client.close();
      await server.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('the browser server answers loopback JSON only: foreign Host, foreign Origin and form bodies are refused', async () => {
    const home = tempHome();
    const server = await startBrowserServer({ port: 0, home });
    try {
      const ok = await rawRequest(server.port, { path: '/api/health', headers: { host: `127.0.0.1:${server.port}` } });
      assert.equal(ok.status, 200);
      const rebinding = await rawRequest(server.port, { path: '/api/browser/status', headers: { host: `evil.example:${server.port}` } });
      assert.equal(rebinding.status, 403);
      assert.equal(rebinding.body.error, 'HOST_NOT_ALLOWED');
      const cross = await rawRequest(server.port, {
        method: 'POST',
        path: '/api/browser/act',
        headers: { host: `127.0.0.1:${server.port}`, origin: 'http://evil.example', 'content-type': 'application/json' },
        body: '{"action":"tabs"}',
      });
      assert.equal(cross.status, 403);
      assert.equal(cross.body.error, 'ORIGIN_NOT_ALLOWED');
      const form = await rawRequest(server.port, {
        method: 'POST',
        path: '/api/browser/act',
        headers: { host: `127.0.0.1:${server.port}`, 'content-type': 'text/plain' },
        body: '{"action":"tabs"}',
      });
      assert.equal(form.status, 415);
      const missing = await rawRequest(server.port, { path: '/api/browser/nothing', headers: { host: `127.0.0.1:${server.port}` } });
      assert.equal(missing.status, 404);
      assert.equal((await server.session.status()).running, false, 'none of that launched a browser');
    } finally {
      await server.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
