// A provider CLI that accepts images, as the vision model. No agent autonomy is needed to read an image,
// so none is granted: no --dangerously-* / --yolo flags; codex runs in its read-only sandbox; tools that
// would need approval are refused by the CLIs' non-interactive default.
//
//   codex   codex exec --json --skip-git-repo-check --sandbox read-only --image <png> [--model=M] -- <prompt>
//           answer: the last `item.completed` agent_message of the JSONL stream
//   claude  claude -p --input-format stream-json --output-format stream-json --verbose --max-turns 1 [--model=M]
//           stdin: one user message whose content is an image block (base64 PNG) and the prompt text
//           answer: the `result` line's text (else the last assistant text)
//   gemini  gemini --prompt=@<png name> <prompt> --output-format json [--model=M], run in the image's directory
//           (gemini's @path inclusion reads files inside its workspace only)
//           answer: the JSON document's `response`
//
// buildCliInvocation and extractCliAnswer are pure; CliLocator writes the PNG to a private temp dir, runs
// the CLI (its whole process group is killed on timeout) and removes the dir.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { GEMINI_PROCESS_ENV } from '../../../../agent/providers/registry.ts';
import { AppError } from '../../../../core/errors.ts';
import { buildDescribePrompt, buildLocatePrompt, extractJsonObjects, LOCATE_SYSTEM_PROMPT, parseDescribeAnswer, parseLocateAnswer } from '../answer.ts';
import type { CliProvider } from '../settings.ts';
import type { DescribeInput, LocateAnswer, LocateInput, Locator } from '../types.ts';

export interface CliInvocationRequest {
  provider: CliProvider;
  /** Executable (default: the provider's command name). */
  executable?: string;
  model?: string;
  /** Absolute path of the PNG (written beforehand). */
  imagePath: string;
  /** The PNG itself (claude sends it inline). */
  png: Buffer;
  prompt: string;
}

export interface CliInvocation {
  command: string;
  args: string[];
  cwd: string;
  /** Written to stdin, which is then closed. */
  stdin: string;
  /** Added to the environment the CLI runs in. */
  env?: Record<string, string>;
}

export function buildCliInvocation(req: CliInvocationRequest): CliInvocation {
  const command = req.executable || req.provider;
  const dir = dirname(req.imagePath);
  const model = req.model?.trim();
  switch (req.provider) {
    case 'codex':
      return {
        command,
        args: ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '--image', req.imagePath, ...(model ? [`--model=${model}`] : []), '--', req.prompt],
        cwd: dir,
        stdin: '',
      };
    case 'claude': {
      const message = {
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: req.png.toString('base64') } },
            { type: 'text', text: req.prompt },
          ],
        },
      };
      return {
        command,
        args: ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--max-turns', '1', ...(model ? [`--model=${model}`] : [])],
        cwd: dir,
        stdin: `${JSON.stringify(message)}\n`,
      };
    }
    case 'gemini':
      return {
        command,
        args: [`--prompt=@${basename(req.imagePath)} ${req.prompt}`, '--output-format', 'json', ...(model ? [`--model=${model}`] : [])],
        cwd: dir,
        stdin: '',
        env: { ...GEMINI_PROCESS_ENV },
      };
  }
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v = JSON.parse(t) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* not a JSON line */
    }
  }
  return out;
}

const cliError = (provider: string, message: string) => new AppError(502, 'VISION_CLI_FAILED', `${provider}: ${message.slice(0, 400)}`);

/** The model's final answer text from a CLI's stdout. */
export function extractCliAnswer(provider: CliProvider, stdout: string): string {
  switch (provider) {
    case 'codex': {
      const events = jsonLines(stdout).filter((e) => typeof e.type === 'string' && /^(thread|turn|item)\.|^error$/.test(e.type));
      // Not an event stream (a wrapper printing the answer): the text is the answer.
      if (!events.length) return stdout.trim();
      let answer: string | undefined;
      for (const e of events) {
        const item = e.item as { type?: string; text?: string } | undefined;
        if (e.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string') answer = item.text;
        if (e.type === 'turn.failed') throw cliError('codex', String((e.error as { message?: string } | undefined)?.message ?? 'the turn failed'));
      }
      if (answer === undefined) {
        const err = [...events].reverse().find((e) => e.type === 'error');
        throw cliError('codex', err ? String(err.message ?? 'error') : 'no agent message in the output');
      }
      return answer;
    }
    case 'claude': {
      const events = jsonLines(stdout).filter((e) => e.type === 'result' || e.type === 'assistant' || e.type === 'system');
      if (!events.length) return stdout.trim();
      const result = [...events].reverse().find((e) => e.type === 'result');
      if (result) {
        if (result.is_error === true || (typeof result.subtype === 'string' && result.subtype !== 'success')) {
          throw cliError('claude', typeof result.result === 'string' ? result.result : `the run ended with ${String(result.subtype)}`);
        }
        if (typeof result.result === 'string') return result.result;
      }
      const assistant = [...events].reverse().find((e) => e.type === 'assistant');
      const content = (assistant?.message as { content?: { type?: string; text?: string }[] } | undefined)?.content ?? [];
      const text = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text).join('');
      if (!text) throw cliError('claude', 'no result in the output');
      return text;
    }
    case 'gemini': {
      const doc = extractJsonObjects(stdout).find((o) => 'response' in o || 'error' in o);
      if (doc) {
        if (typeof doc.response === 'string') return doc.response;
        const err = doc.error as { message?: string } | undefined;
        throw cliError('gemini', err?.message ?? 'the answer has no response');
      }
      // stream-json (if a wrapper forces it): join the assistant deltas.
      const deltas = jsonLines(stdout).filter((e) => e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string');
      if (deltas.length) return deltas.map((e) => e.content as string).join('');
      return stdout.trim();
    }
  }
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 8 * 1024 * 1024;

/** Run an invocation; the whole process group dies at the timeout. */
export function runCli(inv: CliInvocation, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(inv.command, inv.args, { cwd: inv.cwd, env: { ...env, ...inv.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid && process.platform !== 'win32') process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 2000).unref();
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 64 * 1024) stderr += d;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(inv.stdin);
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') {
        reject(new AppError(503, 'VISION_CLI_MISSING', `The ${inv.command} command was not found. Install it (npm i -g @openai/codex | @anthropic-ai/claude-code | @google/gemini-cli) or set its path.`));
      } else reject(new AppError(503, 'VISION_CLI_FAILED', `Could not start ${inv.command}: ${err.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new AppError(504, 'VISION_MODEL_TIMEOUT', `${inv.command} did not answer within ${timeoutMs} ms (vision.timeoutSec).`));
      else resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface CliLocatorConfig {
  provider: CliProvider;
  model: string;
  executable?: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

export class CliLocator implements Locator {
  readonly kind = 'cli' as const;
  constructor(private readonly config: () => CliLocatorConfig) {}

  private async ask(prompt: string, png: Buffer): Promise<string> {
    const cfg = this.config();
    const dir = await mkdtemp(join(tmpdir(), 'svc-vision-'));
    try {
      const imagePath = join(dir, 'screenshot.png');
      await writeFile(imagePath, png, { mode: 0o600 });
      const inv = buildCliInvocation({ provider: cfg.provider, executable: cfg.executable, model: cfg.model, imagePath, png, prompt });
      const run = await runCli(inv, cfg.env, cfg.timeoutMs);
      if (run.code !== 0) {
        let detail = run.stderr.trim().split('\n').slice(-3).join(' ') || `exit code ${run.code ?? run.signal}`;
        try {
          extractCliAnswer(cfg.provider, run.stdout);
        } catch (err) {
          if (err instanceof AppError) detail = err.message;
        }
        throw cliError(cfg.provider, `failed (exit ${run.code ?? run.signal}): ${detail}`);
      }
      return extractCliAnswer(cfg.provider, run.stdout);
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  async locate(input: LocateInput): Promise<LocateAnswer> {
    const size = { width: input.width, height: input.height };
    const prompt = `${LOCATE_SYSTEM_PROMPT}\n\n${buildLocatePrompt(input.description, size)}`;
    return parseLocateAnswer(await this.ask(prompt, input.png), size);
  }

  async describe(input: DescribeInput): Promise<string> {
    return parseDescribeAnswer(await this.ask(buildDescribePrompt({ width: input.width, height: input.height }, input.focus), input.png));
  }
}
