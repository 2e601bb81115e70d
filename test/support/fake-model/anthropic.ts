// Anthropic Messages API (POST /v1/messages): request normalization and the streamed events
// message_start / content_block_start / content_block_delta / content_block_stop / message_delta / message_stop.
import { hexId, splitArgs as splitJson, textOf, userText, type Answer, type NormalizedRequest, type SseFrame, type ToolSpec, type Turn } from './common.ts';

type Obj = Record<string, any>;

const stripReminders = (s: string) => s.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();

export function normalizeAnthropic(body: Obj): NormalizedRequest {
  const turns: Turn[] = [];
  const context: string[] = [];
  for (const m of (body['messages'] as Obj[] | undefined) ?? []) {
    if (m['role'] === 'assistant') {
      turns.push({ role: 'assistant' });
      continue;
    }
    if (m['role'] !== 'user') {
      // Claude Code 2.1 also sends `role: "system"` entries inside `messages` (agent lists, …).
      context.push(textOf(m['content']));
      continue;
    }
    const content = m['content'];
    if (Array.isArray(content) && content.some((b: Obj) => b?.['type'] === 'tool_result')) {
      for (const b of content as Obj[]) {
        if (b['type'] === 'tool_result') turns.push({ role: 'tool', text: textOf(b['content']) });
      }
      continue;
    }
    const blocks = typeof content === 'string' ? [content] : ((content as Obj[]) ?? []).map((b) => (b?.['type'] === 'text' ? String(b['text']) : ''));
    const text = userText(blocks.map(stripReminders), context);
    if (text) turns.push({ role: 'user', text });
  }
  const tools: ToolSpec[] = ((body['tools'] as Obj[] | undefined) ?? []).map((t) =>
    t['input_schema'] || !t['type'] || t['type'] === 'custom'
      ? { name: String(t['name']), kind: 'function', schema: t['input_schema'] }
      : { name: String(t['name'] ?? t['type']), kind: 'builtin' },
  );
  return {
    api: 'anthropic',
    model: String(body['model'] ?? ''),
    stream: body['stream'] === true,
    turns,
    tools,
    system: [textOf(body['system']), ...context].join('\n'),
  };
}

const usageStart = () => ({ input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

function signature(msgId: string): string {
  return Buffer.from(`fake-signature-${msgId}`).toString('base64');
}

type MessageAnswer = Extract<Answer, { kind: 'message' }>;

/** The complete content blocks of an answer (non-stream response / assistant message). */
export function anthropicContent(a: MessageAnswer, msgId: string): Obj[] {
  const blocks: Obj[] = [];
  if (a.thinking.length) blocks.push({ type: 'thinking', thinking: a.thinking.join(''), signature: signature(msgId) });
  if (a.text.length) blocks.push({ type: 'text', text: a.text.join('') });
  if (a.toolCall) {
    blocks.push({ type: 'tool_use', id: `toolu_${a.toolCall.id}`, name: a.toolCall.name, input: JSON.parse(a.toolCall.input) });
  }
  return blocks;
}

export function anthropicMessage(a: MessageAnswer, model: string): Obj {
  const id = `msg_${hexId()}`;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: anthropicContent(a, id),
    stop_reason: a.toolCall ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { ...usageStart(), output_tokens: 20 },
  };
}

export function anthropicEvents(a: MessageAnswer, model: string): SseFrame[] {
  const id = `msg_${hexId()}`;
  const ev = (data: Obj, chunk = false): SseFrame => ({ event: String(data['type']), data, chunk });
  const frames: SseFrame[] = [
    ev({
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usageStart() },
    }),
  ];
  let index = 0;
  if (a.thinking.length) {
    frames.push(ev({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const t of a.thinking) frames.push(ev({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: t } }, true));
    frames.push(ev({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: signature(id) } }));
    frames.push(ev({ type: 'content_block_stop', index }));
    index++;
  }
  if (a.text.length) {
    frames.push(ev({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const t of a.text) frames.push(ev({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }, true));
    frames.push(ev({ type: 'content_block_stop', index }));
    index++;
  }
  if (a.toolCall) {
    const tc = a.toolCall;
    frames.push(ev({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${tc.id}`, name: tc.name, input: {} } }));
    for (const part of splitJson(tc.input)) {
      frames.push(ev({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }, true));
    }
    frames.push(ev({ type: 'content_block_stop', index }));
  }
  frames.push(
    ev({ type: 'message_delta', delta: { stop_reason: a.toolCall ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } }),
  );
  frames.push(ev({ type: 'message_stop' }));
  return frames;
}
