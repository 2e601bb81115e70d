// Runs on a model endpoint: what svc adds to a run's start by pointing the CLI at the endpoint for the run only.
// (1) End to end, with the real Claude Code against the fake model: from the message's POST to the CLI's first line
//     (its `system` init), RUNS runs on an endpoint (`local/fake-model`) against RUNS runs on the CLI's own
//     configuration pointing at the same server (the baseline), alternating; p50/p99 each and the p50 difference.
// (2) In process: making the run's request and the CLI's invocation (run-request.ts and each adapter's
//     buildInvocation) with and without the endpoint, per provider that can use one; p50 in microseconds.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapterOf, type ProviderId } from '../src/agent/providers/registry.ts';
import { runRequest, type RunSources } from '../src/agent/run-request.ts';
import { agentSettings } from '../src/agent/settings.ts';
import { startFakeModel } from '../test/support/fake-model.ts';
import { prepareRealCliEnv, realCliPath } from '../test/support/real-clis.ts';
import { sendJson, startServer } from '../test/support/server.ts';
import { nowMs, ratio, summarize } from './support/stats.ts';

const RUNS = Number(process.env.BENCH_RUNS) || 15;

function inProcess(): Record<string, unknown> {
  const endpoint = { id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:11434/v1', key: 'k', toolsWork: true };
  const apis: Record<string, 'openai-chat' | 'openai-responses' | 'anthropic'> = { opencode: 'openai-chat', codex: 'openai-responses', claude: 'anthropic' };
  const out: Record<string, unknown> = {};
  for (const provider of ['opencode', 'codex', 'claude'] as ProviderId[]) {
    const sources: RunSources = { settings: () => agentSettings.defaults, executable: (p) => p, endpoint: () => ({ ...endpoint, api: apis[provider]! }) };
    const time = (model: string) => {
      const samples: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const start = nowMs();
        const request = runRequest({ kind: 'chat', provider, prompt: 'hello', cwd: '/tmp', model }, sources);
        adapterOf(provider).buildInvocation({ ...request, scratchDir: '/tmp/svc-run-x' });
        samples.push((nowMs() - start) * 1000);
      }
      return summarize(samples.slice(200), 1);
    };
    out[provider] = { onEndpointUs: time('local/fake-model'), ownConfigUs: time('fake-model') };
  }
  return out;
}

async function endToEnd(): Promise<Record<string, unknown>> {
  const claude = realCliPath('claude');
  if (!claude) return { skipped: 'claude is not installed: run scripts/install-real-clis.sh' };
  const fake = await startFakeModel();
  const server = await startServer({ retryBaseMs: 10 });
  const { env, cwd } = prepareRealCliEnv('claude', fake.url, mkdtempSync(join(tmpdir(), 'svc-bench-models-')));
  const { ANTHROPIC_BASE_URL: _base, ...bare } = env;
  await sendJson(`${server.url}/api/models/endpoints`, 'POST', { id: 'local', name: 'Local', baseUrl: fake.url, api: 'anthropic', apiKey: 'sk-fake-test' });
  const { bus, settings } = server.app.services;
  const events: { at: number; name: string; payload: Record<string, unknown> }[] = [];
  bus.subscribe((e) => events.push({ at: nowMs(), name: e.name, payload: e.payload }));
  const firstLine = async (model: string, runEnv: Record<string, string>) => {
    settings.update({ agent: { provider: 'claude', model, executables: { claude }, env: runEnv, workingDir: cwd, retries: 0, autoApprove: true } });
    const from = events.length;
    const posted = nowMs();
    await sendJson(`${server.url}/api/message`, 'POST', { prompt: 'hello' });
    const line = events.slice(from).find((e) => e.name === 'provider_line' && e.payload.stream === 'stdout');
    if (!line) throw new Error(`no line from claude (${model})`);
    return line.at - posted;
  };
  const onEndpoint: number[] = [];
  const ownConfig: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      ownConfig.push(await firstLine('fake-model', env));
      onEndpoint.push(await firstLine('local/fake-model', bare));
    }
  } finally {
    await server.close();
    await fake.close();
  }
  const a = summarize(onEndpoint, 1);
  const b = summarize(ownConfig, 1);
  return { runs: RUNS, onEndpointMs: a, ownConfigMs: b, addedP50Ms: Number((a.p50 - b.p50).toFixed(1)), ratioP50: ratio(a.p50, b.p50) };
}

console.log(JSON.stringify({ toFirstLine: await endToEnd(), requestAndInvocation: inProcess() }, null, 2));
