// What the real provider CLIs print in their JSON modes, checked against the recordings in shared/protocols (pi's:
// test/fixtures/protocols, docs/protocols/pi.md) and against shared/protocols/README.md's notes on each scenario:
// a plain answer (`text`), one tool call (`tool`), a model API that fails (`error`). One set of checks for a CLI run
// by the tests themselves with the recorded command line (test/agent/providers/real-cli-protocols.test.ts) and for
// one that svc runs, read from its raw output (test/agent/real-clis.test.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { join } from 'node:path';
import { TEXT_ANSWER, type RequestRecord } from './fake-model.ts';
import { PROJECT_ROOT, type RealCliName } from './real-clis.ts';

export type Scenario = 'text' | 'tool' | 'error';

/** One run of a CLI: its exit, its stdout parsed as JSON lines, its output for diagnostics. */
export interface CliRun {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  lines: Record<string, any>[];
}

type Line = Record<string, any>;
/** Where the recordings may be: shared/protocols beside the project, or the copies in test/fixtures. */
const PROTOCOL_DIRS = [join(PROJECT_ROOT, '..', 'shared', 'protocols'), join(PROJECT_ROOT, 'test', 'fixtures', 'protocols')];

/** A line's kind, as used to compare with the recordings. */
function kind(cli: RealCliName, l: Line): string {
  switch (cli) {
    case 'claude':
      return l['type'] === 'stream_event' ? `stream_event/${l['event']?.['type']}` : [l['type'], l['subtype']].filter(Boolean).join('/');
    case 'codex':
      return l['item'] ? `${l['type']}/${l['item']['type']}` : String(l['type']);
    case 'gemini':
      return l['role'] ? `${l['type']}/${l['role']}` : String(l['type']);
    case 'opencode':
      return l['part']?.['tool'] ? `${l['type']}/${l['part']['tool']}` : String(l['type']);
    case 'copilot':
      return String(l['type']);
    case 'pi':
      return l['assistantMessageEvent'] ? `${l['type']}/${l['assistantMessageEvent']['type']}` : String(l['type']);
  }
}

/** Line kinds of a recording (null when the recordings are not beside the project). */
function recordedKinds(cli: RealCliName, scenario: string): Set<string> | null {
  const file = PROTOCOL_DIRS.map((d) => join(d, `${cli}-${scenario}.jsonl`)).find((f) => existsSync(f));
  if (!file) return null;
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
  return new Set(lines.map((l) => kind(cli, l)));
}

function assertSameKinds(cli: RealCliName, scenario: Scenario, r: CliRun, t: TestContext): void {
  const recorded = recordedKinds(cli, scenario);
  if (!recorded) {
    t.diagnostic(`no recording ${cli}-${scenario}.jsonl found: line kinds not compared`);
    return;
  }
  const ours = new Set(r.lines.map((l) => kind(cli, l)));
  assert.deepEqual([...ours].sort(), [...recorded].sort(), `${cli} ${scenario}: line kinds differ from the recording`);
}

export function describeRun(r: CliRun): string {
  return `exit=${r.code} signal=${r.signal} timedOut=${r.timedOut}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`;
}

export const sessionIdOf = (lines: Line[]): string | undefined =>
  lines.map((l) => l['session_id'] ?? l['thread_id'] ?? l['sessionID'] ?? l['sessionId'] ?? (l['type'] === 'session' ? l['id'] : undefined)).find((x) => typeof x === 'string');

/** The final answer text, the CLI's own way. */
export function finalText(cli: RealCliName, lines: Line[]): string {
  const last = <T>(xs: T[]) => xs[xs.length - 1];
  switch (cli) {
    case 'claude':
      return String(last(lines.filter((l) => l['type'] === 'result'))?.['result'] ?? '');
    case 'codex':
      return String(last(lines.filter((l) => l['item']?.['type'] === 'agent_message'))?.['item']['text'] ?? '');
    case 'gemini': {
      // Deltas after the last tool result form the final answer.
      const i = lines.map((l) => l['type']).lastIndexOf('tool_result');
      return lines.slice(i + 1).filter((l) => l['type'] === 'message' && l['role'] === 'assistant').map((l) => l['content']).join('');
    }
    case 'opencode':
      return String(last(lines.filter((l) => l['type'] === 'text'))?.['part']['text'] ?? '');
    case 'copilot':
      return String(last(lines.filter((l) => l['type'] === 'assistant.message'))?.['data']['content'] ?? '');
    case 'pi': {
      const message = last(lines.filter((l) => l['type'] === 'message_end' && l['message']['role'] === 'assistant'))?.['message'];
      return (message?.['content'] ?? []).filter((c: Line) => c['type'] === 'text').map((c: Line) => c['text']).join('');
    }
  }
}

/** CLI-specific checks of each scenario, from shared/protocols/README.md. */
const checks: Record<RealCliName, Record<Scenario, (r: CliRun, modelRequests: RequestRecord[]) => void>> = {
  claude: {
    text: (r) => {
      assert.equal(kind('claude', r.lines[0]!), 'system/init');
      assert.ok(r.lines.some((l) => l['event']?.['delta']?.['type'] === 'text_delta'), 'text_delta stream events');
      const res = r.lines[r.lines.length - 1]!;
      assert.equal(res['type'], 'result');
      assert.equal(res['is_error'], false);
    },
    tool: (r) => {
      assert.ok(r.lines.some((l) => l['event']?.['content_block']?.['type'] === 'tool_use' && l['event']['content_block']['name'] === 'Bash'));
      const user = r.lines.find((l) => l['type'] === 'user');
      const block = user?.['message']?.['content']?.[0];
      assert.equal(block?.['type'], 'tool_result');
      assert.match(String(block?.['content']), /hello-from-tool/);
      assert.equal(user?.['tool_use_result']?.['stdout'], 'hello-from-tool');
    },
    error: (r, modelRequests) => {
      const res = r.lines[r.lines.length - 1]!;
      assert.equal(res['type'], 'result');
      assert.equal(res['subtype'], 'success');
      assert.equal(res['is_error'], true);
      assert.equal(res['api_error_status'], 500);
      assert.equal(r.lines.filter((l) => l['subtype'] === 'api_retry').length, 2);
      assert.equal(modelRequests.length, 3, '1 + CLAUDE_CODE_MAX_RETRIES=2');
    },
  },
  codex: {
    text: (r) => {
      assert.deepEqual(r.lines.map((l) => kind('codex', l)), ['thread.started', 'turn.started', 'item.completed/agent_message', 'turn.completed']);
    },
    tool: (r) => {
      const started = r.lines.find((l) => l['type'] === 'item.started');
      assert.equal(started?.['item']['type'], 'command_execution');
      const done = r.lines.find((l) => l['type'] === 'item.completed' && l['item']['type'] === 'command_execution');
      assert.equal(done?.['item']['aggregated_output'], 'hello-from-tool\n');
      assert.equal(done?.['item']['exit_code'], 0);
    },
    error: (r, modelRequests) => {
      assert.equal(r.lines[r.lines.length - 1]!['type'], 'turn.failed');
      assert.ok(r.lines.some((l) => l['type'] === 'error' && /^Reconnecting/.test(l['message'])));
      assert.equal(modelRequests.length, 4);
    },
  },
  gemini: {
    text: (r) => {
      assert.deepEqual(r.lines.slice(0, 2).map((l) => kind('gemini', l)), ['init', 'message/user']);
      assert.ok(r.lines.filter((l) => l['role'] === 'assistant').every((l) => l['delta'] === true));
      assert.equal(r.lines[r.lines.length - 1]!['status'], 'success');
    },
    tool: (r) => {
      const use = r.lines.find((l) => l['type'] === 'tool_use');
      assert.equal(use?.['tool_name'], 'run_shell_command');
      const res = r.lines.find((l) => l['type'] === 'tool_result');
      assert.equal(res?.['tool_id'], use?.['tool_id']);
      assert.equal(res?.['status'], 'success');
      assert.equal(res?.['output'], 'hello-from-tool');
    },
    error: (r, modelRequests) => {
      const res = r.lines[r.lines.length - 1]!;
      assert.equal(res['type'], 'result');
      assert.equal(res['status'], 'error');
      assert.match(res['error']['message'], /Fake internal error/);
      assert.equal(modelRequests.length, 2, 'general.maxAttempts = 2');
    },
  },
  opencode: {
    text: (r) => {
      assert.deepEqual(r.lines.map((l) => kind('opencode', l)), ['step_start', 'text', 'step_finish']);
      assert.equal(r.lines[2]!['part']['reason'], 'stop');
    },
    tool: (r) => {
      const use = r.lines.find((l) => l['type'] === 'tool_use');
      assert.equal(use?.['part']['tool'], 'bash');
      assert.equal(use?.['part']['state']['status'], 'completed');
      assert.equal(use?.['part']['state']['output'], 'hello-from-tool\n');
      assert.deepEqual(r.lines.filter((l) => l['type'] === 'step_finish').map((l) => l['part']['reason']), ['tool-calls', 'stop']);
    },
    error: (r) => {
      assert.equal(r.lines.length, 1);
      assert.equal(r.lines[0]!['error']['name'], 'APIError');
      assert.equal(r.lines[0]!['error']['data']['statusCode'], 500);
    },
  },
  copilot: {
    text: (r) => {
      const res = r.lines[r.lines.length - 1]!;
      assert.equal(res['type'], 'result');
      assert.equal(res['exitCode'], 0);
      assert.ok(r.lines.some((l) => l['type'] === 'assistant.message_delta'));
    },
    tool: (r) => {
      const start = r.lines.find((l) => l['type'] === 'tool.execution_start');
      assert.equal(start?.['data']['toolName'], 'bash');
      const done = r.lines.find((l) => l['type'] === 'tool.execution_complete');
      assert.equal(done?.['data']['success'], true);
      assert.match(done?.['data']['result']['content'], /^hello-from-tool\n/);
    },
    error: (r, modelRequests) => {
      const err = r.lines.find((l) => l['type'] === 'session.error');
      assert.equal(err?.['data']['statusCode'], 500);
      assert.equal(r.lines[r.lines.length - 1]!['exitCode'], 1);
      assert.equal(modelRequests.length, 6, '1 + 5 retries');
    },
  },
  pi: {
    text: (r) => {
      assert.equal(r.lines[0]!['type'], 'session');
      assert.ok(r.lines.some((l) => l['assistantMessageEvent']?.['type'] === 'text_delta'));
      assert.equal(r.lines[r.lines.length - 1]!['type'], 'agent_end');
    },
    tool: (r) => {
      const start = r.lines.find((l) => l['type'] === 'tool_execution_start');
      assert.equal(start?.['toolName'], 'bash');
      const done = r.lines.find((l) => l['type'] === 'tool_execution_end');
      assert.equal(done?.['toolCallId'], start?.['toolCallId']);
      assert.equal(done?.['isError'], false);
      assert.equal(done?.['result']['content'][0]['text'], 'hello-from-tool\n');
    },
    error: (r, modelRequests) => {
      const failed = r.lines.filter((l) => l['type'] === 'message_end' && l['message']['stopReason'] === 'error');
      assert.deepEqual(failed.map((l) => l['message']['errorMessage']), ['500 Fake internal server error', '500 Fake internal server error']);
      assert.equal(r.lines.filter((l) => l['type'] === 'agent_end').length, 2, 'one agent_end per attempt');
      assert.deepEqual(r.lines[r.lines.length - 1], { type: 'auto_retry_end', success: false, attempt: 1, finalError: '500 Fake internal server error' });
      assert.equal(modelRequests.length, 2, '1 + retry.maxRetries 1, no SDK retries');
    },
  },
};

/** The exit code of each CLI when its model API fails. */
const EXIT: Record<RealCliName, { error: number }> = {
  claude: { error: 1 },
  codex: { error: 1 },
  gemini: { error: 244 }, // HTTP status mod 256
  opencode: { error: 1 },
  copilot: { error: 1 },
  pi: { error: 0 }, // pi exits 0 when the model call failed
};

/**
 * What every run of a scenario must show: its exit code, a session id, the CLI's own checks, the recording's line
 * kinds. `modelRequests`: the requests the fake model received for this run (and no other).
 */
export function checkScenario(cli: RealCliName, scenario: Scenario, r: CliRun, modelRequests: RequestRecord[], t: TestContext): void {
  assert.equal(r.timedOut, false, `timed out\n${describeRun(r)}`);
  assert.equal(r.code, scenario === 'error' ? EXIT[cli].error : 0, describeRun(r));
  assert.ok(r.lines.length > 0, 'printed JSON lines');
  assert.ok(sessionIdOf(r.lines) || cli === 'opencode' || scenario === 'error', 'a session id');
  try {
    checks[cli][scenario](r, modelRequests);
    if (scenario === 'text') assert.equal(finalText(cli, r.lines), TEXT_ANSWER);
    if (scenario === 'tool') {
      assert.match(finalText(cli, r.lines), /^The tool finished\. Its output was: .*hello-from-tool/);
      const calls = modelRequests.filter((q) => q.answered.startsWith('text+tool_call'));
      assert.equal(calls.length, 1, 'one tool call answered');
    }
    assertSameKinds(cli, scenario, r, t);
  } catch (err) {
    t.diagnostic(describeRun(r));
    throw err;
  }
}

/** The second turn of a resumed session: the same session id, and the model saw the first turn's prompt. */
export function checkResumed(cli: RealCliName, first: CliRun, second: CliRun): void {
  assert.equal(second.code, 0, describeRun(second));
  assert.equal(sessionIdOf(second.lines), sessionIdOf(first.lines), 'same session id after resume');
  assert.match(finalText(cli, second.lines), /^Hello again from the fake model\. I can see 1 earlier prompt\(s\).*pineapple/);
}
