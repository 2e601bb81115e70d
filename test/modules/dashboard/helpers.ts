// Shared by the dashboard tests: a manager on an ephemeral port with a temporary home, and small
// waits on conditions.
import { rmSync } from 'node:fs';
import http from 'node:http';
import { createManagerServer, type ManagerOptions, type ManagerServer } from '../../../src/servers/manager.ts';
import { isInstanceProcess } from '../../../src/modules/dashboard/lifecycle.ts';
import { tempHome } from '../../support/server.ts';
import type { SseConnection, SseMessage } from '../../support/sse.ts';

export interface TestManager {
  app: ManagerServer;
  url: string;
  home: string;
  close(options?: { removeHome?: boolean }): Promise<void>;
}

export async function startManager(options: Partial<ManagerOptions> = {}): Promise<TestManager> {
  const home = options.home ?? tempHome('svc-manager-');
  const app = await createManagerServer({ logLevel: 'silent', scan: { from: 1, count: 0 }, pollMs: 500, bridge: { minBackoffMs: 50, maxBackoffMs: 500 }, ...options, home });
  const url = await app.listen(0);
  return {
    app,
    url,
    home,
    async close({ removeHome = true } = {}) {
      // Instances the manager started outlive it by design (a next manager on the home re-adopts them); with
      // the home removed nothing would, so they go too (a test that starts one and forgets it, or a fuzzer that
      // starts them, leaves no svc serve running).
      const owned = removeHome ? app.instances.list().filter((i) => i.owner === 'manager' && i.pid && i.home) : [];
      await app.close();
      for (const i of owned) if (isInstanceProcess(i.pid!, i.home!)) process.kill(i.pid!, 'SIGKILL');
      if (removeHome) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Resolves with the first value `check` returns that is not undefined, polling until the timeout. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const findMessage = (sse: SseConnection, pred: (data: any) => boolean, what: string, timeoutMs = 10_000): Promise<SseMessage> =>
  until(() => sse.messages.find((m) => pred(m.data)), what, timeoutMs);

export const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** Sends a prompt to an instance (with its token) and waits for the whole NDJSON answer. */
export function ask(url: string, token: string, prompt: string): Promise<string> {
  // its own connection (agent: false): tests that cut an instance's connections must not reuse a dead one
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/api/message`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth(token) }, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve(text));
    });
    request.on('error', reject).end(JSON.stringify({ prompt }));
  });
}
