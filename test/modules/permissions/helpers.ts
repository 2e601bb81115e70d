// What the real-CLI permission tests share: a server whose agent is one real CLI against the fake model,
// with auto-approve off (a person answers), the steps of a case (a new chat, a message whose run is awaited,
// the next permission request, a decision), and the cases every CLI with a channel goes through: held then
// denied, allowed, timed out, remembered for the session.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
  /** Requests made meanwhile wait `ms` for a person instead of agent.approvalTimeoutSec (its minimum is 10 s). */
  nobodyAnswersWithin<T>(ms: number, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface RigOptions {
  model?: string;
  /** More environment for the CLI (as a user puts it in agent.env). */
  env?: Record<string, string>;
}

export async function startPermissionRig(cli: RealCliName, options: RigOptions = {}): Promise<PermissionRig> {
  const fake: FakeModel = await startFakeModel();
  let approvalTimeoutMs: number | undefined;
  const server = await startServer({ retryBaseMs: 10, approvalTimeoutMs: () => approvalTimeoutMs });
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
    nobodyAnswersWithin: async (ms, work) => {
      approvalTimeoutMs = ms;
      try {
        return await work();
      } finally {
        approvalTimeoutMs = undefined;
      }
    },
    close: async () => {
      await server.close();
      await fake.close();
    },
  };
}

/** The permission_resolved event of a request. */
export const resolvedOf = (seen: Seen[], id: string) => seen.find((s) => s.name === 'permission_resolved' && s.payload.id === id)!.payload;

/** A call held for a person: its permission request, and the run's end (once it is answered). */
export interface HeldCall {
  asked: any;
  done: Promise<RunEnd>;
}

export type RunEnd = Awaited<ReturnType<PermissionRig['send']>>;

/** In a new chat, the write (or `prompt`) held for a person: the file is not there yet. */
export async function holdWrite(rig: PermissionRig, title: string, prompt = WRITE_PROMPT): Promise<HeldCall> {
  rmSync(writtenFile(rig), { force: true });
  await rig.newChat(title);
  const mark = rig.seen.length;
  const done = rig.send(prompt);
  const asked = await rig.nextRequest(mark);
  assert.equal(existsSync(writtenFile(rig)), false, 'held: the tool has not run');
  return { asked, done };
}

export const writtenFile = (rig: PermissionRig) => join(rig.cwd, WRITTEN_FILE);

/** A held call's end once a person or the timeout denied it: the run ends, nothing written, resolved `by`. */
export async function deniedEnd(rig: PermissionRig, { asked, done }: HeldCall, by: 'person' | 'timeout'): Promise<RunEnd> {
  const answer = await done;
  assert.equal(answer.status, 'ok');
  assert.equal(existsSync(writtenFile(rig)), false);
  const resolved = resolvedOf(rig.seen, asked.id);
  assert.deepEqual([resolved.decision, resolved.by], ['deny', by]);
  return answer;
}

/** Held, allowed by a person: the file lands. */
export async function allowedWrite(rig: PermissionRig): Promise<void> {
  const { asked, done } = await holdWrite(rig, 'allow');
  assert.equal((await rig.decide(asked.id, { decision: 'allow' })).status, 200);
  assert.equal((await done).status, 'ok');
  assert.equal(existsSync(writtenFile(rig)), true, 'the tool ran');
}

/**
 * Allowed for the session: the same call in the same chat session (a fresh conversation with the CLI, so
 * the model calls the tool again) is answered by the rule, not asked. Resolves with the rules.
 */
export async function rememberedForSession(rig: PermissionRig): Promise<{ asked: any; rules: any[] }> {
  const { asked, done } = await holdWrite(rig, 'remember');
  assert.equal((await rig.decide(asked.id, { decision: 'allow', remember: 'session' })).status, 200);
  await done;
  const rules = await rig.rules();
  rmSync(writtenFile(rig), { force: true });
  assert.equal((await sendJson(`${rig.server.url}/api/session/reset`, 'POST', {})).status, 200);
  const mark = rig.seen.length;
  assert.equal((await rig.send('Write the greeting file again. scenario:write')).status, 'ok');
  assert.equal(existsSync(writtenFile(rig)), true, 'written again');
  assert.equal(rig.seen.slice(mark).filter((s) => s.name === 'permission_request').length, 0, 'not asked a second time');
  return { asked, rules };
}
