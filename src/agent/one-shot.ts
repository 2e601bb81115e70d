// A short run of a provider CLI outside the chat (e.g. the memory's summaries): one attempt through the
// provider's adapter, its request made as every run's is (run-request.ts: a one-shot run gets no tools and
// approves none), a fresh session that is not kept, and a private temporary working directory, so nothing
// is written into the user's project.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attempt } from './attempt.ts';
import { adapterOf, type ProviderId } from './providers/registry.ts';
import { runRequest, type RunSources } from './run-request.ts';

export interface OneShotOptions {
  sources: RunSources;
  provider: ProviderId;
  model?: string;
  prompt: string;
  env: NodeJS.ProcessEnv;
  pidDir: string;
  /** Parent of the run's private directory (see AttemptOptions.scratchRoot). */
  scratchRoot?: string;
  timeoutMs: number;
}

export interface OneShot {
  /** The answer's text; rejects with the CLI's failure. */
  done: Promise<string>;
  stop(reason: string): void;
}

export function runOnce(options: OneShotOptions): OneShot {
  const cwd = mkdtempSync(join(tmpdir(), 'svc-once-'));
  const attempt = new Attempt(
    {
      adapter: adapterOf(options.provider),
      request: runRequest({ kind: 'one-shot', provider: options.provider, prompt: options.prompt, cwd, model: options.model }, options.sources),
      env: options.env,
      pidDir: options.pidDir,
      scratchRoot: options.scratchRoot,
      idleTimeoutMs: options.timeoutMs,
      maxRunMs: options.timeoutMs,
    },
    { onEvent: () => undefined, onRawLine: () => undefined },
  );
  const done = attempt.done
    .then((outcome) => {
      if (outcome.status === 'ok') return outcome.text;
      throw new Error(outcome.status === 'stopped' ? `stopped: ${outcome.reason}` : `${options.provider} ${outcome.failure}: ${outcome.message}`);
    })
    .finally(() => rmSync(cwd, { recursive: true, force: true }));
  return { done, stop: (reason) => attempt.stop(reason) };
}
