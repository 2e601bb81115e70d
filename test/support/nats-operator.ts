// A NATS that an operator runs, as the fleet's `--nats-url`/`--nats-creds` meets it: the real nats-server in
// operator mode (an operator JWT, accounts preloaded into a MEMORY resolver, JetStream enabled for the fleet's
// account by its limits), on a free loopback port, and users minted the way `nsc` makes them, each a .creds file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, createOperator, createUser, type KeyPair } from '@nats-io/nkeys';
import { encodeAccount, encodeOperator, encodeUser, fmtCreds } from '@nats-io/jwt';
import { findNatsServer } from '../../src/modules/fleet/hub-side.ts';
import { freePort } from './ports.ts';

/** A JWT's limits left unset are 0 (nothing allowed), as `nsc` would not leave them. */
const UNLIMITED = { subs: -1, data: -1, payload: -1 };

export interface OperatorNats {
  url: string;
  /** A user of the fleet's account with these permissions (none: it may do anything), as a .creds file's text and path. */
  user(name: string, permissions?: Record<string, unknown>, key?: KeyPair): Promise<{ creds: string; file: string; publicKey: string }>;
  /** What nats-server has logged (for a failing test's message). */
  log(): string;
  close(): Promise<void>;
}

export async function startOperatorNats(): Promise<OperatorNats> {
  const binary = findNatsServer();
  if (!binary) throw new Error('nats-server is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'svc-operator-nats-'));
  const operator = createOperator();
  const account = createAccount();
  const system = createAccount();
  const port = await freePort();
  const config = {
    host: '127.0.0.1',
    port,
    operator: await encodeOperator('test-operator', operator, { system_account: system.getPublicKey() }),
    system_account: system.getPublicKey(),
    resolver: 'MEMORY',
    resolver_preload: {
      [account.getPublicKey()]: await encodeAccount('fleet', account, { limits: { ...UNLIMITED, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1, mem_storage: 64 * 1024 * 1024, disk_storage: 1024 ** 3, streams: -1, consumer: -1 } }, { signer: operator }),
      [system.getPublicKey()]: await encodeAccount('SYS', system, {}, { signer: operator }),
    },
    jetstream: { store_dir: join(dir, 'jetstream'), max_file_store: 1024 ** 3, max_memory_store: 64 * 1024 * 1024 },
  };
  const configFile = join(dir, 'nats-server.conf');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const child: ChildProcess = spawn(binary, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the operator's nats-server did not start: ${log}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk;
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the operator's nats-server exited with ${code}: ${log}`));
    });
  });
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk).slice(-20_000)));
  return {
    log: () => log,
    url: `nats://127.0.0.1:${port}`,
    async user(name, permissions = {}, key = createUser()) {
      const jwt = await encodeUser(name, key, account, { ...UNLIMITED, ...permissions });
      const creds = new TextDecoder().decode(fmtCreds(jwt, key));
      const file = join(dir, `${name}.creds`);
      writeFileSync(file, creds, { mode: 0o600 });
      return { creds, file, publicKey: key.getPublicKey() };
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
