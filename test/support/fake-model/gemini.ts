// Gemini API (POST /v1beta/models/<model>:streamGenerateContent?alt=sse and :generateContent):
// request normalization and GenerateContentResponse chunks (text parts, `thought: true` parts, functionCall).
import { hexId, textOf, userText, type Answer, type NormalizedRequest, type SseFrame, type ToolSpec, type Turn } from './common.ts';

type Obj = Record<string, any>;
type MessageAnswer = Extract<Answer, { kind: 'message' }>;

function functionResponseText(fr: Obj): string {
  const r = fr['response'];
  if (r == null) return '';
  if (typeof r === 'string') return r;
  for (const k of ['output', 'result', 'content', 'error']) {
    if (typeof r[k] === 'string') return r[k];
  }
  return textOf(r) || JSON.stringify(r);
}

export function normalizeGemini(body: Obj, model: string, stream: boolean): NormalizedRequest {
  const turns: Turn[] = [];
  const context: string[] = [];
  for (const c of (body['contents'] as Obj[] | undefined) ?? []) {
    const parts: Obj[] = c['parts'] ?? [];
    if (c['role'] === 'model') {
      turns.push({ role: 'assistant' });
      continue;
    }
    const responses = parts.filter((p) => p['functionResponse']);
    if (responses.length) {
      for (const p of responses) turns.push({ role: 'tool', text: functionResponseText(p['functionResponse']) });
      continue;
    }
    const text = userText(
      parts.filter((p) => typeof p['text'] === 'string' && !p['thought']).map((p) => p['text'] as string),
      context,
    );
    if (text) turns.push({ role: 'user', text });
  }
  const tools: ToolSpec[] = [];
  for (const t of (body['tools'] as Obj[] | undefined) ?? []) {
    const decls: Obj[] = t['functionDeclarations'] ?? t['function_declarations'] ?? [];
    for (const d of decls) {
      tools.push({ name: String(d['name']), kind: 'function', schema: d['parametersJsonSchema'] ?? d['parameters'] });
    }
    for (const k of Object.keys(t)) {
      if (k !== 'functionDeclarations' && k !== 'function_declarations') tools.push({ name: k, kind: 'builtin' });
    }
  }
  const gc = body['generationConfig'] ?? {};
  const json = gc['responseMimeType'] === 'application/json';
  const si = body['systemInstruction'] ?? body['system_instruction'];
  return {
    api: 'gemini',
    model,
    stream,
    turns,
    tools,
    system: [typeof si === 'string' ? si : textOf(si?.['parts'] ?? si), ...context].join('\n'),
    ...(json ? { jsonSchema: gc['responseJsonSchema'] ?? gc['responseSchema'] ?? {} } : {}),
  };
}

const usageMetadata = () => ({ promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 });

function parts(a: MessageAnswer): Obj[][] {
  const out: Obj[][] = [];
  for (const t of a.thinking) out.push([{ text: t, thought: true }]);
  for (const t of a.text) out.push([{ text: t }]);
  if (a.toolCall) out.push([{ functionCall: { name: a.toolCall.name, args: JSON.parse(a.toolCall.input) } }]);
  if (out.length === 0) out.push([{ text: '' }]);
  return out;
}

export function geminiEvents(a: MessageAnswer, model: string): SseFrame[] {
  const responseId = hexId(12);
  const all = parts(a);
  return all.map((p, i) => {
    const last = i === all.length - 1;
    return {
      data: {
        candidates: [{ content: { parts: p, role: 'model' }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
        usageMetadata: usageMetadata(),
        modelVersion: model,
        responseId,
      },
      chunk: true,
    };
  });
}

export function geminiObject(a: MessageAnswer, model: string): Obj {
  const merged: Obj[] = [];
  if (a.thinking.length) merged.push({ text: a.thinking.join(''), thought: true });
  if (a.text.length) merged.push({ text: a.text.join('') });
  if (a.toolCall) merged.push({ functionCall: { name: a.toolCall.name, args: JSON.parse(a.toolCall.input) } });
  return {
    candidates: [{ content: { parts: merged, role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageMetadata(),
    modelVersion: model,
    responseId: hexId(12),
  };
}
