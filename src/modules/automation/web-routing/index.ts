// The web-routing skill: interception rules (redirect, rewrite, block, mock, transform) stored in
// SQLite, applied by the local proxy and by the controlled browser, managed by routes and commands.
export { RuleService } from './web-routing.service.ts';
export { RulesRepo } from './web-routing.repo.ts';
export { webRoutingCommand, runWebRoutingCommand, WEB_ROUTING_USAGE } from './commands.ts';
export { startRoutingProxy, type RoutingProxy } from './proxy.ts';
export { RemoteRuleSource } from './remote-rules.ts';
export { attachToPage } from './browser.ts';
export type { RuleSource } from './rules.ts';
export { webRoutingSkill } from './skill.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadWebRoutingRoutes = () => import('./web-routing.routes.ts').then((m) => m.webRoutingRoutes);
