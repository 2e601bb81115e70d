// Settings service: the validated, current settings, and the one way to change them. Every change is
// published as `settings_changed` with the changed sections (secrets masked), so every client follows.
import type { EventBus } from '../../events/bus.ts';
import { badRequest } from '../../core/errors.ts';
import { mergePatch, type Sections, type SettingsModel, type SettingsOf } from './settings.model.ts';
import type { SettingsRepo } from './settings.repo.ts';

export class SettingsService<T extends Sections = Sections> {
  private current: SettingsOf<T>;

  constructor(
    readonly model: SettingsModel<T>,
    private readonly repo: SettingsRepo,
    private readonly bus: EventBus,
  ) {
    // A stored value that no longer validates (hand-edited database, removed option) is a clear
    // start-up error rather than a crash later.
    try {
      this.current = model.fromStorage(repo.readAll());
    } catch (err) {
      throw new Error(`stored settings are invalid: ${(err as Error).message}. Fix them with PUT /api/settings or delete the settings row.`);
    }
  }

  get(): SettingsOf<T> {
    return this.current;
  }

  redacted(): Record<string, unknown> {
    return this.model.redact(this.current);
  }

  /** Applies a merge patch; nothing is saved unless the whole result validates. */
  update(patch: unknown): SettingsOf<T> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw badRequest('INVALID_SETTING', 'the body must be a JSON object of settings sections', { field: '(root)' });
    }
    const next = this.model.validate(mergePatch(this.current, patch, this.model.defaults));
    const changed = (Object.keys(next) as (keyof T & string)[]).filter(
      (section) => JSON.stringify(next[section]) !== JSON.stringify(this.current[section]),
    );
    if (changed.length) {
      this.repo.writeSections(Object.fromEntries(changed.map((s) => [s, next[s]])));
      this.current = next;
      const values = this.model.redact(Object.fromEntries(changed.map((s) => [s, next[s]])) as Partial<SettingsOf<T>>);
      this.bus.publish('settings_changed', { sections: changed, values });
    }
    return this.current;
  }
}
