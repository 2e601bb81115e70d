// Trace retention (src/modules/traces/retention.ts) keeps only the oldest few traces in memory and scans
// the directory again when it has used them up. Checked here against a model that knows every file and
// applies the rule directly (the oldest go first until both bounds hold; pinned ones stay), through runs
// closing, traces reopened, pins and unpins, time passing and the bounds changing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceRetention, tracesToRemove, type TraceRecord } from '../../../src/modules/traces/retention.ts';
import { TraceRecorder, traceFile } from '../../../src/agent/traces.ts';
import { EventBus } from '../../../src/events/bus.ts';
import type { TracePinRepo } from '../../../src/modules/traces/pins.repo.ts';
import type { TraceSettings } from '../../../src/modules/traces/settings.ts';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

type Operation =
  | { kind: 'close'; bytes: number }
  | { kind: 'closeOld'; bytes: number; hoursAgo: number }
  | { kind: 'reopen'; pick: number; bytes: number }
  | { kind: 'pin' | 'unpin'; pick: number }
  | { kind: 'wait'; days: number }
  | { kind: 'bounds'; maxBytes: number; maxAgeDays: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('close' as const), bytes: fc.integer({ min: 1, max: 400 }) }) },
  // a run that went on through a scan, its last write long before it closed
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('closeOld' as const), bytes: fc.integer({ min: 1, max: 400 }), hoursAgo: fc.integer({ min: 1, max: 96 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), pick: fc.nat(), bytes: fc.integer({ min: 1, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('pin' as const, 'unpin' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), days: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bounds' as const), maxBytes: fc.integer({ min: 0, max: 3000 }), maxAgeDays: fc.integer({ min: 0, max: 4 }) }) },
);

/** Sets a file's modification time (milliseconds). */
const touch = (file: string, ms: number) => utimesSync(file, ms / 1000, ms / 1000);

test('retention with a queue of 3 removes exactly what a retention that knows every trace would, and counts the same', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 8 }), fc.array(operation, { maxLength: 40 }), async (existing, operations) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-retention-'));
      let clock = START;
      let bounds: TraceSettings = { maxBytes: 1500, maxAgeDays: 2 };
      const pinned = new Set<string>();
      const pins = { all: () => [], pin: () => undefined, unpin: () => undefined } as unknown as TracePinRepo;
      const retention = new TraceRetention({ dir, settings: () => bounds, pins, inFlight: () => false, now: () => clock, queueSize: 3 });
      // the model: every trace on disk, as the test wrote it
      const model = new Map<string, TraceRecord>();
      let next = 0;
      const write = (bytes: number, hoursAgo = 0) => {
        const id = `tr_model${String(next++).padStart(5, '0')}`;
        // distinct times: no two traces are equally old
        const mtimeMs = (clock += 1000) - hoursAgo * 3_600_000 + (hoursAgo ? next : 0);
        writeFileSync(traceFile(dir, id), 'x'.repeat(bytes));
        touch(traceFile(dir, id), mtimeMs);
        model.set(id, { id, bytes, mtimeMs });
        return id;
      };
      const applyModel = () => {
        const oldestFirst = [...model.values()].sort((a, b) => a.mtimeMs - b.mtimeMs);
        const total = oldestFirst.reduce((sum, r) => sum + r.bytes, 0);
        for (const id of tracesToRemove(oldestFirst, total, bounds, clock, (id) => pinned.has(id))) model.delete(id);
      };
      const check = (after: string) => {
        const onDisk = readdirSync(dir).map((name) => name.slice(0, -'.ndjson'.length)).sort();
        assert.deepEqual(onDisk, [...model.keys()].sort(), `the traces left after ${after}`);
        const stats = retention.stats();
        assert.equal(stats.count, model.size, `the count after ${after}`);
        assert.equal(stats.bytes, [...model.values()].reduce((sum, r) => sum + r.bytes, 0), `the bytes after ${after}`);
      };
      try {
        for (const bytes of existing) write(bytes);
        await retention.start();
        applyModel();
        check('the first scan');
        for (const op of operations) {
          const ids = [...model.keys()];
          const picked = ids[('pick' in op ? op.pick : 0) % Math.max(1, ids.length)];
          if (op.kind === 'close') {
            await retention.ended(write(op.bytes));
          } else if (op.kind === 'closeOld') {
            await retention.ended(write(op.bytes, op.hoursAgo));
          } else if (op.kind === 'reopen' && picked) {
            const before = model.get(picked)!;
            appendFileSync(traceFile(dir, picked), 'y'.repeat(op.bytes));
            touch(traceFile(dir, picked), (clock += 1000));
            model.set(picked, { id: picked, bytes: before.bytes + op.bytes, mtimeMs: clock });
            await retention.ended(picked, before.bytes);
          } else if (op.kind === 'pin' && picked) {
            pinned.add(picked);
            retention.pin(picked);
          } else if (op.kind === 'unpin' && picked) {
            pinned.delete(picked);
            retention.unpin(picked);
          } else if (op.kind === 'wait') {
            clock += op.days * DAY;
          } else if (op.kind === 'bounds') {
            bounds = { maxBytes: op.maxBytes, maxAgeDays: op.maxAgeDays };
          }
          // a pass after every change, as the hourly check, a run's end or a setting's change makes one
          await retention.prune();
          applyModel();
          check(JSON.stringify(op));
        }
      } finally {
        retention.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns: 150 },
  );
});

test('what retention keeps does not grow with the traces: 5,000 closed under no bound leave the queue at its size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-retention-'));
  const pins = { all: () => [], pin: () => undefined, unpin: () => undefined } as unknown as TracePinRepo;
  const retention = new TraceRetention({ dir, settings: () => ({ maxBytes: 0, maxAgeDays: 0 }), pins, inFlight: () => false, queueSize: 10 });
  try {
    for (let i = 0; i < 20; i++) writeFileSync(traceFile(dir, `tr_before${String(i).padStart(4, '0')}`), 'x');
    await retention.start();
    for (let i = 0; i < 5000; i++) {
      const id = `tr_after${String(i).padStart(5, '0')}`;
      writeFileSync(traceFile(dir, id), 'xy');
      await retention.ended(id);
    }
    assert.deepEqual({ count: retention.stats().count, bytes: retention.stats().bytes }, { count: 5020, bytes: 20 + 10_000 });
    // the only per-trace state: the queue, which the scan filled with 10 of the 20 and no close added to
    assert.equal((retention as unknown as { queue: unknown[] }).queue.length, 10);
  } finally {
    retention.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run\'s end never waits for a scan: with the queue used up it resolves over the bound, and the scan after it removes the oldest', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-retention-'));
  const pins = { all: () => [], pin: () => undefined, unpin: () => undefined } as unknown as TracePinRepo;
  let clock = START;
  const retention = new TraceRetention({ dir, settings: () => ({ maxBytes: 250, maxAgeDays: 0 }), pins, inFlight: () => false, now: () => clock, queueSize: 2 });
  const close = (id: string) => {
    writeFileSync(traceFile(dir, id), 'x'.repeat(100));
    touch(traceFile(dir, id), (clock += 1000));
  };
  const left = () => readdirSync(dir).sort();
  try {
    close('tr_first0001');
    close('tr_second001');
    await retention.start();
    // each end removes the queue's oldest: the two the scan found
    for (const id of ['tr_third0001', 'tr_fourth001']) {
      close(id);
      await retention.ended(id);
    }
    assert.deepEqual(left(), ['tr_fourth001.ndjson', 'tr_third0001.ndjson']);
    // the queue is empty now: this end does not list the directory, so the bound is passed when it resolves
    close('tr_fifth0001');
    await retention.ended('tr_fifth0001');
    assert.equal(left().length, 3);
    // the pass it started scans, and the oldest goes
    await retention.prune();
    assert.deepEqual(left(), ['tr_fifth0001.ndjson', 'tr_fourth001.ndjson']);
  } finally {
    retention.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trace its run appends to again (a worker run started twice) is counted once, with its new size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-traces-'));
  try {
    const bus = new EventBus();
    const pins = { all: () => [], pin: () => undefined, unpin: () => undefined } as unknown as TracePinRepo;
    const retention: TraceRetention = new TraceRetention({ dir, settings: () => ({ maxBytes: 0, maxAgeDays: 0 }), pins, inFlight: (id): boolean => recorder.isOpen(id) });
    const recorder: TraceRecorder = new TraceRecorder(dir, bus, () => [], (id, previousBytes): Promise<void> => retention.ended(id, previousBytes));
    await retention.start();
    const write = async (id: string) => {
      recorder.begin(id);
      bus.publish('agent_output', { traceId: id, content: 'some output', offset: 0 });
      await recorder.end(id);
    };
    await write('tr_workerrun1');
    await write('tr_otherrun01');
    await write('tr_workerrun1');
    const sizes = ['tr_otherrun01', 'tr_workerrun1'].map((id) => statSync(traceFile(dir, id)).size);
    assert.equal(retention.stats().count, 2);
    assert.equal(retention.stats().bytes, sizes[0]! + sizes[1]!);
    retention.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a pass removes the oldest until both bounds hold, skipping what it must keep', () => {
  const now = 100 * DAY;
  const records = [
    { id: 'tr_pinned001', bytes: 50, mtimeMs: now - 90 * DAY },
    { id: 'tr_aged00001', bytes: 10, mtimeMs: now - 40 * DAY },
    { id: 'tr_big000001', bytes: 500, mtimeMs: now - 2 * DAY },
    { id: 'tr_new000001', bytes: 100, mtimeMs: now - DAY },
    { id: 'tr_new000002', bytes: 100, mtimeMs: now },
  ];
  const total = records.reduce((sum, r) => sum + r.bytes, 0);
  const keep = (id: string) => id === 'tr_pinned001';
  assert.deepEqual(tracesToRemove(records, total, { maxBytes: 0, maxAgeDays: 30 }, now, keep), ['tr_aged00001']);
  assert.deepEqual(tracesToRemove(records, total, { maxBytes: 300, maxAgeDays: 0 }, now, keep), ['tr_aged00001', 'tr_big000001']);
  assert.deepEqual(tracesToRemove(records, total, { maxBytes: 0, maxAgeDays: 0 }, now, keep), []);
});
