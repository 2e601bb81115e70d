// Quota: codex rollout parsing (fixtures under test/fixtures/detect/codex-home, the 2026/11/21 file
// recorded from codex 0.169.0 against a fake API sending x-codex-* rate-limit headers, with an
// API-key turn and a line cut mid-write appended), bounded reads, and observations from the runner.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CODEX_TAIL_BYTES,
  QuotaReader,
  codexQuotaInfo,
  newestRollouts,
  parseCodexRateLimits,
  readTail,
  realQuotaFs,
  windowName,
  withDeadline,
} from '../../src/agent/quota.ts';

/** Tests that check what is read, not the deadline, give reads time on a loaded machine. */
const SLOW_MACHINE_BUDGET_MS = 10_000;

const FIXTURE_HOME = join(import.meta.dirname, '../fixtures/detect/codex-home');
const NEW_FILE = join(FIXTURE_HOME, 'sessions/2026/11/21/rollout-2026-11-21T18-06-07-01a1ff49-7a38-7830-8088-8dd4408ffa5a.jsonl');
const OLD_FILE = join(FIXTURE_HOME, 'sessions/2026/11/20/rollout-2026-11-20T08-40-12-0199a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl');
const NOW = Date.parse('2026-11-21T18:30:00Z');

/** The windows codex 0.169.0 recorded in the newest fixture's first turn. */
const RECORDED = [
  { name: '5h', usedPercent: 42.5, resetsAt: 1795287968_000, windowMinutes: 300 },
  { name: '7d', usedPercent: 77, resetsAt: 1795370768_000, windowMinutes: 10080 },
];

function tokenCountLine(at: string, primaryUsed: number, resetsAt: number): string {
  return JSON.stringify({
    timestamp: at,
    type: 'event_msg',
    payload: {
      type: 'token_count',
      info: null,
      rate_limits: {
        limit_id: 'codex',
        primary: { used_percent: primaryUsed, window_minutes: 300, resets_at: resetsAt },
        secondary: null,
      },
    },
  });
}

describe('codex rollout parsing (pure)', () => {
  test('the real 0.169.0 shape; a cut last line and a later turn without limits are skipped', () => {
    const text = readFileSync(NEW_FILE, 'utf8');
    assert.ok(!text.endsWith('\n'), 'fixture ends with a partial line');
    const snapshot = parseCodexRateLimits(text);
    assert.deepEqual(snapshot, { at: Date.parse('2026-11-21T18:06:08.047Z'), windows: RECORDED });
  });

  test('older codex: resets_in_seconds counts from the line timestamp; the last snapshot wins', () => {
    const snapshot = parseCodexRateLimits(readFileSync(OLD_FILE, 'utf8'));
    const at = Date.parse('2026-11-20T09:00:05.000Z');
    assert.deepEqual(snapshot, {
      at,
      windows: [
        { name: '5h', usedPercent: 100, resetsAt: at + 1200_000, windowMinutes: 299 },
        { name: '7d', usedPercent: 40, resetsAt: at + 300_000_000, windowMinutes: 10079 },
      ],
    });
  });

  test('nothing to find', () => {
    assert.equal(parseCodexRateLimits(''), null);
    assert.equal(parseCodexRateLimits('{"type":"event_msg","payload":{"type":"token_count","rate_limits":null}}\n'), null);
    assert.equal(parseCodexRateLimits('garbage "token_count" "rate_limits"\n'), null);
  });

  test('skipFirstLine ignores a line that may be the cut start of a tail', () => {
    const line = tokenCountLine('2026-11-21T10:00:00Z', 10, 1795287968);
    assert.equal(parseCodexRateLimits(`${line}\n{"type":"x"}\n`, { skipFirstLine: true }), null);
    assert.equal(parseCodexRateLimits(`${line}\n{"type":"x"}\n`)?.windows[0]?.usedPercent, 10);
  });

  test('window names come from the window length', () => {
    assert.equal(windowName(300), '5h');
    assert.equal(windowName(299), '5h');
    assert.equal(windowName(10080), '7d');
    assert.equal(windowName(1440), '1d');
    assert.equal(windowName(45), '45m');
  });

  test('status: ok below 100 %, limited at 100 % until the reset, unknown once every window reset', () => {
    const snapshot = parseCodexRateLimits(readFileSync(NEW_FILE, 'utf8'))!;
    assert.equal(codexQuotaInfo(snapshot, NOW).status, 'ok');
    const full = { ...snapshot, windows: [{ ...RECORDED[0]!, usedPercent: 100 }, RECORDED[1]!] };
    assert.equal(codexQuotaInfo(full, NOW).status, 'limited');
    // after the 5h reset only the 7d window remains, at 77 %
    const later = codexQuotaInfo(full, RECORDED[0]!.resetsAt + 1);
    assert.equal(later.status, 'ok');
    assert.deepEqual(later.windows, [RECORDED[1]]);
    const muchLater = codexQuotaInfo(full, RECORDED[1]!.resetsAt + 1);
    assert.equal(muchLater.status, 'unknown');
    assert.equal(muchLater.windows, undefined);
  });

  test('rate_limit_reached_type means limited', () => {
    const info = codexQuotaInfo({ at: NOW, windows: [RECORDED[1]!], reachedType: 'workspace_member_credits_depleted' }, NOW);
    assert.equal(info.status, 'limited');
    assert.match(info.message ?? '', /credits_depleted/);
  });
});

describe('bounded reads', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-quota-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a huge rollout: only the last 256 KB are read, so a snapshot further back is not seen', async () => {
    const file = join(dir, 'huge.jsonl');
    const filler = `${JSON.stringify({ timestamp: '2026-11-21T10:00:00Z', type: 'response_item', payload: { text: 'x'.repeat(1000) } })}\n`;
    const head = `${tokenCountLine('2026-11-21T09:00:00Z', 55, 1795287968)}\n`;
    writeFileSync(file, head + filler.repeat(2000)); // ~2 MB
    const tail = await readTail(file, CODEX_TAIL_BYTES);
    assert.equal(tail.truncated, true);
    assert.equal(Buffer.byteLength(tail.text), CODEX_TAIL_BYTES);
    assert.equal(parseCodexRateLimits(tail.text, { skipFirstLine: true }), null);

    // the same snapshot near the end is found
    writeFileSync(file, filler.repeat(2000) + head + filler.repeat(3));
    const tail2 = await readTail(file, CODEX_TAIL_BYTES);
    assert.equal(parseCodexRateLimits(tail2.text, { skipFirstLine: true })?.windows[0]?.usedPercent, 55);
  });

  test('a small file is read whole', async () => {
    const tail = await readTail(OLD_FILE, CODEX_TAIL_BYTES);
    assert.equal(tail.truncated, false);
    assert.equal(tail.text, readFileSync(OLD_FILE, 'utf8'));
  });

  test('withDeadline answers with the fallback when the work is slow', async () => {
    const started = Date.now();
    const value = await withDeadline(new Promise<string>(() => {}), 50, () => 'late');
    assert.equal(value, 'late');
    assert.ok(Date.now() - started < 500);
    assert.equal(await withDeadline(Promise.resolve('fast'), 1000, () => 'late'), 'fast');
  });
});

describe('QuotaReader', () => {
  let home: string;
  /** A copy of the fixture CODEX_HOME with known modification times. */
  function codexHomeCopy(): string {
    const copy = mkdtempSync(join(tmpdir(), 'svc-codex-home-'));
    cpSync(FIXTURE_HOME, copy, { recursive: true });
    const rel = (f: string) => join(copy, f.slice(FIXTURE_HOME.length));
    utimesSync(rel(OLD_FILE), new Date('2026-11-20T09:00:06Z'), new Date('2026-11-20T09:00:06Z'));
    utimesSync(rel(NEW_FILE), new Date('2026-11-21T18:25:00Z'), new Date('2026-11-21T18:25:00Z'));
    return copy;
  }
  before(() => {
    home = codexHomeCopy();
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  test('codex from its newest rollout; the others unknown', async () => {
    const reader = new QuotaReader({ codexHome: () => home, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS });
    const quota = await reader.read();
    assert.deepEqual(quota.codex, {
      status: 'ok',
      source: 'codex-rollout',
      windows: RECORDED,
      updatedAt: Date.parse('2026-11-21T18:06:08.047Z'),
    });
    for (const id of ['claude', 'gemini', 'opencode', 'copilot', 'custom'] as const) {
      assert.deepEqual(quota[id], { status: 'unknown', source: 'none' }, id);
    }
  });

  test('the newest file is chosen by modification time (a resumed older session counts)', async () => {
    const copy = codexHomeCopy();
    try {
      const old = join(copy, OLD_FILE.slice(FIXTURE_HOME.length));
      utimesSync(old, new Date('2026-11-21T18:29:00Z'), new Date('2026-11-21T18:29:00Z'));
      const files = await newestRollouts(realQuotaFs, join(copy, 'sessions'));
      assert.equal(files[0], old);
      const quota = await new QuotaReader({ codexHome: () => copy, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS }).read();
      // 100 % of the 5h window, resetting at 09:20 on the 20th: over; the 7d window is still on
      assert.equal(quota.codex.status, 'ok');
      assert.deepEqual(quota.codex.windows?.map((w) => [w.name, w.usedPercent]), [['7d', 40]]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('falls back to an older file when the newest has no snapshot yet', async () => {
    const copy = codexHomeCopy();
    try {
      const day = join(copy, 'sessions/2026/11/22');
      mkdirSync(day, { recursive: true });
      writeFileSync(join(day, 'rollout-2026-11-22T00-00-00-x.jsonl'), '{"type":"session_meta","payload":{}}\n');
      const quota = await new QuotaReader({ codexHome: () => copy, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS }).read();
      assert.equal(quota.codex.source, 'codex-rollout');
      assert.equal(quota.codex.windows?.[0]?.usedPercent, 42.5);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('no codex home: unknown, at once', async () => {
    const started = Date.now();
    const quota = await new QuotaReader({ codexHome: () => join(home, 'missing'), budgetMs: SLOW_MACHINE_BUDGET_MS }).read();
    assert.deepEqual(quota.codex, { status: 'unknown', source: 'none' });
    assert.ok(Date.now() - started < 200);
  });

  test('a FIFO named like a rollout does not hang the read', { skip: process.platform === 'win32', timeout: 5000 }, async () => {
    const copy = mkdtempSync(join(tmpdir(), 'svc-codex-fifo-'));
    try {
      const day = join(copy, 'sessions/2026/11/23');
      mkdirSync(day, { recursive: true });
      const made = spawnSync('mkfifo', [join(day, 'rollout-2026-11-23T00-00-00-x.jsonl')]);
      if (made.status !== 0) return;
      const started = Date.now();
      const quota = await new QuotaReader({ codexHome: () => copy, budgetMs: 60_000 }).read();
      assert.equal(quota.codex.status, 'unknown');
      assert.ok(Date.now() - started < 1000);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('a slow file system: the answer comes within the budget, codex unknown; the read is not repeated meanwhile', async () => {
    let calls = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const reader = new QuotaReader({
      codexHome: () => home,
      budgetMs: 200,
      fs: {
        readdir: async () => {
          calls += 1;
          await gate;
          return [];
        },
      },
    });
    const started = Date.now();
    const [a, b] = await Promise.all([reader.read(), reader.read()]);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 150 && elapsed < 600, `answered in ${elapsed} ms`);
    assert.equal(a.codex.status, 'unknown');
    assert.match(a.codex.message ?? '', /longer than 200 ms/);
    assert.equal(b.codex.status, 'unknown');
    assert.equal(calls, 1, 'one slow read at a time');
    release();
  });

  test('observed rate limits: limited until the reset, then unknown with the last time', async () => {
    let now = NOW;
    const reader = new QuotaReader({ codexHome: () => join(home, 'missing'), now: () => now });
    reader.observe('claude', { kind: 'rate_limit', at: NOW - 1000, resetsAt: NOW + 60_000, message: 'API Error: 429 rate_limit' });
    let q = await reader.read();
    assert.deepEqual(q.claude, {
      status: 'limited',
      source: 'observed',
      lastLimitedAt: NOW - 1000,
      resetsAt: NOW + 60_000,
      message: 'API Error: 429 rate_limit',
      updatedAt: NOW - 1000,
    });
    assert.deepEqual(q.gemini, { status: 'unknown', source: 'none' });
    now = NOW + 60_001;
    q = await reader.read();
    assert.deepEqual(q.claude, { status: 'unknown', source: 'none', lastLimitedAt: NOW - 1000 });
  });

  test('an observed limit without a reset time holds for a while; epoch seconds are accepted', async () => {
    let now = NOW;
    const reader = new QuotaReader({ codexHome: () => join(home, 'missing'), now: () => now, limitHoldMs: 10_000 });
    reader.observe('gemini', { kind: 'rate_limit', at: NOW, message: '429' });
    reader.observe('copilot', { kind: 'rate_limit', at: NOW, resetsAt: Math.floor((NOW + 3_600_000) / 1000), message: 'limit' });
    assert.equal((await reader.read()).gemini.status, 'limited');
    now = NOW + 10_001;
    const q = await reader.read();
    assert.equal(q.gemini.status, 'unknown');
    assert.equal(q.copilot.status, 'limited');
    assert.equal(q.copilot.resetsAt, Math.floor((NOW + 3_600_000) / 1000) * 1000);
  });

  test('a successful run after a limit clears it', async () => {
    const reader = new QuotaReader({ codexHome: () => join(home, 'missing'), now: () => NOW });
    reader.observe('claude', { kind: 'rate_limit', at: NOW - 5000, resetsAt: NOW + 3_600_000, message: '429' });
    assert.equal((await reader.read()).claude.status, 'limited');
    reader.observe('claude', { kind: 'ok', at: NOW - 1000 });
    assert.deepEqual((await reader.read()).claude, {
      status: 'ok',
      source: 'observed',
      lastLimitedAt: NOW - 5000,
      updatedAt: NOW - 1000,
    });
    // an older limit arriving late does not replace the newer facts
    reader.observe('claude', { kind: 'rate_limit', at: NOW - 9000, message: 'old' });
    assert.equal((await reader.read()).claude.status, 'ok');
  });

  test('codex: an observed limit newer than the rollout wins; a rollout written after it wins back', async () => {
    const reader = new QuotaReader({ codexHome: () => home, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS });
    reader.observe('codex', { kind: 'rate_limit', at: NOW - 1000, message: 'exceeded retry limit, last status: 429' });
    let q = await reader.read();
    assert.equal(q.codex.status, 'limited');
    assert.equal(q.codex.source, 'observed');
    assert.deepEqual(q.codex.windows, RECORDED, 'the recorded windows are still shown');

    const older = new QuotaReader({ codexHome: () => home, now: () => NOW, budgetMs: SLOW_MACHINE_BUDGET_MS });
    older.observe('codex', { kind: 'rate_limit', at: Date.parse('2026-11-21T18:00:00Z'), message: '429' });
    q = await older.read();
    assert.equal(q.codex.status, 'ok');
    assert.equal(q.codex.source, 'codex-rollout');
    assert.equal(q.codex.lastLimitedAt, Date.parse('2026-11-21T18:00:00Z'));
  });
});
