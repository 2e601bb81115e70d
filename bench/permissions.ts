// Tool permissions answered by a person, with the real Claude Code against the fake model
// (`scenario:write`): (1) from the CLI printing its permission request to svc's `permission_request`
// event, (2) from a person's decision (POST /api/permissions/:id) to the CLI going on (its tool result
// line), and, as the baseline in the same run, (3) the same CLI with the tool allowed up front, from
// its tool call to its tool result. p50/p99 over RUNS runs each, alternating. Needs claude from
// scripts/install-real-clis.sh (otherwise it says so and measures nothing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModel } from '../test/support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../test/support/real-clis.ts';
import { sendJson, startServer } from '../test/support/server.ts';
import { nowMs, ratio, summarize } from './support/stats.ts';

const RUNS = Number(process.env.BENCH_RUNS) || 15;

async function main() {
  const claude = realCliPath('claude');
  if (!claude) return { skipped: 'claude is not installed: run scripts/install-real-clis.sh' };
  const fake = await startFakeModel();
  const server = await startServer({ retryBaseMs: 10 });
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-bench-perm-')));
  const { IS_SANDBOX: _sandbox, ...askEnv } = env;
  const { bus, settings } = server.app.services;
  // every bus event with the time it was published, in this process
  const events: { at: number; name: string; payload: any }[] = [];
  bus.subscribe((e) => events.push({ at: nowMs(), name: e.name, payload: e.payload }));
  const lineAt = (from: number, traceId: string, pattern: RegExp) =>
    events.slice(from).find((e) => e.name === 'provider_line' && e.payload.traceId === traceId && e.payload.stream === 'stdout' && pattern.test(e.payload.line));
  const until = async <T>(get: () => T | undefined, what: string): Promise<T> => {
    const end = Date.now() + 60_000;
    for (;;) {
      const value = get();
      if (value !== undefined) return value;
      if (Date.now() > end) throw new Error(`no ${what}`);
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  const toolCall = /"type":"assistant".*"tool_use"/;
  const toolResult = /"type":"user".*"tool_result"/;
  const requestToEvent: number[] = [];
  const decisionToContinue: number[] = [];
  const allowedUpFront: number[] = [];
  const heldCallToResult: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['ask', 'up-front'] as const) {
        rmSync(join(cwd, 'hello-from-tool.txt'), { force: true });
        // a new chat each time: the fake model calls its tool in a conversation's first turn
        await sendJson(`${server.url}/api/chat-sessions`, 'POST', { title: `${mode} ${i}` });
        settings.update({ agent: { provider: 'claude', executables: { claude }, env: mode === 'ask' ? askEnv : env, workingDir: cwd, retries: 0, autoApprove: mode === 'up-front' } });
        const from = events.length;
        const done = sendJson(`${server.url}/api/message`, 'POST', { prompt: 'Write the greeting file. scenario:write' });
        const traceId = await until(() => events.slice(from).find((e) => e.name === 'agent_status')?.payload.traceId as string | undefined, 'run');
        if (mode === 'ask') {
          const asked = await until(() => events.slice(from).find((e) => e.name === 'permission_request'), 'permission request');
          const line = lineAt(from, traceId, /"control_request"/)!;
          requestToEvent.push(asked.at - line.at);
          const decidedAt = nowMs();
          await sendJson(`${server.url}/api/permissions/${asked.payload.id}`, 'POST', { decision: 'allow' });
          const result = await until(() => lineAt(from, traceId, toolResult), 'tool result');
          decisionToContinue.push(result.at - decidedAt);
          const call = lineAt(from, traceId, toolCall)!;
          heldCallToResult.push(result.at - call.at - (decidedAt - asked.at));
        } else {
          const result = await until(() => lineAt(from, traceId, toolResult), 'tool result');
          allowedUpFront.push(result.at - lineAt(from, traceId, toolCall)!.at);
        }
        await done;
      }
    }
  } finally {
    await server.close();
    await fake.close();
  }
  const upFront = summarize(allowedUpFront);
  const held = summarize(heldCallToResult);
  return {
    runs: RUNS,
    cliRequestToEventMs: summarize(requestToEvent),
    decisionToCliContinuesMs: summarize(decisionToContinue),
    toolCallToResultMs: { allowedUpFront: upFront, heldForAPersonMinusTheWait: held, ratioP50: ratio(held.p50, upFront.p50) },
  };
}

console.log(JSON.stringify(await main(), null, 2));
