// Helpers to run the REAL vendor CLIs (installed by scripts/install-real-clis.sh into .cache/real-clis)
// against the fake model server, with exactly the environment and config files that
// shared/protocols/README.md (and docs/protocols/pi.md for pi) documents: a private HOME/TMPDIR/work dir
// and a minimal env (PATH only, plus the CLI's own variables).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type RealCliName = 'claude' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'pi';
export const REAL_CLIS: RealCliName[] = ['claude', 'codex', 'gemini', 'opencode', 'copilot', 'pi'];

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REAL_CLIS_DIR = join(PROJECT_ROOT, '.cache', 'real-clis');

/** Path of the installed CLI's bin, or null when it is not installed. */
export function realCliPath(name: RealCliName): string | null {
  const p = join(REAL_CLIS_DIR, 'node_modules', '.bin', name);
  return existsSync(p) ? p : null;
}

export interface RealCliEnv {
  env: Record<string, string>;
  cwd: string;
  home: string;
  tmp: string;
}

export interface PrepareOptions {
  /** copilot only: which wire API its BYOK provider uses (default `completions`). */
  copilotWireApi?: 'completions' | 'responses' | 'anthropic';
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Pi's model of the fake server: an OpenAI-compatible provider `fake` in its agent dir's models.json. */

/**
 * Pi's settings.json for tests: the fake provider by default, and one agent-level retry after 100 ms with
 * no SDK retries (pi's defaults, 3 retries 2/4/8 s apart and 2 SDK retries each, make a failing run take 16 s).
 */
export function writePiSettings(agentDir: string): void {
  write(join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model', retry: PI_TEST_RETRY }, null, 2));
}

/** One agent-level retry after 100 ms, no SDK retries. */
export const PI_TEST_RETRY = { maxRetries: 1, baseDelayMs: 100, provider: { maxRetries: 0 } };

/**
 * Creates `<runDir>/{home,tmp,work}` and the CLI's config files, and returns the env to run it with.
 * Calling it again with the same runDir (for a resume) keeps what the first run left in HOME.
 */
export function prepareRealCliEnv(name: RealCliName, fakeUrl: string, runDir: string, opts: PrepareOptions = {}): RealCliEnv {
  const home = join(runDir, 'home');
  const tmp = join(runDir, 'tmp');
  const cwd = join(runDir, 'work');
  for (const d of [home, tmp, cwd]) mkdirSync(d, { recursive: true });
  const url = fakeUrl.replace(/\/+$/, '');
  const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: tmp };

  switch (name) {
    case 'claude':
      Object.assign(env, {
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: 'sk-ant-fake-test',
        IS_SANDBOX: '1', // we run as root: --dangerously-skip-permissions refuses root without it
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_MAX_RETRIES: '2',
      });
      break;
    case 'codex': {
      const codexHome = join(home, '.codex');
      write(
        join(codexHome, 'config.toml'),
        [
          'model = "gpt-5.5"',
          'model_provider = "fake"',
          'check_for_update_on_startup = false',
          'approval_policy = "never"',
          'sandbox_mode = "danger-full-access"',
          '',
          '[model_providers.fake]',
          'name = "Fake"',
          `base_url = "${url}/v1"`,
          'env_key = "FAKE_OPENAI_API_KEY"',
          'wire_api = "responses"',
          'request_max_retries = 1',
          'stream_max_retries = 1',
          'stream_idle_timeout_ms = 30000',
          '',
          '[analytics]',
          'enabled = false',
          '',
          '[feedback]',
          'enabled = false',
          '',
        ].join('\n'),
      );
      Object.assign(env, { CODEX_HOME: codexHome, FAKE_OPENAI_API_KEY: 'sk-fake-test' });
      break;
    }
    case 'gemini':
      write(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify(
          {
            security: { auth: { selectedType: 'gemini-api-key' } },
            general: { maxAttempts: 2, enableAutoUpdate: false, enableAutoUpdateNotification: false },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
          },
          null,
          2,
        ),
      );
      Object.assign(env, { GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: url });
      break;
    case 'opencode': {
      const config = join(home, '.config', 'opencode', 'opencode.json');
      write(
        config,
        JSON.stringify(
          {
            autoupdate: false,
            share: 'disabled',
            model: 'fake/fake-model',
            small_model: 'fake/fake-model',
            provider: {
              fake: {
                npm: '@ai-sdk/openai-compatible',
                name: 'Fake',
                options: { baseURL: `${url}/v1`, apiKey: 'sk-fake-test' },
                models: { 'fake-model': { name: 'Fake Model', tool_call: true, reasoning: true } },
              },
            },
          },
          null,
          2,
        ),
      );
      Object.assign(env, {
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        OPENCODE_CONFIG: config,
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_SHARE: '1',
      });
      break;
    }
    case 'copilot': {
      const wire = opts.copilotWireApi ?? 'completions';
      Object.assign(env, {
        COPILOT_OFFLINE: 'true',
        COPILOT_AUTO_UPDATE: 'false',
        COPILOT_HOME: join(home, '.copilot'),
        COPILOT_PROVIDER_BASE_URL: wire === 'anthropic' ? url : `${url}/v1`,
        COPILOT_PROVIDER_TYPE: wire === 'anthropic' ? 'anthropic' : 'openai',
        COPILOT_PROVIDER_API_KEY: 'sk-fake-test',
        COPILOT_MODEL: wire === 'anthropic' ? 'claude-sonnet-4.5' : 'gpt-4.1',
        ...(wire === 'anthropic' ? {} : { COPILOT_PROVIDER_WIRE_API: wire }),
      });
      break;
    }
    case 'pi': {
      const agentDir = join(home, '.pi', 'agent');
      write(
        join(agentDir, 'models.json'),
        JSON.stringify(
          {
            providers: {
              fake: { baseUrl: `${url}/v1`, api: 'openai-completions', apiKey: 'sk-fake-test', models: [{ id: 'fake-model', name: 'Fake Model', reasoning: true }] },
            },
          },
          null,
          2,
        ),
      );
      writePiSettings(agentDir);
      Object.assign(env, { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1' });
      break;
    }
  }
  return { env, cwd, home, tmp };
}

/** The non-interactive command line of each CLI (shared/protocols/README.md), optionally resuming a session. */
export function realCliArgs(name: RealCliName, prompt: string, resume?: string): string[] {
  switch (name) {
    case 'claude':
      return [
        '-p', prompt, '--output-format', 'stream-json', '--verbose', '--include-partial-messages',
        '--dangerously-skip-permissions', ...(resume ? ['--resume', resume] : []),
      ];
    case 'codex':
      return [
        'exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox',
        ...(resume ? ['resume', resume] : []), prompt,
      ];
    case 'gemini':
      return [
        '-p', prompt, '--output-format', 'stream-json', '--yolo', '--skip-trust', '-m', 'gemini-2.5-flash',
        ...(resume ? ['--resume', resume] : []),
      ];
    case 'opencode':
      return ['run', '--format', 'json', '--auto', '--thinking', ...(resume ? ['--session', resume] : []), prompt];
    case 'copilot':
      return [
        '-p', prompt, '--output-format', 'json', '--allow-all-tools', '--no-auto-update', '--disable-client-telemetry',
        ...(resume ? ['--resume', resume] : []),
      ];
    case 'pi':
      return ['--print', '--mode', 'json', ...(resume ? ['--session', resume] : []), prompt];
  }
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout lines parsed as JSON (lines that are not JSON are skipped). */
  lines: Record<string, any>[];
  timedOut: boolean;
  durationMs: number;
}

/** Kills a whole process group we started; ignores groups that are already gone. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Runs a command in its own process group with stdin = /dev/null, bounded by `timeoutMs` (the whole group
 * is killed on timeout, and any leftover member of the group once the command exited).
 */
export function runBounded(
  bin: string,
  args: string[],
  opts: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs ?? 60_000);
    let settled = false;
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      const lines: Record<string, any>[] = [];
      for (const l of stdout.split('\n')) {
        if (!l.trim()) continue;
        try {
          lines.push(JSON.parse(l));
        } catch {
          /* not a JSON line */
        }
      }
      resolvePromise({ code, signal, stdout, stderr, lines, timedOut, durationMs: Date.now() - started });
    };
    child.on('error', (err) => {
      stderr += `spawn error: ${String(err)}\n`;
      done(null, null);
    });
    child.on('close', done);
  });
}

/** Runs a real CLI non-interactively (command line of realCliArgs) in the prepared env. */
export function runRealCli(
  name: RealCliName,
  prompt: string,
  prepared: RealCliEnv,
  opts: { resume?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const bin = realCliPath(name);
  if (!bin) throw new Error(`${name} not installed: run scripts/install-real-clis.sh`);
  return runBounded(bin, realCliArgs(name, prompt, opts.resume), { env: prepared.env, cwd: prepared.cwd, timeoutMs: opts.timeoutMs ?? 60_000 });
}
