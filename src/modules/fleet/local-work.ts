// How svc serve runs an item of its fleet's work queue (work-runner.ts): whether it can (the provider ready here, the
// directory here), and the run itself, a chat run in a session of its own, so the item's conversation is there to
// read on this machine as any other.
import { existsSync, statSync } from 'node:fs';
import { isProviderId, type ProviderId } from '../../agent/providers/registry.ts';
import type { CliStatus } from '../../protocol/providers.ts';
import type { RunSink } from '../../protocol/stream-lines.ts';
import type { WorkMessage } from '../../protocol/fleet.ts';
import type { FleetSettings } from './fleet.settings.ts';
import type { WorkOutcome, WorkRunnerOptions } from './work-runner.ts';

export interface LocalWorkDeps {
  /** This svc serve's key on its machine. */
  instance: string;
  settings(): { fleet: FleetSettings; agent: { provider: string } };
  providers(): Promise<Record<string, CliStatus>>;
  createSession(title: string): { id: string };
  submit(input: { prompt: string; sessionId: string; provider?: ProviderId; model?: string; workingDir?: string; requestId: string; sink: RunSink }): void;
}

/** Why a provider cannot run here, from its detected status; undefined when it can. Pure. */
export function providerNotReady(provider: string, status: CliStatus | undefined): string | undefined {
  if (!status || status.state !== 'ready') return `${provider} is still being detected here`;
  if (!status.installed) return `${provider} is not installed here`;
  if (status.credentials.state === 'missing') return `${provider} has no login here`;
  return undefined;
}

export function localWork(d: LocalWorkDeps): Omit<WorkRunnerOptions, 'connection' | 'machineId'> {
  const providerOf = (item: WorkMessage) => item.provider ?? d.settings().agent.provider;
  return {
    instance: d.instance,
    slots: () => (d.settings().fleet.acceptWork ? d.settings().fleet.workAtOnce : 0),
    async cannotRun(item) {
      const provider = providerOf(item);
      if (!isProviderId(provider)) return `${provider} is not a provider svc knows`;
      const why = providerNotReady(provider, (await d.providers())[provider]);
      if (why) return why;
      if (item.workingDir && !(existsSync(item.workingDir) && statSync(item.workingDir).isDirectory())) return `${item.workingDir} is not a directory here`;
      return undefined;
    },
    run(item, requestId) {
      const title = `Work: ${item.prompt.split('\n', 1)[0]!.slice(0, 60)}`;
      return new Promise<WorkOutcome>((resolve) => {
        const sink: RunSink = {
          write(line) {
            if (line.type !== 'done') return;
            resolve(line.status === 'ok' ? { status: 'succeeded', answer: line.text, reason: null } : { status: 'failed', answer: null, reason: line.reason ?? `the run ended ${line.status}` });
          },
          end: () => resolve({ status: 'failed', answer: null, reason: 'the run ended without an answer' }),
        };
        const provider = providerOf(item) as ProviderId;
        d.submit({ prompt: item.prompt, sessionId: d.createSession(title).id, provider, ...(item.model ? { model: item.model } : {}), ...(item.workingDir ? { workingDir: item.workingDir } : {}), requestId, sink });
      });
    },
  };
}
