// The executive agent: one provider CLI run per turn, in its own provider session (resumed across
// turns), whose only tools are the executive's operations, given as the svc-ceo MCP server for that
// run. Its lines stream like /api/message's; the person's words and its answers go to the transcript.
import { mkdirSync } from 'node:fs';
import { conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { Attempt } from '../../agent/attempt.ts';
import { describeFailure, type FailureReport, type SettingsPlace } from '../../agent/failures.ts';
import { adapterOf, providerInfo, type ProviderId } from '../../agent/providers/registry.ts';
import { runRequest, type RunSources } from '../../agent/run-request.ts';
import { agentSettings } from '../../agent/settings.ts';
import type { FailureClass } from '../../agent/providers/types.ts';
import type { StreamLine } from '../../protocol/stream-lines.ts';
import type { ExecutiveService } from './executive.service.ts';
import type { ExecutiveRepo } from './executive.repo.ts';
import { CEO_MCP_SERVER, ceoPinEnv } from './mcp-script.ts';
import { executiveInstructions, turnPrompt } from './prompt.ts';
import type { CeoSettings } from './settings.ts';

export interface AgentDeps {
  service: ExecutiveService;
  repo: ExecutiveRepo;
  scope: 'manager' | 'instance';
  settings(): CeoSettings;
  /** The agent's settings and registries its runs' requests are made from (agent/run-request.ts); the manager has none. */
  sources?: RunSources;
  /** The environment of a provider run on this server, before the executive's own variables. */
  baseEnv?(): NodeJS.ProcessEnv;
  /** The path of the MCP script its runs get (ceoMcpScript: written on the first call, not at start). */
  mcpScript(): string;
  /** Where the MCP script calls back: this server's URL and token. */
  selfUrl(): string;
  /** This server's certificate fingerprint when it serves HTTPS: the script pins it (src/core/tls.ts). */
  selfPin?(): string | undefined;
  token: string | null;
  pidDir: string;
  /** Parent of each run's private directory: in svc's home (gemini ignores settings files below a world-writable /tmp). */
  scratchRoot: string;
  /** The runs' working directory: private to the executive (never a project), the same every turn so its CLI can resume. */
  workDir: string;
}

export interface TurnInput {
  text: string;
  instanceId?: string;
  responseMode: 'text' | 'voice' | 'both' | 'silent';
}

/**
 * Why a turn failed, for a person: the chat's wording of the failure (what failed, why) and the command
 * that fixes it, with the executive's own settings named where the chat's would be (its executable and
 * environment are set in the executive's settings, not the agent section).
 */
export function turnFailure(provider: ProviderId, failure: FailureClass, message: string): FailureReport {
  return describeFailure(providerInfo(provider), failure, message, false, EXECUTIVE_SETTINGS);
}

/** On the manager, which has no agent settings: their defaults, and each CLI by its usual name. */
const MANAGER_SOURCES: RunSources = { settings: () => agentSettings.defaults, executable: (provider) => provider };

const EXECUTIVE_SETTINGS: SettingsPlace = { executable: () => "the executive's settings (Executable)", env: "the executive's settings (Environment)" };

export class ExecutiveAgent {
  private busy = false;

  constructor(private readonly d: AgentDeps) {}

  get running(): boolean {
    return this.busy;
  }

  /** Refuses a turn while one runs (before the answer stream opens). */
  admit(): void {
    if (this.busy) throw conflict('EXECUTIVE_BUSY', 'The executive is answering an earlier message; wait for its done line.');
  }

  async turn(input: TurnInput, write: (line: StreamLine) => void): Promise<void> {
    this.admit();
    this.busy = true;
    mkdirSync(this.d.workDir, { recursive: true, mode: 0o700 });
    const traceId = newId('ceo');
    try {
      const settings = this.d.settings();
      const provider = settings.provider;
      this.d.service.say('user', input.text, input.instanceId ?? null);
      const sessionKey = `session:${provider}`;
      const credential = newId('ceorun', 18);
      const attempt = new Attempt(
        {
          adapter: adapterOf(provider),
          request: runRequest(
            {
              kind: 'executive',
              provider,
              prompt: turnPrompt({ text: input.text, instanceId: input.instanceId, pending: this.d.service.pending() }),
              cwd: this.d.workDir,
              executable: settings.executable,
              model: settings.model,
              systemPrompt: executiveInstructions(this.d.scope),
              resumeSessionId: this.d.repo.getValue<string | null>(sessionKey) ?? undefined,
              ownMcpServers: [
                {
                  name: CEO_MCP_SERVER,
                  transport: 'stdio',
                  command: process.execPath,
                  args: [this.d.mcpScript()],
                  env: { SVC_CEO_URL: this.d.selfUrl(), SVC_CEO_RUN: credential, ...(this.d.token ? { SVC_CEO_TOKEN: this.d.token } : {}), ...ceoPinEnv(this.d.selfPin?.()) },
                },
              ],
            },
            this.d.sources ?? MANAGER_SOURCES,
          ),
          env: { ...(this.d.baseEnv?.() ?? process.env), ...settings.env },
          pidDir: this.d.pidDir,
          scratchRoot: this.d.scratchRoot,
          idleTimeoutMs: 120_000,
          maxRunMs: 600_000,
        },
        {
          onEvent: (event) => {
            if (event.kind === 'session') this.d.repo.setValue(sessionKey, event.providerSessionId);
            else if (event.kind === 'text_delta') write({ type: 'text', content: event.text, traceId });
            else if (event.kind === 'step_start') write({ type: 'tool', stepId: event.stepId, name: event.name, input: event.input, status: 'running', traceId });
            else if (event.kind === 'step_end') write({ type: 'tool', stepId: event.stepId, name: event.name, input: {}, status: event.ok ? 'ok' : 'error', ...(event.output !== undefined ? { output: event.output } : {}), traceId });
          },
          onRawLine: () => undefined,
        },
      );
      const outcome = await attempt.done;
      // a provider session the CLI no longer has: the next turn starts a fresh one
      if (outcome.status === 'error' && outcome.failure === 'stale_session') this.d.repo.setValue(sessionKey, null);
      // a failure reads as the chat's do: what failed and why (reason), its class, and the command that fixes it
      const report = outcome.status === 'error' ? turnFailure(provider, outcome.failure, outcome.message) : undefined;
      const reason = report ? report.summary : outcome.status === 'stopped' ? outcome.reason : undefined;
      if (outcome.text) this.d.service.say('executive', outcome.text);
      const audited = outcome.status === 'error' ? `${outcome.failure}: ${outcome.message}` : reason;
      this.d.service.audit('tool', 'turn', outcome.status === 'ok', audited ?? `answered (${input.responseMode})`, input.instanceId ?? null, { provider, responseMode: input.responseMode });
      write({
        type: 'done',
        status: outcome.status,
        text: outcome.text,
        traceId,
        ...(reason ? { reason } : {}),
        ...(report ? { failure: report.failure, ...(report.fix ? { fix: report.fix } : {}) } : {}),
      });
    } finally {
      this.busy = false;
    }
  }
}
