// The real vendor CLIs (installed by scripts/install-real-clis.sh) driven by svc's runtime and
// adapters, against the fake model API on loopback: a plain answer, a tool call, an API error, and
// resume; for Claude Code also a live steer written to its stdin mid-run. Pi reaches the fake model
// through a Pi profile registered with svc's own API (its models.json in svc's Pi directory).
// What each CLI printed and how it exited (the run's raw lines, as its trace keeps them) must also match
// the recordings in shared/protocols (test/support/cli-protocols.ts), where svc runs the CLI in the JSON
// mode of its recordings; Claude Code (stream-json on stdin) and Copilot (ACP) are checked with their
// recorded command lines in test/agent/providers/real-cli-protocols.test.ts.
import { test, describe, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel, type FakeModel } from '../support/fake-model.ts';
import { checkResumed, checkScenario, type CliRun, type Scenario } from '../support/cli-protocols.ts';
import { PI_TEST_RETRY, prepareRealCliEnv, realCliPath, type RealCliName } from '../support/real-clis.ts';
import { homePaths } from '../../src/core/home.ts';
import { sendJson, startServer, type TestServer } from '../support/server.ts';
import { postNdjson } from '../support/ndjson.ts';
import { openSse } from '../support/sse.ts';

// OpenCode first: its runs cost the most (~6 s of CPU each), so its chain of runs starts at once
const CLIS: RealCliName[] = ['opencode', 'gemini', 'pi', 'codex', 'claude', 'copilot'];
/** The CLIs svc runs in the JSON mode of their recordings, whose raw output the protocol checks read. */
const PROTOCOL_CHECKED: RealCliName[] = ['codex', 'gemini', 'opencode', 'pi'];
// pi names no model: it must use the profile svc registered as its default (its own default is google)
const MODEL: Partial<Record<RealCliName, string>> = { gemini: 'gemini-2.5-flash' };

/** Pi's model endpoint, registered the way a user does it; pi runs read svc's Pi directory, not the prepared one. */
async function registerPiProfile(server: TestServer, fake: FakeModel): Promise<void> {
  const res = await sendJson(`${server.url}/api/pi/profiles/register`, 'POST', {
    id: 'fake', label: 'Fake model', mode: 'openai', endpoint: `${fake.url}/v1`, model: 'fake-model', apiKey: 'sk-fake-test',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // pi's own retries cut short, beside the default svc wrote
  const settingsFile = join(homePaths(server.home).piAgent, 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  assert.deepEqual([settings.defaultProvider, settings.defaultModel], ['fake', 'fake-model']);
  writeFileSync(settingsFile, JSON.stringify({ ...settings, retry: PI_TEST_RETRY }));
}

async function serverFor(name: RealCliName, fake: FakeModel): Promise<TestServer> {
  const server = await startServer({ retryBaseMs: 10, killGraceMs: 500 });
  const { env, cwd } = prepareRealCliEnv(name, fake.url, mkdtempSync(join(tmpdir(), `svc-real-${name}-`)));
  if (name === 'pi') {
    // Only svc's own Pi directory (PI_CODING_AGENT_DIR of its runs) may know the fake model.
    rmSync(env['PI_CODING_AGENT_DIR']!, { recursive: true });
    await registerPiProfile(server, fake);
  }
  server.app.services.settings.update({
    agent: {
      provider: name,
      model: MODEL[name] ?? '',
      executables: { [name]: realCliPath(name)! },
      env,
      workingDir: cwd,
      retries: 0,
      idleTimeoutSec: 90,
    },
  });
  return server;
}

// Three CLIs at a time: each has its own server, fake model and home, and spends much of a run waiting (the two
// real-CLI files took 193 s of the runner's time at three, 221 s at two, for the same CPU).
// A CLI's own tests run one after the other (they share its server and chat).
describe('the real CLIs through svc, three at a time', { concurrency: 3 }, () => {
  for (const name of CLIS) {
    describe(`real ${name} through svc`, { concurrency: 1, skip: realCliPath(name) ? false : `${name} not installed: run scripts/install-real-clis.sh` }, () => {
      let fake: FakeModel;
      let server: TestServer;
      before(async () => {
        fake = await startFakeModel();
        server = await serverFor(name, fake);
      });
      after(async () => {
        await server.close();
        await fake.close();
      });

      /** A run through svc, with what the CLI printed on stdout and how it exited, as the run's trace keeps them. */
      const send = async (prompt: string) => {
        const raw = new Map<string, { out: string[]; err: string[]; exit?: { code: number | null; signal: string | null } }>();
        const stop = server.app.services.bus.subscribe((e) => {
          const traceId = String(e.payload['traceId']);
          if (e.name !== 'provider_line' && e.name !== 'provider_exit') return;
          const entry = raw.get(traceId) ?? raw.set(traceId, { out: [], err: [] }).get(traceId)!;
          if (e.name === 'provider_exit') entry.exit = { code: e.payload['code'] as number | null, signal: e.payload['signal'] as string | null };
          else (e.payload['stream'] === 'stdout' ? entry.out : entry.err).push(String(e.payload['line']));
        });
        const requestsBefore = fake.modelRequests().length;
        try {
          const lines = await (await postNdjson(`${server.url}/api/message`, { prompt })).done;
          const done = lines.at(-1);
          const entry = raw.get(done.traceId) ?? { out: [], err: [] };
          const cli: CliRun = {
            code: entry.exit?.code ?? null,
            signal: entry.exit?.signal ?? null,
            timedOut: false,
            stdout: entry.out.join('\n'),
            stderr: entry.err.join('\n'),
            lines: entry.out.flatMap((l) => {
              try {
                return [JSON.parse(l)];
              } catch {
                return [];
              }
            }),
          };
          return { lines, done, cli, modelRequests: fake.modelRequests().slice(requestsBefore) };
        } finally {
          stop();
        }
      };
      /** The protocol checks of a run, for a CLI svc runs in the JSON mode of its recordings. */
      const checkProtocol = (scenario: Scenario, run: Awaited<ReturnType<typeof send>>, t: TestContext) => {
        if (PROTOCOL_CHECKED.includes(name)) checkScenario(name, scenario, run.cli, run.modelRequests, t);
      };
      /** A fresh chat session, so the fake model sees no earlier prompt (it would answer "Hello again"). */
      const newChat = () => sendJson(`${server.url}/api/chat-sessions`, 'POST', {});

      test('a plain answer, then resume in the same provider session', { timeout: 120_000 }, async (t) => {
        const first = await send('Remember the secret word pineapple. scenario:text');
        assert.equal(first.done.status, 'ok', JSON.stringify(first.done));
        assert.match(first.done.text, /Hello from the fake model/);
        assert.ok(first.lines.some((l) => l.type === 'text'), 'live text chunks');
        checkProtocol('text', first, t);
        const providerSession = server.app.services.providerSessions.get(server.app.services.chat.activeSession().id, name);
        assert.ok(providerSession, 'provider session id kept');
        const second = await send('What was the secret word? scenario:text');
        assert.equal(second.done.status, 'ok', JSON.stringify(second.done));
        assert.match(second.done.text, /Hello again/, 'the model saw the earlier prompt: the session was resumed');
        if (PROTOCOL_CHECKED.includes(name)) checkResumed(name, first.cli, second.cli);
      });

      test('a tool call runs and its result comes back', { timeout: 120_000 }, async (t) => {
        await newChat();
        const run = await send('Run the tool please. scenario:tool');
        const { done, lines } = run;
        assert.equal(done.status, 'ok', JSON.stringify(done));
        const tools = lines.filter((l) => l.type === 'tool');
        assert.ok(tools.some((t) => t.status === 'running'), `tool start: ${JSON.stringify(lines).slice(0, 1500)}`);
        assert.ok(tools.some((t) => t.status === 'ok' && /hello-from-tool/.test(t.output ?? '')), JSON.stringify(tools));
        assert.match(done.text, /hello-from-tool/);
        checkProtocol('tool', run, t);
      });

      test('an API error ends the run with a classified error', { timeout: 120_000 }, async (t) => {
        await newChat();
        const run = await send('This will fail. scenario:error');
        const { done } = run;
        assert.equal(done.status, 'error', JSON.stringify(done));
        assert.equal(done.failure, 'server_error');
        assert.match(done.reason, /model service answered with an error/);
        checkProtocol('error', run, t);
      });
    });
  }
});

describe('real claude: live steer over stream-json stdin', { skip: realCliPath('claude') ? false : 'claude not installed: run scripts/install-real-clis.sh' }, () => {
  test('the steer prompt reaches the same running process', { timeout: 120_000 }, async (t) => {
    const fake = await startFakeModel({ slowDelayMs: 150, slowChunks: 20 });
    const server = await serverFor('claude', fake);
    const sse = await openSse(`${server.url}/api/events`);
    t.after(async () => {
      sse.close();
      await server.close();
      await fake.close();
    });
    const run = await postNdjson(`${server.url}/api/message`, { prompt: 'Tell a long story. scenario:slow' });
    await run.waitFor((l) => l.type === 'text', 60_000);
    const steer = await postNdjson(`${server.url}/api/command`, { text: '/steer Now answer briefly. scenario:text' });
    const [lines, steerLines] = await Promise.all([run.done, steer.done]);
    const done = lines.at(-1);
    assert.equal(done.status, 'ok', JSON.stringify(done));
    assert.equal(steerLines.at(-1).traceId, done.traceId, 'the steer joined the running run');
    const started = sse.messages.find((m) => m.data.event === 'steer_started')!.data;
    assert.equal(started.traceId, done.traceId);
    const modelCalls = fake.requests.filter((r) => r.api === 'anthropic');
    assert.ok(modelCalls.some((r) => /Now answer briefly/.test(r.lastUser ?? '')), 'the model received the steer prompt');
    assert.match(done.text, /Hello again/);
  });
});

describe('real pi: a session resumed from another working directory', { skip: realCliPath('pi') ? false : 'pi not installed: run scripts/install-real-clis.sh' }, () => {
  test('pi would ask whether to fork it; svc starts a fresh Pi session instead', { timeout: 120_000 }, async (t) => {
    const fake = await startFakeModel();
    const server = await serverFor('pi', fake);
    const sse = await openSse(`${server.url}/api/events`);
    t.after(async () => {
      sse.close();
      await server.close();
      await fake.close();
    });
    const send = async (prompt: string) => (await postNdjson(`${server.url}/api/message`, { prompt })).done;
    assert.equal((await send('Remember the secret word pineapple. scenario:text')).at(-1).status, 'ok');
    const first = server.app.services.providerSessions.get(server.app.services.chat.activeSession().id, 'pi');
    const otherDir = mkdtempSync(join(tmpdir(), 'svc-real-pi-other-'));
    t.after(() => rmSync(otherDir, { recursive: true, force: true }));
    server.app.services.settings.update({ agent: { workingDir: otherDir } });
    const done = (await send('What was the secret word? scenario:text')).at(-1);
    assert.equal(done.status, 'ok', JSON.stringify(done));
    assert.match(done.text, /^Hello from the fake model/, 'a fresh session: the model saw no earlier prompt');
    assert.ok(sse.messages.some((m) => m.data.event === 'agent_retry' && m.data.failure === 'stale_session'), 'the stale session was reported');
    const second = server.app.services.providerSessions.get(server.app.services.chat.activeSession().id, 'pi');
    assert.ok(second && second !== first, 'the new Pi session is kept');
  });
});
