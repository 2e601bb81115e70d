// The OpenAI Realtime API's WebRTC call, as svc speaks it (pure): where the offer, the hang-up and
// the server-side ("sideband") WebSocket of a call go, the session svc configures on that socket, and
// the function calls a finished response asks for.
import type { RealtimeSettings } from './settings.ts';

export interface RealtimeUrls {
  /** POST multipart {sdp, session}: answers the SDP, names the call in Location. */
  calls: string;
  hangup(callId: string): string;
  sideband(callId: string): string;
}

export function realtimeUrls(baseUrl: string): RealtimeUrls {
  const base = baseUrl.replace(/\/+$/, '');
  const ws = base.replace(/^http/, 'ws');
  return {
    calls: `${base}/realtime/calls`,
    hangup: (callId) => `${base}/realtime/calls/${encodeURIComponent(callId)}/hangup`,
    sideband: (callId) => `${ws}/realtime?call_id=${encodeURIComponent(callId)}`,
  };
}

/** The call id from the answer's Location (`/v1/realtime/calls/<id>`). */
export function callIdOf(location: string | null): string | null {
  const last = location?.split('?')[0]!.split('/').filter(Boolean).pop();
  return last && /^[\w.-]{1,200}$/.test(last) ? decodeURIComponent(last) : null;
}

/** What the offer carries: the model and voice (set before the call starts). */
export const callSession = (s: RealtimeSettings) => ({ type: 'realtime', model: s.model, audio: { output: { voice: s.voice } } });

export interface FunctionDef {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The sideband's session.update: the executive's instructions and its tools as functions. */
export const sessionUpdate = (instructions: string, tools: readonly FunctionDef[]) => ({
  type: 'session.update',
  session: { type: 'realtime', instructions, tools: tools.map((t) => ({ type: 'function', ...t })), tool_choice: 'auto' },
});

export interface FunctionCall {
  callId: string;
  name: string;
  arguments: string;
}

/** The function calls of a `response.done` event (none for any other event). */
export function functionCalls(event: unknown): FunctionCall[] {
  const e = event as { type?: unknown; response?: { output?: unknown } };
  if (e?.type !== 'response.done' || !Array.isArray(e.response?.output)) return [];
  return e.response.output.flatMap((item: { type?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown }) =>
    item?.type === 'function_call' && typeof item.call_id === 'string' && typeof item.name === 'string'
      ? [{ callId: item.call_id, name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' }]
      : [],
  );
}

/** Hands a function's result back and asks the model to go on. */
export const functionOutput = (callId: string, output: string) => ({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
export const RESPONSE_CREATE = { type: 'response.create' } as const;

/** A spoken line's text, from the events that carry one: the person's (transcribed) or the model's. */
export function spokenText(event: unknown): { role: 'user' | 'executive'; text: string } | null {
  const e = event as { type?: unknown; transcript?: unknown };
  if (typeof e?.transcript !== 'string' || !e.transcript.trim()) return null;
  if (e.type === 'conversation.item.input_audio_transcription.completed') return { role: 'user', text: e.transcript.trim() };
  if (e.type === 'response.output_audio_transcript.done') return { role: 'executive', text: e.transcript.trim() };
  return null;
}
