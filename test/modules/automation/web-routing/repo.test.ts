import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../../../../src/core/errors.ts';
import { closeDatabase, openDatabase, schemaVersion } from '../../../../src/store/db.ts';
import { m003WebRouting } from '../../../../src/store/migrations/003-web-routing.ts';
import { runWebRoutingCommand } from '../../../../src/modules/automation/web-routing/commands.ts';
import { toMatchRequest } from '../../../../src/modules/automation/web-routing/pattern.ts';
import { RulesRepo } from '../../../../src/modules/automation/web-routing/web-routing.repo.ts';
import { RuleService } from '../../../../src/modules/automation/web-routing/web-routing.service.ts';

test('migration 003 creates the table with its constraints', () => {
  const db = new Database(':memory:');
  m003WebRouting.up(db);
  const cols = db.prepare("SELECT name FROM pragma_table_info('web_routing_rules')").all() as Array<{ name: string }>;
  assert.deepEqual(cols.map((c) => c.name), ['id', 'type', 'pattern', 'spec', 'created_at']);
  assert.throws(() => db.prepare("INSERT INTO web_routing_rules (type, pattern, spec, created_at) VALUES ('teleport', '/x', '{}', 0)").run(), /CHECK/);
  assert.throws(() => db.prepare("INSERT INTO web_routing_rules (type, pattern, spec, created_at) VALUES ('block', '/x', 'not json', 0)").run(), /CHECK/);
  db.close();
});

test('rules persist across reopening the database, ids keep increasing, compiled cache follows changes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-web-routing-'));
  const path = join(dir, 'svc.db');
  try {
    let db = openDatabase(path, { migrationList: [m003WebRouting] });
    assert.equal(schemaVersion(db), 3);
    let service = new RuleService(new RulesRepo(db));
    const changes: string[] = [];
    service.onChange((c) => changes.push(c.kind));
    const mock = service.add({ type: 'mock', pattern: 'get /api/users/:id', body: { id: '{{params.id}}' } });
    await runWebRoutingCommand('/web-routing block *.ads.test', service);
    await runWebRoutingCommand('/web-routing transform /api/* --header "X-A: 1" --replace "a" "b"', service);
    const tmp = await runWebRoutingCommand('/web-routing add /old -> /new', service);
    const req = toMatchRequest('GET', 'http://h/old');
    assert.equal(service.current().plan(req).action, 'redirect');
    service.remove((tmp.data as { rule: { id: number } }).rule.id);
    assert.equal(service.current().plan(req).action, 'pass', 'the compiled set is rebuilt after a removal');
    assert.deepEqual(changes, ['added', 'added', 'added', 'added', 'removed']);
    const before = service.list();
    assert.equal(before.length, 3);
    closeDatabase(db);

    db = openDatabase(path, { migrationList: [m003WebRouting] });
    service = new RuleService(new RulesRepo(db));
    assert.deepEqual(service.list(), before, 'same rules, same ids, same fields after reopening');
    assert.equal(service.list()[0]!.pattern, 'GET /api/users/:id');
    assert.equal(service.list()[0]!.id, mock.id);
    const p = service.current().plan(toMatchRequest('GET', 'http://h/api/users/7'));
    assert.equal(p.action === 'mock' && p.body(), '{"id":"7"}');
    const again = service.add({ type: 'block', pattern: '/z' });
    assert.ok(again.id > 4, 'AUTOINCREMENT never reuses the removed id');
    assert.equal(service.removeByPattern('*.ADS.test').length, 1, 'removal by pattern compares canonical forms');
    assert.throws(() => service.remove(999), (e: unknown) => e instanceof AppError && e.status === 404);
    assert.throws(() => service.add({ type: 'block', pattern: 'bad' }), (e: unknown) => e instanceof AppError && e.code === 'INVALID_PATTERN');
    assert.equal(service.list().length, 3, 'a rejected rule is not stored');
    assert.equal(service.clear(), 3);
    assert.equal(service.current().size, 0);
    closeDatabase(db);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a corrupted stored rule is reported and skipped; the others still apply', () => {
  const db = new Database(':memory:');
  m003WebRouting.up(db);
  const repo = new RulesRepo(db);
  const service = new RuleService(repo);
  service.add({ type: 'block', pattern: '/ok' });
  db.prepare("INSERT INTO web_routing_rules (type, pattern, spec, created_at) VALUES ('block', 'bad pattern', ?, 0)").run(
    JSON.stringify({ type: 'block', pattern: 'bad pattern', status: 403 }),
  );
  const fresh = new RuleService(repo);
  assert.equal(fresh.current().size, 1);
  assert.equal(fresh.invalidRules().length, 1);
  assert.match(fresh.invalidRules()[0]!.error, /Invalid pattern/);
  db.close();
});
