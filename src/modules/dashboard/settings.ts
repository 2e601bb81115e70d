// The manager's settings: the defaults, the fields a user set (one row of its database), and this
// run's start-up options on top (`svc dashboard serve --from/--count`, tests' intervals). A change
// made during the run replaces the start-up value of the fields it sets, is kept, and is applied at
// once (the owner is told the settings before and after).
import { badRequest } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { DASHBOARD_SETTINGS_DEFAULTS, DashboardSettingsSchema, type DashboardSettings, type DashboardSettingsPatch, type DashboardSettingsView } from '../../protocol/dashboard.ts';

/** `base` with the fields `patch` gives. Pure. */
export function mergeSettings<T extends DashboardSettingsPatch>(base: T, patch: DashboardSettingsPatch): T {
  const { scan, ...rest } = patch;
  const merged = { ...base, ...rest } as T;
  if (scan || base.scan) merged.scan = { ...base.scan, ...scan };
  return merged;
}

/** The dotted names of the fields a patch sets. Pure. */
export function fieldsOf(patch: DashboardSettingsPatch): string[] {
  const { scan, ...rest } = patch;
  return [...Object.keys(scan ?? {}).map((k) => `scan.${k}`), ...Object.keys(rest)];
}

/** `patch` without the fields `other` sets. Pure. */
function without(patch: DashboardSettingsPatch, other: DashboardSettingsPatch): DashboardSettingsPatch {
  const drop = new Set(fieldsOf(other));
  const { scan, ...rest } = patch;
  const kept: DashboardSettingsPatch = Object.fromEntries(Object.entries(rest).filter(([k]) => !drop.has(k)));
  const keptScan = Object.fromEntries(Object.entries(scan ?? {}).filter(([k]) => !drop.has(`scan.${k}`)));
  if (Object.keys(keptScan).length) kept.scan = keptScan;
  return kept;
}

/** One line for the activity feed: each field that changed, old → new. Pure. */
export function describeChange(previous: DashboardSettings, next: DashboardSettings): string {
  const flat = (s: DashboardSettings): Record<string, number> => ({ 'scan.from': s.scan.from, 'scan.count': s.scan.count, 'scan.intervalSec': s.scan.intervalSec, healthIntervalSec: s.healthIntervalSec, bridgeMaxBackoffSec: s.bridgeMaxBackoffSec });
  const a = flat(previous);
  const changes = Object.entries(flat(next)).filter(([k, v]) => a[k] !== v).map(([k, v]) => `${k} ${a[k]} → ${v}`);
  return changes.length ? changes.join(', ') : 'saved, no change';
}

export class DashboardSettingsService {
  private stored: DashboardSettingsPatch;

  constructor(
    private readonly db: Db,
    private overrides: DashboardSettingsPatch,
    private readonly onChange: (next: DashboardSettings, previous: DashboardSettings) => void,
  ) {
    const row = db.prepare('SELECT value FROM manager_settings WHERE id = 1').get() as { value: string } | undefined;
    const stored = row ? (JSON.parse(row.value) as DashboardSettingsPatch) : {};
    // a kept value this version no longer accepts falls back to the defaults
    this.stored = DashboardSettingsSchema.safeParse(mergeSettings(DASHBOARD_SETTINGS_DEFAULTS, stored)).success ? stored : {};
  }

  current(): DashboardSettings {
    return mergeSettings(mergeSettings(DASHBOARD_SETTINGS_DEFAULTS, this.stored), this.overrides);
  }

  view(): DashboardSettingsView {
    return { settings: this.current(), overridden: fieldsOf(this.overrides) };
  }

  update(patch: DashboardSettingsPatch): DashboardSettingsView {
    const stored = mergeSettings(this.stored, patch);
    const checked = DashboardSettingsSchema.safeParse(mergeSettings(DASHBOARD_SETTINGS_DEFAULTS, stored));
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw badRequest('INVALID_SETTING', `${issue.path.join('.')}: ${issue.message}`, { field: issue.path.join('.') });
    }
    const previous = this.current();
    this.db.prepare('INSERT INTO manager_settings (id, value, updated_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at').run(JSON.stringify(stored), Date.now());
    this.stored = stored;
    this.overrides = without(this.overrides, patch);
    this.onChange(this.current(), previous);
    return this.view();
  }
}
