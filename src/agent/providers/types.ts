// The contract between the runner (which owns processes) and the provider adapters (which only
// build command lines and turn output lines into normalized events). Adapters do no I/O: every
// function here is deterministic given its arguments, so each adapter is tested line by line
// against recorded real CLI output (test/fixtures/protocols/).

/** Why a run failed, from the CLI's structured output first and its stderr last. */
export type FailureClass =
  | 'rate_limit' // HTTP 429 or the provider's own quota signal: worth a retry later or another provider
  | 'overloaded' // 529/503 capacity: retry or fall back
  | 'server_error' // 5xx from the model API
  | 'auth' // missing/invalid credentials: retrying will not help
  | 'stale_session' // the resume id is unknown to the CLI: start a fresh session
  | 'cli_missing' // the executable is not installed (set by the runner, never by a parser)
  | 'timeout' // watchdog: no output / too long (set by the runner)
  | 'crash' // non-zero exit without a structured error
  | 'invalid_request' // 4xx other than 429/401/403: the request itself is wrong
  | 'network' // the CLI could not reach its model service for longer than svc waits (set by the runner)
  | 'unknown';

export type { StepKind } from '../../protocol/events.ts';
import type { EndpointApi } from '../../protocol/models-text.ts';
import type { RunMcpServer } from '../../protocol/mcp.ts';
import type { RunSkill } from '../../protocol/skills.ts';
import type { StepKind } from '../../protocol/events.ts';

export type NormalizedEvent =
  /** The provider's own session/thread id (for resume) and the model it actually used. */
  | { kind: 'session'; providerSessionId: string; model?: string }
  /**
   * A live fragment of the assistant's visible answer. The final answer is the concatenation of
   * all text deltas of the run unless a `result` event carries an authoritative `text`. Adapters
   * insert the separator ("\n\n") themselves between separate text blocks.
   */
  | { kind: 'text_delta'; text: string }
  /** A complete thinking/reasoning block (adapters buffer deltas until the block ends). */
  | { kind: 'thinking'; text: string }
  /** A step started: a tool call, a shell command, a search, a sub-agent. `input` is always an object. */
  | { kind: 'step_start'; stepId: string; name: string; step: StepKind; input: Record<string, unknown> }
  /** The step with the same `stepId` finished. `output` is bounded by the runner, not by adapters. */
  | { kind: 'step_end'; stepId: string; name: string; ok: boolean; output?: string; exitCode?: number }
  /** Token usage and cost as the CLI reports them; several usage events in a run are summed. */
  | {
      kind: 'usage';
      inputTokens?: number;
      outputTokens?: number;
      cachedTokens?: number;
      reasoningTokens?: number;
      costUsd?: number;
    }
  /**
   * The CLI is retrying a model call on its own (informational), or, `offline`, waiting for the network
   * to come back: the runner stops a CLI that says nothing else for longer than it allows.
   */
  | { kind: 'provider_retry'; attempt?: number; reason: string; delayMs?: number; offline?: boolean }
  /** A structured error from the CLI. The run is not over until `result` or process exit. */
  | { kind: 'error'; failure: FailureClass; message: string; httpStatus?: number }
  /**
   * The CLI asks whether it may run a tool (only when the request says `askPermissions`): the run holds
   * the call until the runner answers it with the adapter's `answerPermission`. `requestId` is the CLI's
   * own id for the question.
   */
  | { kind: 'permission_request'; requestId: string; tool: string; input: Record<string, unknown>; description?: string }
  /**
   * The CLI's terminal line for this turn. `ok:false` carries the failure. `text` is the authoritative
   * final answer when the CLI prints one (Claude's `result.result`).
   */
  | { kind: 'result'; ok: boolean; text?: string; failure?: FailureClass; message?: string };

/** A person's answer to a permission request: run the tool (as asked, or with changed input), or not and why. */
export type PermissionAnswer = { allow: true; input?: Record<string, unknown> } | { allow: false; reason: string };

export interface InvocationRequest {
  prompt: string;
  /** Working directory of the run (the user's project). Adapters never write files into it. */
  cwd: string;
  /** Resolved executable path or bare command name. */
  executable: string;
  model?: string;
  effort?: string;
  /** Passed the way the CLI accepts it (flag, env, or a file under `scratchDir`), never via the project. */
  systemPrompt?: string;
  /** The provider session to continue; absent for a fresh session. */
  resumeSessionId?: string;
  /** Auto-approve tool use (unattended runs). */
  autoApprove: boolean;
  /**
   * Without auto-approve: a person answers the CLI's permission requests (the runner has someone to ask).
   * An adapter whose CLI has a programmatic channel for them (`answerPermission`) opens it; the others run
   * under the CLI's own rules, which an unattended run cannot answer.
   */
  askPermissions?: boolean;
  /**
   * The run may not change files: enforced with the CLI's own permission mode or sandbox (autoApprove is
   * then ignored). An adapter that cannot enforce it throws from buildInvocation.
   */
  readOnly?: boolean;
  /**
   * The run acts only through its MCP servers: the CLI's own shell, file-writing and web tools are
   * removed where the CLI allows it (what each allows: docs/executive.md).
   */
  mcpOnly?: boolean;
  /** A private per-run directory the runner creates and deletes; adapters may name files in it. */
  scratchDir: string;
  /**
   * Why a file in `scratchDir` is not root-only (owned by root, in directories only root may write to, all
   * the way up: agent/run-dir.ts); absent when it is. A CLI that reads a settings file only from such a place
   * (Gemini's system settings layer) would skip one written there.
   */
  scratchNotRootOnly?: string;
  /**
   * The MCP servers this run gets (enabled, meant for this provider, secrets resolved). Each adapter
   * passes them through its CLI's own per-run mechanism (a flag, a file under `scratchDir`, an
   * environment variable), never through the user's config files.
   */
  mcpServers?: readonly RunMcpServer[];
  /** The enabled skills that have a directory (all providers are told about them in the system prompt). */
  skills?: readonly RunSkill[];
  /** Extra arguments from settings (provider-specific), appended verbatim. */
  extraArgs?: string[];
  /** For the `custom` provider: the command template (see custom.ts). */
  commandTemplate?: string[];
  /**
   * A model server the user runs (a model endpoint, docs/models.md): `model` is then that server's model id, and
   * the adapter points its CLI at the server for this run only (a flag, an environment variable or an inline
   * config), never through the user's config files.
   */
  endpoint?: RunEndpoint;
  /** Why this run cannot start (a model endpoint its provider cannot use): it fails at once with this, no CLI started. */
  refusal?: string;
}

/** What a run needs of a model endpoint. */
export interface RunEndpoint {
  id: string;
  name: string;
  baseUrl: string;
  api: EndpointApi;
  /** Its key, when it has one (resolved from its variable already). */
  key?: string;
}

export interface Invocation {
  command: string;
  args: string[];
  /** Variables to set (merged over the service's environment by the runner); `undefined` removes one. */
  env: Record<string, string | undefined>;
  /** Files the runner writes before spawning (paths inside `scratchDir`). */
  files?: { path: string; content: string; mode?: number }[];
  /** Symbolic links the runner makes before spawning (`path` inside `scratchDir`, pointing at `target`). */
  links?: { path: string; target: string }[];
  /**
   * What the run goes without, for people (e.g. MCP servers the CLI could not be given): the runner shows
   * each as a failed step named `name` before the CLI starts, so that nothing is dropped unseen.
   */
  notices?: { name: string; message: string }[];
  /**
   * How stdin is used:
   * - `close`: nothing is written; stdin is closed at once.
   * - `write-close`: `stdinText` is written, then stdin is closed.
   * - `interactive`: stdin stays open; the adapter's `start`/`parseLine` results say what to write and when to close.
   */
  stdin: 'close' | 'write-close' | 'interactive';
  stdinText?: string;
}

/** What an adapter wants done after reading one line (or at start). */
export interface AdapterOutput {
  events: NormalizedEvent[];
  /** Lines to write to the CLI's stdin (each is sent followed by "\n"). Only for `interactive` stdin. */
  writes?: string[];
  /** Close stdin after the writes (e.g. the turn is complete and nothing else will be sent). */
  closeStdin?: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** The tail of stderr (bounded by the runner). */
  stderr: string;
}

export interface ProviderAdapter<State = unknown> {
  /** The provider's id in the registry (providers/registry.ts). */
  readonly id: string;
  readonly displayName: string;
  /** How a steer prompt reaches a running agent: written live to stdin, or by interrupt + resume. */
  readonly steerMode: 'live' | 'interrupt-resume';
  buildInvocation(req: InvocationRequest): Invocation;
  initialState(req: InvocationRequest): State;
  /** Lines to write once the process is spawned (interactive stdin only). */
  start?(state: State, req: InvocationRequest): AdapterOutput;
  /** One line of stdout, without its trailing newline. Malformed lines must not throw. */
  parseLine(state: State, line: string): AdapterOutput;
  /** The stdout line as the run's trace keeps it (default: as printed), for CLIs that repeat bulky state on every line. */
  traceLine?(line: string): string;
  /** Live steer (steerMode 'live'): what to write to stdin to inject `prompt`. */
  steer?(state: State, prompt: string): AdapterOutput;
  /**
   * The CLI has a programmatic channel for tool permissions: what to write to answer the request it
   * made (a `permission_request` event). Absent: the CLI cannot ask (see docs/approvals.md).
   */
  answerPermission?(state: State, requestId: string, answer: PermissionAnswer): AdapterOutput;
  /**
   * Called once after the process exited. Returns the closing events, including a `result` when the
   * output had none: the outcome is decided from the structured output first, the exit status next,
   * and stderr text last.
   */
  finish(state: State, exit: ExitInfo): NormalizedEvent[];
}

/**
 * For a CLI whose every place for a login svc can see (its info's `credentials`: keys in the
 * environment, login files): the configuration that can take it elsewhere (another model endpoint,
 * a keyring), where svc then cannot tell. Where nothing takes it elsewhere and no login is found, a
 * run cannot succeed, and svc ends it at once with the login command instead of starting the CLI
 * (codex without a login and without a network waits for the network for ever).
 */
export interface LoginCheck {
  /** The configuration files the CLI reads, absolute, for this environment and working directory. */
  configFiles(where: { home: string; env: Readonly<Record<string, string | undefined>>; cwd: string }): string[];
  /** What in one of them takes the login out of svc's sight (the setting, for people), or undefined. */
  elsewhere(config: string): string | undefined;
}
