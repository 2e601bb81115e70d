// Model endpoints: model servers a user runs (Ollama, llama.cpp, vLLM, LM Studio, LiteLLM, a gateway), the API each
// speaks, their keys, and probes of what they can do (docs/models.md).
export { EndpointsRepo } from './endpoints.repo.ts';
export { ModelEndpoints, type EndpointsDeps, type EndpointForRuns } from './endpoints.service.ts';
export type { EndpointRouteDeps } from './endpoints.routes.ts';
export const loadEndpointRoutes = () => import('./endpoints.routes.ts').then((m) => m.endpointRoutes);
