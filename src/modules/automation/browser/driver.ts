// The browser skill's driver side (playwright-core): the session that owns the browser, and the
// routes only the browser server has. Loaded by the browser server alone (through index.ts's
// loadBrowserDriver), so the core server and the CLI never load playwright.
export { BrowserSession } from './session.ts';
export { sessionApi } from './session-api.ts';
export { browserServerRoutes } from './browser-server.routes.ts';
