// Read-only workers with the real CLIs against the fake model: the fake model asks for a file write
// (scenario:write); a read-only worker's CLI refuses it, a mutable worker's CLI writes it (the control
// that shows the test would see a write).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, WRITE_FILE_NAME, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath, type RealCliName } from '../../support/real-clis.ts';
import { startServer, type TestServer } from '../../support/server.ts';
import { call } from './support.ts';

for (const name of ['claude', 'codex'] as RealCliName[]) {
  describe(`read-only worker, real ${name}`, { skip: realCliPath(name) ? false : `${name} not installed: run scripts/install-real-clis.sh` }, () => {
    let fake: FakeModel;
    let server: TestServer;
    let cwd: string;
    let runDir: string;
    before(async () => {
      fake = await startFakeModel();
      server = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
      runDir = mkdtempSync(join(tmpdir(), `svc-ro-${name}-`));
      const prepared = prepareRealCliEnv(name, fake.url, runDir);
      cwd = prepared.cwd;
      server.app.services.settings.update({
        agent: { provider: name, executables: { [name]: realCliPath(name)! }, env: prepared.env, workingDir: cwd, retries: 0 },
        orchestration: { workerTimeoutSec: 120 },
      });
    });
    after(async () => {
      await server.close();
      await fake.close();
      rmSync(runDir, { recursive: true, force: true });
    });

    const worker = (capability: string) => ({ name: `${capability} worker`, role: 'r', provider: name, model: '', instructions: '', capability });

    test('the CLI refuses the write of a read-only worker; a mutable one writes', { timeout: 240_000 }, async () => {
      const target = join(cwd, WRITE_FILE_NAME);
      const readOnly = await call(server, 'POST', '/api/orchestrate/dispatch', { virtual: worker('read-only'), task: 'Write the file. scenario:write', wait: true });
      assert.equal(readOnly.status, 200, JSON.stringify(readOnly.body));
      assert.equal(existsSync(target), false, `read-only ${name} wrote ${target}: ${JSON.stringify(readOnly.body)}`);
      const asked = fake.modelRequests().filter((r) => r.lastUser?.includes('Write the file'));
      if (name === 'claude') {
        // Claude Code leaves the writing tools out of the session altogether
        assert.ok(asked.length > 0 && asked.every((r) => !r.tools.includes('Write') && !r.tools.includes('Bash')), JSON.stringify(asked.map((r) => r.tools)));
      } else {
        // codex offers apply_patch, the model calls it, and the read-only sandbox refuses it
        assert.ok(asked.some((r) => r.answered.includes('tool_call(apply_patch')), JSON.stringify(asked.map((r) => r.answered)));
      }
      const mutable = await call(server, 'POST', '/api/orchestrate/dispatch', { virtual: worker('mutable'), task: 'Write the file. scenario:write', wait: true });
      assert.equal(mutable.body.status, 'succeeded', JSON.stringify(mutable.body));
      assert.equal(existsSync(target), true, `the mutable ${name} worker did write (else this test proves nothing)`);
    });
  });
}
