// The web-ai driver (playwright-core), for the browser server only: loaded through index.ts's
// loadWebAiDriver, so the core server and the CLI never load playwright.
export { WebAiDriver, type WebAiDriverOptions } from './web-ai.driver.ts';
