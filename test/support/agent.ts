// A real server whose provider CLIs are the fake CLIs of test/fixtures/fake-clis.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './server.ts';
import type { AgentSettings } from '../../src/agent/settings.ts';
import type { CoreOptions } from '../../src/servers/core.ts';

export const FAKE_CLIS = new URL('../fixtures/fake-clis/', import.meta.url).pathname;

export type Invocation = ReturnType<AgentTestServer['invocations']>[number];

/**
 * What the fake CLIs sharing this state directory were asked, oldest first. A CLI may be writing its
 * line as this reads (the file exists, the line is not complete yet): only complete lines count.
 */
export function readInvocations(stateDir: string): Invocation[] {
  const file = join(stateDir, 'invocations.jsonl');
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Invocation);
}

export interface AgentTestServer extends TestServer {
  stateDir: string;
  invocations(): { provider: string; args: string[]; prompt: string; resume?: string; file: string; pid: number; runToken?: string; cwd: string }[];
}

/** `app`: more options of the server (e.g. `home`, to restart on the data of an earlier one). */
export async function startAgentServer(agent: Partial<AgentSettings> = {}, app: Partial<CoreOptions> = {}): Promise<AgentTestServer> {
  const server = await startServer({ retryBaseMs: 10, killGraceMs: 300, ...app });
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-fake-state-'));
  server.app.services.settings.update({
    agent: {
      executables: { claude: join(FAKE_CLIS, 'claude'), codex: join(FAKE_CLIS, 'codex'), gemini: join(FAKE_CLIS, 'gemini') },
      // the fake codex stands for a logged-in one: svc refuses to start a codex it finds no login for
      env: { FAKE_CLI_STATE: stateDir, CODEX_API_KEY: 'fake-codex-key' },
    },
  });
  // a second patch, so the overrides merge into the defaults above instead of replacing them
  server.app.services.settings.update({ agent });
  return {
    ...server,
    stateDir,
    invocations: () => readInvocations(stateDir),
  };
}

/** Whether a process runs (a zombie, killed but not yet reaped by the system's init, does not). */
export { isPidAlive as isAlive } from '../../src/core/pid.ts';
