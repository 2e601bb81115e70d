// The settings service (src/modules/settings/settings.service.ts) on an in-memory database and a real
// bus, without a server: start-up from storage, what a patch saves, what it publishes, what it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { AppError } from '../../../src/core/errors.ts';
import { EventBus, type BusEvent } from '../../../src/events/bus.ts';
import { settingsSection } from '../../../src/protocol/settings.ts';
import { openDatabase } from '../../../src/store/db.ts';
import { SettingsModel } from '../../../src/modules/settings/settings.model.ts';
import { SettingsRepo } from '../../../src/modules/settings/settings.repo.ts';
import { SettingsService } from '../../../src/modules/settings/settings.service.ts';
import { coreSettings } from '../../../src/servers/core.ts';

const model = new SettingsModel({
  api: settingsSection(() => z.strictObject({ key: z.string().meta({ writeOnly: true }), level: z.number().int().min(0) }), { key: '', level: 1 }),
  plain: settingsSection(() => z.strictObject({ on: z.boolean() }), { on: false }),
});

function setup(stored: Record<string, unknown> = {}) {
  const db = openDatabase(':memory:');
  const repo = new SettingsRepo(db);
  if (Object.keys(stored).length) repo.writeSections(stored);
  const bus = new EventBus();
  const events: BusEvent[] = [];
  bus.subscribe((e) => events.push(e));
  return { db, repo, bus, events, service: () => new SettingsService(model, repo, bus) };
}

test('start-up: defaults where nothing is stored, stored values over them', () => {
  assert.deepEqual(setup().service().get(), { api: { key: '', level: 1 }, plain: { on: false } });
  assert.deepEqual(setup({ api: { level: 4 } }).service().get(), { api: { key: '', level: 4 }, plain: { on: false } });
});

test('start-up with a stored value that no longer validates is a clear error naming the fix', () => {
  const { service } = setup({ api: { level: -2 } });
  assert.throws(service, (err: Error) => {
    assert.ok(!(err instanceof AppError));
    assert.match(err.message, /^stored settings are invalid: api\.level: .+\. Fix them with PUT \/api\/settings or delete the settings row\.$/);
    return true;
  });
});

test('a patch saves and publishes only the sections it changed, secrets masked', () => {
  const { repo, events, service } = setup();
  const settings = service();
  const next = settings.update({ api: { key: 'sk-secret-value' } });
  assert.deepEqual(next, { api: { key: 'sk-secret-value', level: 1 }, plain: { on: false } });
  assert.deepEqual(settings.get(), next);
  assert.deepEqual(repo.readAll(), { api: { key: 'sk-secret-value', level: 1 } }, 'only the changed section is written');
  assert.equal(events.length, 1);
  assert.equal(events[0]!.name, 'settings_changed');
  assert.deepEqual(events[0]!.payload, { sections: ['api'], values: { api: { key: '***', level: 1 } } });
  assert.deepEqual(settings.redacted(), { api: { key: '***', level: 1 }, plain: { on: false } });
  // a second service on the same storage reads it back
  assert.deepEqual(service().get(), next);
});

test('a patch that changes nothing saves and publishes nothing', () => {
  const { repo, events, service } = setup();
  const settings = service();
  assert.deepEqual(settings.update({ plain: { on: false } }), { api: { key: '', level: 1 }, plain: { on: false } });
  assert.deepEqual(settings.update({}), settings.get());
  assert.deepEqual(repo.readAll(), {});
  assert.equal(events.length, 0);
  settings.update({ plain: { on: true }, api: { level: 1 } });
  assert.deepEqual(events.map((e) => e.payload), [{ sections: ['plain'], values: { plain: { on: true } } }]);
});

test('a refused patch changes nothing: not an object, or a result that does not validate', () => {
  const { repo, events, service } = setup();
  const settings = service();
  for (const body of [null, [1], 'x', 3]) {
    assert.throws(() => settings.update(body), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.deepEqual(err.toBody(), { error: 'INVALID_SETTING', message: 'the body must be a JSON object of settings sections', field: '(root)' });
      return true;
    }, JSON.stringify(body));
  }
  assert.throws(() => settings.update({ api: { key: 'k', level: -1 } }), (err: unknown) => err instanceof AppError && err.toBody().field === 'api.level');
  assert.deepEqual(settings.get(), model.defaults);
  assert.deepEqual(repo.readAll(), {});
  assert.equal(events.length, 0);
});

test("every core section's defaults are what its schema makes of them, so a start may take them unvalidated", () => {
  // as text: the fields in the schema's order too, the order GET /api/settings answers them in
  for (const [name, section] of Object.entries(coreSettings.sections)) {
    assert.equal(JSON.stringify(section.schema.parse(section.defaults)), JSON.stringify(section.defaults), name);
  }
});

test('a start builds the schemas of the stored sections only', () => {
  const built: string[] = [];
  const counted = (name: string, schema: () => z.ZodType) => () => (built.push(name), schema());
  const sections = {
    stored: settingsSection(counted('stored', () => z.strictObject({ n: z.number() })), { n: 1 }),
    untouched: settingsSection(counted('untouched', () => z.strictObject({ on: z.boolean() })), { on: false }),
  };
  const db = openDatabase(':memory:');
  const repo = new SettingsRepo(db);
  repo.writeSections({ stored: { n: 2 } });
  const service = new SettingsService(new SettingsModel(sections), repo, new EventBus());
  assert.deepEqual(service.get(), { stored: { n: 2 }, untouched: { on: false } });
  assert.deepEqual(built, ['stored']);
  // a change validates the whole document
  service.update({ untouched: { on: true } });
  assert.deepEqual(built, ['stored', 'untouched']);
  db.close();
});
