// /api/models/endpoints: the model servers a user runs (list, add, change, remove) and their probes.
import { z } from 'zod';
import { noBody, route, routeGroup } from '../../http/routes.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';
import { EndpointCreateSchema, EndpointPatchSchema, ModelEndpointSchema, ProbeResultSchema, endpointId } from '../../protocol/models.ts';
import type { ModelEndpoints } from './endpoints.service.ts';

export interface EndpointRouteDeps {
  endpoints: ModelEndpoints;
}

const idParams = lazySchema(() => z.strictObject({ id: endpointId() }));
const one = lazySchema(() => z.object({ endpoint: ModelEndpointSchema }));

export const endpointRoutes = routeGroup('models', ({ endpoints }: EndpointRouteDeps) => [
  route({
    method: 'GET',
    url: '/api/models/endpoints',
    summary: 'The model endpoints: each server\'s base URL, the API it speaks, whether svc holds its key (never the key), its models and context size, and its last probe.',
    response: lazySchema(() => z.object({ endpoints: z.array(ModelEndpointSchema) })),
    handler: () => ({ endpoints: endpoints.list() }),
  }),
  route({
    method: 'POST',
    url: '/api/models/endpoints',
    status: 201,
    errors: [409],
    summary: 'Adds an endpoint: id (a-z, 0-9, "-"; not a provider\'s), name, baseUrl (http or https, no key in it; OpenAI APIs: with /v1, Anthropic: the root), api (openai-chat, openai-responses, anthropic), the key (apiKey) or the variable that holds it (apiKeyEnv), optional models and contextSize. 409 ENDPOINT_EXISTS when the id is taken.',
    body: EndpointCreateSchema,
    response: one,
    handler: ({ body }) => ({ endpoint: endpoints.add(body) }),
  }),
  route({
    method: 'PATCH',
    url: '/api/models/endpoints/:id',
    summary: 'Changes an endpoint\'s fields (null removes the key, the variable, the models or the context size). A new address, API or key drops the last probe.',
    params: idParams,
    body: EndpointPatchSchema,
    response: one,
    handler: ({ params, body }) => ({ endpoint: endpoints.update(params.id, body) }),
  }),
  route({
    method: 'DELETE',
    url: '/api/models/endpoints/:id',
    errors: [409],
    summary: 'Removes an endpoint and its key. 409 ENDPOINT_IN_USE, naming them, while the agent\'s model, the executive\'s or an employee\'s is one of its models.',
    params: idParams,
    response: lazySchema(() => z.object({ removed: z.string() })),
    handler: ({ params }) => {
      endpoints.remove(params.id);
      return { removed: params.id };
    },
  }),
  route({
    method: 'POST',
    url: '/api/models/endpoints/:id/probe',
    errors: [409],
    summary: 'Probes the server: the models it lists, a streamed answer (time to its first token), one tool call round trip, and the context it runs with, each timed, with warnings (no tool calls; under 16k of context, and how to raise it). A server that does not answer is said so within 5 s. 409 when the key\'s variable is not set.',
    params: idParams,
    body: noBody,
    response: lazySchema(() => z.object({ probe: ProbeResultSchema })),
    handler: async ({ params }) => ({ probe: await endpoints.probe(params.id) }),
  }),
]);
