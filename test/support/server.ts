// Starts a real svc server on an ephemeral loopback port with a private temporary data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreServer, type CoreServer, type CoreOptions } from '../../src/servers/core.ts';

export interface TestServer {
  app: CoreServer;
  url: string;
  port: number;
  home: string;
  /** Stops the server; keeps the data directory unless `removeHome` (for restart tests). */
  close(options?: { removeHome?: boolean }): Promise<void>;
}

export function tempHome(prefix = 'svc-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `port`: listen on this port (e.g. to restart a server where its clients expect it); default ephemeral. */
export async function startServer(options: Partial<CoreOptions> & { port?: number } = {}): Promise<TestServer> {
  const { port: wanted = 0, ...appOptions } = options;
  const home = appOptions.home ?? tempHome();
  const app = await createCoreServer({ logLevel: 'silent', ...appOptions, home });
  const address = await app.listen(wanted, '127.0.0.1');
  const port = Number(new URL(address).port);
  // the memory index's first sync announces itself (memory_status); tests counting events start after it
  await app.services.memory.started();
  return {
    app,
    url: `${appOptions.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    home,
    async close({ removeHome = true } = {}) {
      await app.close();
      // a browser the server launched may still be writing its profile as it exits (ENOTEMPTY): tried again
      if (removeHome) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, headers: response.headers };
}

export const sendJson = (url: string, method: string, body: unknown) =>
  getJson(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
