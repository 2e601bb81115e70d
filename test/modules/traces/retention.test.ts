// Trace retention, pins and the disk report through the real server, with the custom provider (a
// shell script) as the CLI.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreServer } from '../../../src/servers/core.ts';
import { RUN_TOKEN_HEADER } from '../../../src/protocol/caller.ts';
import { getJson, sendJson, startServer, tempHome, type TestServer } from '../../support/server.ts';
import { postNdjson } from '../../support/ndjson.ts';
import { FAKE_CLIS } from '../../support/agent.ts';
import { runSvc } from '../../support/cli.ts';

const CAP = 200 * 1024;
// a short answer padded to ~2 KB, so a trace is a few KB; `hold…` waits for its release file
const SCRIPT = `
p="$1"
case "$p" in hold*) while [ ! -f "$HOLD_FILE" ]; do sleep 0.05; done ;; esac
printf 'answer to %s ' "$p"; head -c 2000 /dev/zero | tr '\\0' x; echo
`;

const dirBytes = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
const traceIds = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.ndjson')).map((n) => n.slice(0, -7));

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  for (const start = Date.now(); !(await check()); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not in time`);
  }
}

async function run(url: string, prompt: string): Promise<string> {
  const stream = await postNdjson(`${url}/api/message`, { prompt });
  const done = (await stream.done).at(-1);
  assert.equal(done.status, 'ok', JSON.stringify(done));
  return done.traceId;
}

describe('trace retention with traces.maxBytes = 200 KB', () => {
  let server: TestServer;
  let traces: string;
  const holdFile = join(mkdtempSync(join(tmpdir(), 'svc-hold-')), 'release');
  before(async () => {
    server = await startServer();
    traces = join(server.home, 'traces');
    server.app.services.settings.update({
      agent: { provider: 'custom', customCommand: ['sh', '-c', SCRIPT, 'fake', '{prompt}'], env: { HOLD_FILE: holdFile } },
      traces: { maxBytes: CAP, maxAgeDays: 0 },
    });
    await until(() => server.app.services.traceRetention.stats().scanned, 'the start-up scan');
  });
  after(() => server.close());

  test('200 runs leave at most 200 KB plus one trace; the newest read back, the oldest answer 404 TRACE_REMOVED; a pinned one stays', async () => {
    const first = await run(server.url, 'first');
    const pinned = await run(server.url, 'pinned');
    assert.equal((await sendJson(`${server.url}/api/traces/${pinned}/pin`, 'POST', {})).body.pinned, true);
    const ids = [first, pinned];
    let largest = 0;
    for (let i = 0; i < 198; i++) {
      ids.push(await run(server.url, `run ${i}`));
      largest = Math.max(largest, statSync(join(traces, `${ids.at(-1)}.ndjson`)).size);
      assert.ok(dirBytes(traces) <= CAP + largest, `after run ${i}: ${dirBytes(traces)} bytes`);
    }
    assert.ok(largest > 2000, 'a trace holds the padded answer');
    const newest = await getJson(`${server.url}/api/traces/${ids.at(-1)}/events?limit=500`);
    assert.equal(newest.status, 200);
    assert.ok(newest.body.events.some((e: any) => e.event === 'agent_done'));
    assert.equal((await getJson(`${server.url}/api/traces/${ids.at(-1)}`)).body.pinned, false);
    for (const path of [`/api/traces/${first}`, `/api/traces/${first}/events`, `/api/traces/${ids[2]}`]) {
      const gone = await getJson(`${server.url}${path}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error, 'TRACE_REMOVED');
      assert.match(gone.body.message, /removed by trace retention/);
    }
    // an id no run had is an ordinary 404
    assert.equal((await getJson(`${server.url}/api/traces/tr_neverwasarun1`)).body.error, 'NOT_FOUND');
    // the pinned one stays, whatever its age among them
    assert.ok(existsSync(join(traces, `${pinned}.ndjson`)));
    assert.equal((await getJson(`${server.url}/api/traces/${pinned}`)).body.pinned, true);
    // the messages the runs answered with are all still there
    const messages = (await getJson(`${server.url}/api/messages?after=0&limit=10`)).body.messages;
    assert.ok(messages.some((m: any) => m.role === 'assistant' && m.content.startsWith('answer to first ')));
    const stats = server.app.services.traceRetention.stats();
    assert.ok(stats.lastPrune && stats.lastPrune.count >= 1);
    // unpinned, it is the oldest: the next run's end, pushing the total over, removes it first
    assert.equal((await getJson(`${server.url}/api/traces/${pinned}/pin`, { method: 'DELETE' })).body.pinned, false);
    const oldestOthers = traceIds(traces).filter((id) => id !== pinned);
    await run(server.url, 'one more');
    assert.ok(!existsSync(join(traces, `${pinned}.ndjson`)), 'the unpinned trace went first');
    assert.ok(oldestOthers.slice(-5).every((id) => existsSync(join(traces, `${id}.ndjson`))));
  });

  test('an agent run\'s credential cannot pin; a removed trace cannot be pinned', async () => {
    const id = await run(server.url, 'to pin');
    const token = server.app.services.credentials.issue({ runId: 'tr_someagentrun1', sessionId: 'x' }, 60_000);
    const refused = await getJson(`${server.url}/api/traces/${id}/pin`, { method: 'POST', headers: { [RUN_TOKEN_HEADER]: token } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'PERSON_REQUIRED');
    assert.equal((await getJson(`${server.url}/api/traces/${id}`)).body.pinned, false);
  });

  test('nothing is removed while its run is in flight, however old or over the bound', async () => {
    const stream = await postNdjson(`${server.url}/api/message`, { prompt: 'hold this one' });
    let traceId = '';
    await until(async () => (traceId = (await getJson(`${server.url}/api/runtime`)).body.agent.active?.traceId ?? '') !== '', 'the held run started');
    const held = join(traces, `${traceId}.ndjson`);
    await until(() => existsSync(held) && statSync(held).size > 0, 'the held run writing its trace');
    const old = (Date.now() - 400 * 86_400_000) / 1000;
    utimesSync(held, old, old);
    // a bound of 1 byte and 1 day: every closed trace goes, the held one stays
    server.app.services.settings.update({ traces: { maxBytes: 1, maxAgeDays: 1 } });
    await until(() => traceIds(traces).length === 1, 'the closed traces removed');
    assert.deepEqual(traceIds(traces), [traceId]);
    writeFileSync(holdFile, '');
    assert.equal((await stream.done).at(-1).status, 'ok');
    // closed now, it is counted and goes too
    await until(() => !existsSync(held), 'the held trace removed once its run ended');
    server.app.services.settings.update({ traces: { maxBytes: CAP, maxAgeDays: 0 } });
  });

  test('GET /api/disk: the parts add up to the total, and an upload shows under media; `svc status` prints it', async () => {
    const before = (await getJson(`${server.url}/api/disk?fresh=true`)).body;
    assert.equal(before.parts.reduce((sum: number, p: any) => sum + p.bytes, 0), before.totalBytes);
    const part = (report: any, name: string) => report.parts.find((p: any) => p.part === name).bytes;
    assert.ok(part(before, 'database') > 0);
    assert.equal(part(before, 'traces'), dirBytes(traces));
    assert.equal(before.traces.maxBytes, CAP);
    const upload = await fetch(`${server.url}/api/upload?filename=big.bin`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(300_000, 1) });
    assert.equal(upload.status, 201);
    const after = (await getJson(`${server.url}/api/disk?fresh=true`)).body;
    assert.equal(part(after, 'media') - part(before, 'media'), 300_000);
    assert.equal(after.parts.reduce((sum: number, p: any) => sum + p.bytes, 0), after.totalBytes);

    const status = await runSvc(['status', '--url', server.url], { env: { SVC_RUN_TOKEN: '' } });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /disk use: \d/);
    assert.match(status.stdout, /media\s+\d+\.\d KB/);
    assert.match(status.stdout, /traces .*at most 200\.0 KB, no age limit/);

    // the media cleanup a person asks for: files not changed for the days given go, newer ones stay
    const { filename } = await upload.json();
    const old = (Date.now() - 40 * 86_400_000) / 1000;
    utimesSync(join(server.home, 'media', filename), old, old);
    const token = server.app.services.credentials.issue({ runId: 'tr_someagentrun2', sessionId: 'x' }, 60_000);
    const refused = await getJson(`${server.url}/api/media?olderThanDays=30`, { method: 'DELETE', headers: { [RUN_TOKEN_HEADER]: token } });
    assert.equal(refused.body.error, 'PERSON_REQUIRED');
    const cleaned = await getJson(`${server.url}/api/media?olderThanDays=30`, { method: 'DELETE' });
    assert.deepEqual(cleaned.body, { removed: 1, bytes: 300_000 });
    assert.equal(existsSync(join(server.home, 'media', filename)), false);
    assert.deepEqual((await getJson(`${server.url}/api/media?olderThanDays=30`, { method: 'DELETE' })).body, { removed: 0, bytes: 0 });
  });

  test('a deleted chat gives its pages back to the disk (incremental vacuum)', async () => {
    const { db, chat } = server.app.services;
    assert.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'a new database is made with auto_vacuum = INCREMENTAL');
    const session = chat.createSession('big', false);
    const text = 'y'.repeat(4000);
    db.transaction(() => {
      for (let i = 0; i < 1500; i++) chat.messages.insert({ sessionId: session.id, role: 'user', content: `${i} ${text}` });
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pagesBefore = db.pragma('page_count', { simple: true }) as number;
    assert.equal((await getJson(`${server.url}/api/chat-sessions/${session.id}`, { method: 'DELETE' })).status, 200);
    await until(() => (db.pragma('page_count', { simple: true }) as number) < pagesBefore - 1000, 'the file shrinks');
    assert.ok((db.pragma('freelist_count', { simple: true }) as number) < 100);
  });
});

test('a restart with too many traces prunes them after listen, and the old ones by age', async () => {
  const home = tempHome();
  const first = await startServer({ home });
  first.app.services.settings.update({ traces: { maxBytes: CAP, maxAgeDays: 30 } });
  await first.close({ removeHome: false });
  const traces = join(home, 'traces');
  const now = Date.now() / 1000;
  // 300 traces of 2 KB, a second apart; the first 10 are 40 days old
  for (let i = 0; i < 300; i++) {
    const file = join(traces, `tr_restart${String(i).padStart(5, '0')}.ndjson`);
    writeFileSync(file, `${JSON.stringify({ ts: 0, seq: 1, event: 'x', pad: 'p'.repeat(2000) })}\n`);
    const t = i < 10 ? now - 40 * 86_400 + i : now - 300 + i;
    utimesSync(file, t, t);
  }
  const app = await createCoreServer({ home, logLevel: 'silent' });
  try {
    await app.listen(0, '127.0.0.1');
    // listen did not wait for the scan: it starts once the server answers
    assert.equal(app.services.traceRetention.stats().scanned, false);
    await until(() => app.services.traceRetention.stats().lastPrune !== null, 'the pass after start');
    assert.ok(dirBytes(traces) <= CAP, `${dirBytes(traces)} bytes left`);
    const left = traceIds(traces).sort();
    assert.equal(left.at(-1), 'tr_restart00299', 'the newest stays');
    assert.ok(left.length > 50);
    // by size alone the next ones after the aged ten would have gone first: the kept ones are the newest
    assert.equal(left[0], `tr_restart${String(300 - left.length).padStart(5, '0')}`);
  } finally {
    await app.close();
  }
});

test('a run already writing its trace when the start-up scan happens keeps it: the scan leaves an open trace alone, however far over the bound', async () => {
  const home = tempHome();
  const state = mkdtempSync(join(tmpdir(), 'svc-fake-state-'));
  const app = await createCoreServer({ home, logLevel: 'silent' });
  try {
    // every closed trace is over a bound of 1 byte
    app.services.settings.update({
      agent: { provider: 'claude', executables: { claude: join(FAKE_CLIS, 'claude') }, env: { FAKE_CLI_STATE: state } },
      traces: { maxBytes: 1, maxAgeDays: 0 },
    });
    // the run starts before the server listens, so it is writing when the scan after listen runs; its
    // fake CLI holds after its first line
    app.services.runtime.submit({ prompt: 'scenario:text hold:1', sessionId: app.services.chat.activeSession().id });
    const traces = join(home, 'traces');
    await until(() => existsSync(traces) && traceIds(traces).length === 1 && statSync(join(traces, `${traceIds(traces)[0]}.ndjson`)).size > 0, 'the run writing its trace');
    const [open] = traceIds(traces);
    await app.listen(0, '127.0.0.1');
    await until(() => app.services.traceRetention.stats().scanned, 'the start-up scan');
    await app.services.traceRetention.prune();
    assert.deepEqual(traceIds(traces), [open], 'the open trace is still there');
    assert.equal(app.services.traceRetention.stats().count, 0, 'and not counted until it is closed');
    // once closed, it is counted and goes like any other
    writeFileSync(join(state, 'release-1'), '');
    await until(() => !existsSync(join(traces, `${open}.ndjson`)), 'the trace removed once its run ended');
  } finally {
    await app.close();
  }
});
