// OpenAI Chat Completions (POST /v1/chat/completions): request normalization and the streamed
// chat.completion.chunk frames (delta.content, delta.reasoning_content, delta.tool_calls), then [DONE].
import { hexId, splitArgs, textOf, userText, type Answer, type NormalizedRequest, type SseFrame, type ToolSpec, type Turn } from './common.ts';

type Obj = Record<string, any>;
type MessageAnswer = Extract<Answer, { kind: 'message' }>;

export function normalizeChat(body: Obj): NormalizedRequest {
  const turns: Turn[] = [];
  const system: string[] = [];
  for (const m of (body['messages'] as Obj[] | undefined) ?? []) {
    const role = m['role'];
    if (role === 'system' || role === 'developer') system.push(textOf(m['content']));
    else if (role === 'user') {
      const c = m['content'];
      const text = userText(Array.isArray(c) ? c.map(textOf) : [textOf(c)], system);
      if (text) turns.push({ role: 'user', text });
    }
    else if (role === 'assistant') turns.push({ role: 'assistant' });
    else if (role === 'tool' || role === 'function') turns.push({ role: 'tool', text: textOf(m['content']) });
  }
  const tools: ToolSpec[] = ((body['tools'] as Obj[] | undefined) ?? []).map((t) =>
    t['type'] === 'function' || t['function']
      ? { name: String(t['function']?.['name']), kind: 'function', schema: t['function']?.['parameters'] }
      : { name: String(t['name'] ?? t['type']), kind: 'builtin' },
  );
  const rf = body['response_format'];
  return {
    api: 'chat',
    model: String(body['model'] ?? ''),
    stream: body['stream'] === true,
    turns,
    tools,
    system: system.join('\n'),
    ...(rf?.['type'] === 'json_schema' ? { jsonSchema: rf['json_schema']?.['schema'] ?? {} } : {}),
  };
}

const usage = () => ({
  prompt_tokens: 100,
  completion_tokens: 20,
  total_tokens: 120,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
});

export function chatEvents(a: MessageAnswer, model: string, includeUsage: boolean): SseFrame[] {
  const id = `chatcmpl-${hexId()}`;
  const created = Math.floor(Date.now() / 1000);
  const frames: SseFrame[] = [];
  const chunk = (delta: Obj, finish: string | null = null, isChunk = false) =>
    frames.push({
      data: { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
      chunk: isChunk,
    });
  chunk({ role: 'assistant', content: '' });
  for (const t of a.thinking) chunk({ reasoning_content: t }, null, true);
  for (const t of a.text) chunk({ content: t }, null, true);
  if (a.toolCall) {
    const tc = a.toolCall;
    chunk({ tool_calls: [{ index: 0, id: `call_${tc.id}`, type: 'function', function: { name: tc.name, arguments: '' } }] });
    for (const part of splitArgs(tc.input)) chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }, null, true);
  }
  chunk({}, a.toolCall ? 'tool_calls' : 'stop');
  if (includeUsage) {
    frames.push({ data: { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage: usage() } });
  }
  frames.push({ data: '[DONE]' });
  return frames;
}

export function chatObject(a: MessageAnswer, model: string): Obj {
  const message: Obj = { role: 'assistant', content: a.text.length ? a.text.join('') : null, refusal: null };
  if (a.thinking.length) message['reasoning_content'] = a.thinking.join('');
  if (a.toolCall) {
    message['tool_calls'] = [{ id: `call_${a.toolCall.id}`, type: 'function', function: { name: a.toolCall.name, arguments: a.toolCall.input } }];
  }
  return {
    id: `chatcmpl-${hexId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.toolCall ? 'tool_calls' : 'stop' }],
    usage: usage(),
  };
}
