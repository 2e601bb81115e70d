// The browser skill: a Chromium browser driven over CDP by the browser server (`svc browser serve`,
// src/servers/browser.ts), which the core server and the CLI reach through BrowserClient (starting
// it on first use). The routes are the same on both servers (loadBrowserRoutes: the core server builds them
// on their first request, src/http/lazy-routes.ts).
export type { BrowserApi } from './browser.routes.ts';
export { BrowserClient, createBrowserClient, ensureServer, type SpawnCommand } from './client.ts';
export { browserClientFor } from './spawn.ts';
export { browserCommand } from './slash-command.ts';
export { browserSkill } from './skill.ts';
export { isPidAlive } from '../../../core/pid.ts';
export { DEFAULT_BROWSER_PORT } from './limits.ts';
export type { Action, ActionResult, ActionResultMap } from './types.ts';
export type { BrowserSession, SessionOptions, Tab } from './session.ts';
export { BROWSER_ERRORS, browserErrors, firstLine, fromPlaywright } from './errors.ts';

/** The command parser and renderer of `svc browser <action>` (with the actions' zod schemas). */
export const loadBrowserCommands = () => import('./commands.ts');
/** The driver side (playwright-core), for the browser server only. */
export const loadBrowserDriver = () => import('./driver.ts');
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadBrowserRoutes = () => import('./browser.routes.ts').then((m) => m.browserRoutes);
