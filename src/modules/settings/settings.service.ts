// Settings service: the validated, current settings, and the one way to change them.
import type { EventBus } from '../events/bus.ts';
import {
  DEFAULT_SETTINGS,
  mergePatch,
  redactSettings,
  validateSettings,
  withDefaults,
  type Settings,
} from '../config/settings.ts';
import type { SettingsRepo } from '../store/settings-repo.ts';
import { badRequest } from '../http/errors.ts';

export class SettingsService {
  private current: Settings;

  constructor(private readonly repo: SettingsRepo, private readonly bus: EventBus) {
    // A stored value that no longer validates (hand-edited database, removed option) is a clear
    // start-up error rather than a crash later.
    try {
      this.current = validateSettings(withDefaults(repo.readAll()));
    } catch (err) {
      throw new Error(`stored settings are invalid: ${(err as Error).message}. Fix them with PUT /api/settings or delete the settings row.`);
    }
  }

  get(): Settings {
    return this.current;
  }

  redacted(): unknown {
    return redactSettings(this.current);
  }

  /** Applies a merge patch; nothing is saved unless the whole result validates. */
  update(patch: unknown): Settings {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw badRequest('INVALID_SETTING', 'the body must be a JSON object of settings sections', { field: '(root)' });
    }
    const next = validateSettings(mergePatch(this.current, patch, DEFAULT_SETTINGS));
    const changed = (Object.keys(next) as (keyof Settings)[]).filter(
      (section) => JSON.stringify(next[section]) !== JSON.stringify(this.current[section]),
    );
    if (changed.length) {
      this.repo.writeSections(Object.fromEntries(changed.map((s) => [s, next[s]])));
      this.current = next;
      this.bus.publish('settings_changed', { sections: changed });
    }
    return this.current;
  }
}
