// A server killed (-9) while it stores uploads: after a restart every stored file is complete, and
// what was half-written is gone (uploads are written under a hidden name and appear when complete).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { tempHome } from '../../support/server.ts';
import { freePort } from '../../support/ports.ts';

const BIN = join(import.meta.dirname, '../../../bin/svc.js');
const SIZE = 20 * 1024 * 1024;

async function serve(home: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', String(port), '--proxy-port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
      if (out.includes('data directory:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`svc exited with ${code}`)));
  });
  return child;
}

/** Sends a 20 MiB upload and resolves once the whole body has left this process. */
function upload(port: number, name: string): Promise<void> {
  return new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/api/upload?filename=${name}`, headers: { 'content-type': 'application/octet-stream', 'content-length': SIZE } });
    request.on('error', () => undefined);
    request.end(Buffer.alloc(SIZE, 7), () => resolve());
  });
}

test('uploads killed mid-write leave no partial file, after restart either', { timeout: 120_000 }, async (t) => {
  const home = tempHome();
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const port = await freePort();
  for (let round = 0; round < 3; round++) {
    const server = await serve(home, port);
    await Promise.all([upload(port, `a${round}.bin`), upload(port, `b${round}.bin`)]);
    // the server is now storing (or has stored) them: kill it without warning
    await new Promise((r) => setTimeout(r, round * 15));
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const media = join(home, 'media');
    for (const name of readdirSync(media).filter((n) => !n.startsWith('.'))) {
      assert.equal(statSync(join(media, name)).size, SIZE, `${name} is complete or absent`);
    }
  }
  const server = await serve(home, port);
  try {
    assert.deepEqual(readdirSync(join(home, 'media')).filter((n) => n.startsWith('.upload-')), [], 'leftovers removed at start');
    for (const name of readdirSync(join(home, 'media'))) {
      const response = await fetch(`http://127.0.0.1:${port}/media/${name}`);
      assert.equal(response.status, 200);
      assert.equal((await response.arrayBuffer()).byteLength, SIZE);
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
});
