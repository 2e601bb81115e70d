// The providers module: the provider CLIs' registry, installation status and quota, over
// src/agent (registry, detect, quota).
export type { ProviderRouteDeps } from './providers.routes.ts';
