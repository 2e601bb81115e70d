// The web-ai skill: asks a web chat assistant (ChatGPT, Gemini, Claude, Grok, or any site a profile
// describes) in the controlled browser, and takes its code back. Vendor profiles are data (built-in, plus
// the user's <home>/web-ai-profiles.json). The driver runs in the browser server, which owns the pages;
// the core server reaches it through a client and adds what only it knows, the working directory.
export { WebAiService } from './web-ai.service.ts';
export { webAiClient, httpTransport } from './client.ts';
export { webAiCommand } from './slash-command.ts';
export { webAiSkill } from './skill.ts';
export type { WebAiApi } from './types.ts';

/** The parser and renderer of `svc web-ai …` (with the bodies' zod schemas). */
export const loadWebAiCommands = () => import('./commands.ts');
/** The driver side (playwright-core), for the browser server only. */
export const loadWebAiDriver = () => import('./driver.ts');
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadWebAiRoutes = () => import('./web-ai.routes.ts').then((m) => m.webAiRoutes);
