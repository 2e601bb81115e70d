// The providers module: the provider CLIs' registry, installation status and quota, over
// src/agent (registry, detect, quota).
export type { ProviderRouteDeps } from './providers.routes.ts';
/** Its routes, imported on first use (the core server builds them on their first request: src/http/lazy-routes.ts). */
export const loadProviderRoutes = () => import('./providers.routes.ts').then((m) => m.providerRoutes);
