// What the web UI needs of model endpoints without zod (models.ts has the schemas): the APIs, which providers
// speak each, how a run names an endpoint's model, and the context an agent needs.

/** The wire APIs a provider CLI can be pointed at (docs/models.md has which CLI speaks which). */
export const ENDPOINT_APIS = ['openai-chat', 'openai-responses', 'anthropic'] as const;
export type EndpointApi = (typeof ENDPOINT_APIS)[number];

/**
 * The provider CLIs a run can point at a server of each API (docs/models.md): for the run only, or for Pi, in svc's
 * own Pi directory beside its profiles. Gemini CLI speaks only the Gemini API.
 */
export const ENDPOINT_PROVIDERS: Record<EndpointApi, readonly string[]> = { 'openai-chat': ['opencode', 'pi'], 'openai-responses': ['codex', 'pi'], anthropic: ['claude', 'pi'] };

/** A run's model on an endpoint: `<endpoint id>/<the server's model id>`. */
export function endpointModel(model: string): { id: string; model: string } | undefined {
  const m = /^([a-z][a-z0-9-]{0,39})\/(.+)$/s.exec(model);
  return m ? { id: m[1]!, model: m[2]! } : undefined;
}

/** Below this many tokens of context an agent's tool calls get cut off: the probe warns. */
export const MIN_AGENT_CONTEXT = 16_384;
