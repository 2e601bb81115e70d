// What the real-CLI permission tests share: a server whose agent is one real CLI against the fake model,
// with auto-approve off (a person answers), and the steps of a case: a new chat, a message whose run is
// awaited, the next permission request, a decision.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../../support/fake-model.ts';
import { prepareRealCliEnv, realCliPath, type RealCliName } from '../../support/real-clis.ts';
import { getJson, sendJson, startServer, type TestServer } from '../../support/server.ts';
import { record, until, type Seen } from '../goals/helpers.ts';

/** The fake model's `write` scenario writes this file into the working directory. */
export const WRITTEN_FILE = 'hello-from-tool.txt';
export const WRITE_PROMPT = 'Write the greeting file. scenario:write';

export const skipWithout = (cli: RealCliName) => (realCliPath(cli) ? false : `${cli} not installed: run scripts/install-real-clis.sh`);

export interface PermissionRig {
  server: TestServer;
  seen: Seen[];
  cwd: string;
  /** The fake model calls its tool only in a conversation's first turn: each case starts a new chat. */
  newChat(title: string): Promise<unknown>;
  /** Sends a message; resolves with the run's last NDJSON line once it has ended. */
  send(prompt: string): Promise<{ type: string; status: string; text: string }>;
  /** The first permission_request published after `mark` (an index into `seen`). */
  nextRequest(mark: number): Promise<any>;
  decide(id: string, body: Record<string, unknown>): ReturnType<typeof sendJson>;
  rules(): Promise<any[]>;
  close(): Promise<void>;
}

export interface RigOptions {
  model?: string;
  /** More environment for the CLI (as a user puts it in agent.env). */
  env?: Record<string, string>;
}

export async function startPermissionRig(cli: RealCliName, options: RigOptions = {}): Promise<PermissionRig> {
  const fake: FakeModel = await startFakeModel();
  const server = await startServer({ retryBaseMs: 10 });
  const seen = record(server.app);
  const prepared = prepareRealCliEnv(cli, fake.url, mkdtempSync(join(tmpdir(), `svc-perm-${cli}-`)));
  // a person is asked: no skipped permissions, so no sandbox flag either
  const { IS_SANDBOX: _sandbox, ...env } = { ...prepared.env, ...options.env };
  server.app.services.settings.update({
    agent: { provider: cli, model: options.model ?? '', executables: { [cli]: realCliPath(cli)! }, env, workingDir: prepared.cwd, retries: 0, autoApprove: false, approvalTimeoutSec: 10 },
  });
  return {
    server,
    seen,
    cwd: prepared.cwd,
    newChat: (title) => sendJson(`${server.url}/api/chat-sessions`, 'POST', { title }),
    send: async (prompt) => {
      const { status, body } = await sendJson(`${server.url}/api/message`, 'POST', { prompt });
      // an NDJSON stream is text; a refused message is a JSON error
      if (typeof body !== 'string') throw new Error(`POST /api/message: ${status} ${JSON.stringify(body)}`);
      return JSON.parse(body.trim().split('\n').at(-1)!);
    },
    nextRequest: (mark) => until(() => seen.slice(mark).find((s) => s.name === 'permission_request')?.payload, 'a permission request', 60_000),
    decide: (id, body) => sendJson(`${server.url}/api/permissions/${id}`, 'POST', body),
    rules: async () => (await getJson(`${server.url}/api/permissions/rules`)).body.rules,
    close: async () => {
      await server.close();
      await fake.close();
    },
  };
}

/** The permission_resolved event of a request. */
export const resolvedOf = (seen: Seen[], id: string) => seen.find((s) => s.name === 'permission_resolved' && s.payload.id === id)!.payload;
