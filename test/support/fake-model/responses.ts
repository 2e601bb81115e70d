// OpenAI Responses API (POST /v1/responses): request normalization and the streamed events
// response.created … response.output_item.added / …delta… / response.output_item.done … response.completed.
import { hexId, splitArgs, textOf, userText, type Answer, type NormalizedRequest, type SseFrame, type ToolSpec, type Turn } from './common.ts';

type Obj = Record<string, any>;
type MessageAnswer = Extract<Answer, { kind: 'message' }>;

export function normalizeResponses(body: Obj): NormalizedRequest {
  const turns: Turn[] = [];
  const system: string[] = [textOf(body['instructions'])];
  const input = body['input'];
  const items: Obj[] = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : ((input as Obj[]) ?? []);
  for (const it of items) {
    const type = it['type'] ?? (it['role'] ? 'message' : undefined);
    if (type === 'message') {
      const role = it['role'];
      const c = it['content'];
      if (role === 'user') {
        const text = userText(Array.isArray(c) ? c.map(textOf) : [textOf(c)], system);
        if (text) turns.push({ role: 'user', text });
      }
      else if (role === 'assistant') turns.push({ role: 'assistant' });
      else system.push(textOf(c)); // developer / system
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output' || type === 'local_shell_call_output') {
      const out = it['output'];
      turns.push({ role: 'tool', text: typeof out === 'string' ? out : textOf(out) || JSON.stringify(out ?? '') });
    } else if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call' || type === 'reasoning') {
      if (turns[turns.length - 1]?.role !== 'assistant') turns.push({ role: 'assistant' });
    }
  }
  const tools: ToolSpec[] = ((body['tools'] as Obj[] | undefined) ?? []).map((t) =>
    t['type'] === 'function'
      ? { name: String(t['name']), kind: 'function', schema: t['parameters'] }
      : t['type'] === 'custom'
        ? { name: String(t['name']), kind: 'custom' }
        : { name: String(t['name'] ?? t['type']), kind: 'builtin' },
  );
  const format = body['text']?.['format'];
  return {
    api: 'responses',
    model: String(body['model'] ?? ''),
    stream: body['stream'] === true,
    turns,
    tools,
    system: system.filter(Boolean).join('\n'),
    ...(format?.['type'] === 'json_schema' ? { jsonSchema: format['schema'] ?? {} } : {}),
  };
}

interface Built {
  items: Obj[];
  frames: SseFrame[];
}

function build(a: MessageAnswer, model: string): { response: Obj; frames: SseFrame[] } {
  const respId = `resp_${hexId()}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const base = {
    id: respId,
    object: 'response',
    created_at: createdAt,
    model,
    error: null,
    incomplete_details: null,
    instructions: null,
    parallel_tool_calls: true,
    service_tier: 'default',
    tool_choice: 'auto',
    tools: [],
  };
  let seq = 0;
  const frames: SseFrame[] = [];
  const ev = (type: string, data: Obj, chunk = false) => frames.push({ event: type, data: { type, sequence_number: seq++, ...data }, chunk });
  ev('response.created', { response: { ...base, status: 'in_progress', output: [], usage: null } });
  ev('response.in_progress', { response: { ...base, status: 'in_progress', output: [], usage: null } });

  const out: Built['items'] = [];
  if (a.thinking.length) {
    const output_index = out.length;
    const id = `rs_${hexId()}`;
    const text = a.thinking.join('');
    ev('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [], encrypted_content: null } });
    ev('response.reasoning_summary_part.added', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    for (const d of a.thinking) ev('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta: d }, true);
    ev('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index: 0, text });
    ev('response.reasoning_summary_part.done', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text } });
    for (const d of a.thinking) ev('response.reasoning_text.delta', { item_id: id, output_index, content_index: 0, delta: d });
    ev('response.reasoning_text.done', { item_id: id, output_index, content_index: 0, text });
    const item = {
      id,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text }],
      content: [{ type: 'reasoning_text', text }],
      encrypted_content: null,
    };
    ev('response.output_item.done', { output_index, item });
    out.push(item);
  }
  if (a.text.length) {
    const output_index = out.length;
    const id = `msg_${hexId()}`;
    const text = a.text.join('');
    ev('response.output_item.added', { output_index, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    ev('response.content_part.added', { item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    for (const d of a.text) ev('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta: d, logprobs: [] }, true);
    ev('response.output_text.done', { item_id: id, output_index, content_index: 0, text, logprobs: [] });
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    ev('response.content_part.done', { item_id: id, output_index, content_index: 0, part });
    const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
    ev('response.output_item.done', { output_index, item });
    out.push(item);
  }
  if (a.toolCall) {
    const tc = a.toolCall;
    const output_index = out.length;
    const call_id = `call_${tc.id}`;
    if (tc.kind === 'custom') {
      const id = `ctc_${hexId()}`;
      ev('response.output_item.added', { output_index, item: { id, type: 'custom_tool_call', status: 'in_progress', call_id, name: tc.name, input: '' } });
      for (const d of splitArgs(tc.input)) ev('response.custom_tool_call_input.delta', { item_id: id, output_index, delta: d }, true);
      ev('response.custom_tool_call_input.done', { item_id: id, output_index, input: tc.input });
      const item = { id, type: 'custom_tool_call', status: 'completed', call_id, name: tc.name, input: tc.input };
      ev('response.output_item.done', { output_index, item });
      out.push(item);
    } else {
      const id = `fc_${hexId()}`;
      ev('response.output_item.added', { output_index, item: { id, type: 'function_call', status: 'in_progress', arguments: '', call_id, name: tc.name } });
      for (const d of splitArgs(tc.input)) ev('response.function_call_arguments.delta', { item_id: id, output_index, delta: d }, true);
      ev('response.function_call_arguments.done', { item_id: id, output_index, arguments: tc.input });
      const item = { id, type: 'function_call', status: 'completed', arguments: tc.input, call_id, name: tc.name };
      ev('response.output_item.done', { output_index, item });
      out.push(item);
    }
  }
  const reasoning = a.thinking.length ? 10 : 0;
  const response = {
    ...base,
    status: 'completed',
    output: out,
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: 120,
    },
  };
  ev('response.completed', { response });
  return { response, frames };
}

export function responsesEvents(a: MessageAnswer, model: string): SseFrame[] {
  return build(a, model).frames;
}

export function responsesObject(a: MessageAnswer, model: string): Obj {
  return build(a, model).response;
}
