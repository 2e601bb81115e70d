// The vision-click skill: find a target in a screenshot (browser page or X11 desktop) by OCR, a
// vision model or a provider CLI, and act on it. The service loads on first use.
export { lazyVisionClickService, type LazyVisionClick } from './lazy.ts';
export { visionClickCommand, VISION_CLICK_HELP } from './commands.ts';
export { visionSettings, type VisionSettings } from './settings.ts';
export { visionClickSkill } from './skill.ts';
/** The OCR child process's entry (`svc __ocr-process`); loaded only there. */
export const loadOcrProcess = () => import('./locators/ocr-process.ts');
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadVisionClickRoutes = () => import('./vision-click.routes.ts').then((m) => m.visionClickRoutes);
