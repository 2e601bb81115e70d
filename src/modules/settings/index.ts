// The settings module: the settings document composed of sections its owners declare, stored in
// SQLite, changed by validated merge patches, published (secrets masked) as `settings_changed`.
export { SettingsModel, networkSettings, mergePatch, type Sections, type SettingsOf } from './settings.model.ts';
export { SettingsService } from './settings.service.ts';
export { SettingsRepo } from './settings.repo.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadSettingsRoutes = () => import('./settings.routes.ts').then((m) => m.settingsRoutes);
