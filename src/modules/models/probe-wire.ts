// What a probe sends a model server in each API, and what it reads back (pure). The probe asks for a short
// streamed answer, then one tool-call round trip: a tool offered, the model's call, the tool's result sent back,
// and the model's answer after it (what every agent run does, and what a server without tool calling loses).
import type { EndpointApi } from '../../protocol/models.ts';

export const PROBE_TOOL = 'svc_probe_echo';
export const PROBE_WORD = 'pong';
export const ANSWER_PROMPT = `Say "${PROBE_WORD}" and nothing else.`;
export const TOOL_PROMPT = `Call the tool ${PROBE_TOOL} with the word "${PROBE_WORD}", then say what it returned.`;
const TOOL_DESCRIPTION = 'Returns the word it is given. Used by svc to check that tool calls work.';
const TOOL_PARAMETERS = { type: 'object', properties: { word: { type: 'string', description: 'the word to return' } }, required: ['word'] };

/** The server's root: the base URL without a trailing /v1 (where Ollama's, llama.cpp's and Anthropic's own paths are). */
export const serverRoot = (baseUrl: string): string => baseUrl.replace(/\/v1$/, '');

/** Where each API's calls go. OpenAI-style base URLs end in /v1 (as their clients take them); Anthropic's is the root. */
export function apiPaths(api: EndpointApi, baseUrl: string): { call: string; models: string } {
  if (api === 'anthropic') return { call: `${serverRoot(baseUrl)}/v1/messages`, models: `${serverRoot(baseUrl)}/v1/models` };
  return { call: `${baseUrl}/${api === 'openai-chat' ? 'chat/completions' : 'responses'}`, models: `${baseUrl}/models` };
}

export function authHeaders(api: EndpointApi, key: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (api === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    if (key) headers['x-api-key'] = key;
  } else if (key) headers.authorization = `Bearer ${key}`;
  return headers;
}

/** The streamed short answer's request. */
export function answerRequest(api: EndpointApi, model: string): Record<string, unknown> {
  if (api === 'openai-chat') return { model, stream: true, max_tokens: 32, messages: [{ role: 'user', content: ANSWER_PROMPT }] };
  if (api === 'openai-responses') return { model, stream: true, max_output_tokens: 32, input: ANSWER_PROMPT };
  return { model, stream: true, max_tokens: 32, messages: [{ role: 'user', content: ANSWER_PROMPT }] };
}

/** The text a streamed event carries (an SSE `data:` payload, parsed), if any. */
export function streamedText(api: EndpointApi, event: unknown): string {
  const e = event as Record<string, any>;
  if (api === 'openai-chat') return typeof e?.choices?.[0]?.delta?.content === 'string' ? e.choices[0].delta.content : '';
  if (api === 'openai-responses') return e?.type === 'response.output_text.delta' && typeof e.delta === 'string' ? e.delta : '';
  return e?.type === 'content_block_delta' && typeof e.delta?.text === 'string' ? e.delta.text : '';
}

/** The JSON payloads of an SSE body's `data:` lines (`[DONE]` and what is not JSON left out). */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    const m = /^data:\s?(.*)$/.exec(line.trimEnd());
    if (!m || m[1] === '[DONE]' || !m[1]) continue;
    try {
      out.push(JSON.parse(m[1]));
    } catch {
      /* not JSON */
    }
  }
  return out;
}

export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}

/** The first turn of the tool round trip: the prompt and the one tool. */
export function toolRequest(api: EndpointApi, model: string): Record<string, unknown> {
  if (api === 'openai-chat') {
    return { model, messages: [{ role: 'user', content: TOOL_PROMPT }], tools: [{ type: 'function', function: { name: PROBE_TOOL, description: TOOL_DESCRIPTION, parameters: TOOL_PARAMETERS } }] };
  }
  if (api === 'openai-responses') {
    return { model, input: [{ role: 'user', content: TOOL_PROMPT }], tools: [{ type: 'function', name: PROBE_TOOL, description: TOOL_DESCRIPTION, parameters: TOOL_PARAMETERS }] };
  }
  return { model, max_tokens: 256, messages: [{ role: 'user', content: TOOL_PROMPT }], tools: [{ name: PROBE_TOOL, description: TOOL_DESCRIPTION, input_schema: TOOL_PARAMETERS }] };
}

const parseArgs = (raw: unknown): unknown => {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
};

/** The call of the probe's tool in a (non-streamed) answer, if the model made one. */
export function toolCallIn(api: EndpointApi, answer: unknown): ToolCall | undefined {
  const a = answer as Record<string, any>;
  if (api === 'openai-chat') {
    const call = (a?.choices?.[0]?.message?.tool_calls ?? []).find((c: any) => c?.function?.name === PROBE_TOOL);
    return call ? { id: String(call.id), name: PROBE_TOOL, args: parseArgs(call.function.arguments) } : undefined;
  }
  if (api === 'openai-responses') {
    const call = (a?.output ?? []).find((o: any) => o?.type === 'function_call' && o.name === PROBE_TOOL);
    return call ? { id: String(call.call_id), name: PROBE_TOOL, args: parseArgs(call.arguments) } : undefined;
  }
  const call = (a?.content ?? []).find((c: any) => c?.type === 'tool_use' && c.name === PROBE_TOOL);
  return call ? { id: String(call.id), name: PROBE_TOOL, args: call.input } : undefined;
}

/** The second turn: the first turn, the model's call, and the tool's result. */
export function toolResultRequest(api: EndpointApi, model: string, first: Record<string, unknown>, answer: unknown, call: ToolCall): Record<string, unknown> {
  const a = answer as Record<string, any>;
  if (api === 'openai-chat') {
    const messages = [...(first.messages as unknown[]), a.choices[0].message, { role: 'tool', tool_call_id: call.id, content: PROBE_WORD }];
    return { ...first, model, messages };
  }
  if (api === 'openai-responses') {
    const calls = (a.output as any[]).filter((o) => o?.type === 'function_call');
    return { ...first, model, input: [...(first.input as unknown[]), ...calls, { type: 'function_call_output', call_id: call.id, output: PROBE_WORD }] };
  }
  const messages = [...(first.messages as unknown[]), { role: 'assistant', content: a.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: PROBE_WORD }] }];
  return { ...first, model, messages };
}

/** The text of a (non-streamed) answer. */
export function answerText(api: EndpointApi, answer: unknown): string {
  const a = answer as Record<string, any>;
  if (api === 'openai-chat') return typeof a?.choices?.[0]?.message?.content === 'string' ? a.choices[0].message.content : '';
  if (api === 'openai-responses') {
    return (a?.output ?? [])
      .filter((o: any) => o?.type === 'message')
      .flatMap((o: any) => o.content ?? [])
      .map((c: any) => (typeof c?.text === 'string' ? c.text : ''))
      .join('');
  }
  return (a?.content ?? []).map((c: any) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('');
}

/** Model ids from a models list: OpenAI's and Anthropic's `{data: [{id}]}`, or Ollama's `/api/tags` `{models: [{name}]}`. */
export function modelIds(list: unknown): string[] {
  const l = list as Record<string, any>;
  const items: any[] = Array.isArray(l?.data) ? l.data : Array.isArray(l?.models) ? l.models : [];
  return items.map((m) => (typeof m?.id === 'string' ? m.id : typeof m?.name === 'string' ? m.name : undefined)).filter((id): id is string => Boolean(id));
}

/** The context window a server says, by what it is: vLLM's models list, llama.cpp's /props, Ollama's /api/show. */
export function contextFrom(kind: 'vllm' | 'llamacpp' | 'ollama', body: unknown, model?: string): number | undefined {
  const b = body as Record<string, any>;
  const positive = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined);
  if (kind === 'vllm') return positive((b?.data ?? []).find((m: any) => m?.id === model)?.max_model_len ?? b?.data?.[0]?.max_model_len);
  if (kind === 'llamacpp') return positive(b?.default_generation_settings?.n_ctx ?? b?.n_ctx);
  // Ollama: the num_ctx the model runs with, when its parameters set one (the model's own maximum is not what it runs with)
  const m = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(typeof b?.parameters === 'string' ? b.parameters : '');
  return m ? positive(Number(m[1])) : undefined;
}
