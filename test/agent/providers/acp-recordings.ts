// Replaying an ACP recording ({"dir":"in"|"out","msg"} per line, test/fixtures/protocols/*-acp-*.jsonl)
// through an adapter: what the CLI sent goes to parseLine, and what the adapter writes is compared with what
// the recorder sent. Shared by the tests of the adapters that speak ACP (copilot, gemini, opencode).
import { readFileSync } from 'node:fs';
import type { AdapterOutput, InvocationRequest, NormalizedEvent, ProviderAdapter } from '../../../src/agent/providers/types.ts';

const FIXTURES = new URL('../../fixtures/protocols/', import.meta.url);

export type Rec = { dir: 'in' | 'out'; msg: Record<string, unknown> };

export function recording(name: string): Rec[] {
  return readFileSync(new URL(`${name}.jsonl`, FIXTURES), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);
}

/** The recorded prompt text (first session/prompt the recorder sent). */
export function recordedPrompt(recs: Rec[]): string {
  const prompt = recs.find((r) => r.dir === 'out' && r.msg.method === 'session/prompt');
  const params = prompt?.msg.params as { prompt: { text: string }[] };
  return params.prompt[0]!.text;
}

/** Our writes and the recorder's, compared without the client's name (the recorder called itself differently). */
export function normalizeWrite(message: Record<string, unknown>): Record<string, unknown> {
  if (message.method !== 'initialize') return message;
  const params = { ...(message.params as Record<string, unknown>) };
  delete params.clientInfo;
  return { ...message, params };
}

export function recordedWrites(recs: Rec[]) {
  return recs.filter((r) => r.dir === 'out').map((r) => normalizeWrite(r.msg));
}

export interface Drive<S> {
  state: S;
  events: NormalizedEvent[];
  writes: Record<string, unknown>[];
  outputs: AdapterOutput[];
  closedAfter?: number;
}

/**
 * Runs start() and feeds every "in" message of `recs`, collecting events, writes and when stdin was closed.
 * With `answer`, each permission request is answered at once as a person would (allow or deny).
 */
export function driveAcp<S>(adapter: ProviderAdapter<S>, recs: Rec[], req: InvocationRequest, state = adapter.initialState(req), answer?: { allow: boolean }): Drive<S> {
  const d: Drive<S> = { state, events: [], writes: [], outputs: [] };
  const collect = (out: AdapterOutput, index: number) => {
    d.outputs.push(out);
    d.events.push(...out.events);
    for (const w of out.writes ?? []) d.writes.push(JSON.parse(w) as Record<string, unknown>);
    if (out.closeStdin) d.closedAfter ??= index;
  };
  collect(adapter.start!(state, req), -1);
  recs.forEach((r, i) => {
    if (r.dir !== 'in') return;
    const out = adapter.parseLine(state, JSON.stringify(r.msg));
    collect(out, i);
    for (const e of out.events) {
      if (e.kind !== 'permission_request' || !answer) continue;
      collect(adapter.answerPermission!(state, e.requestId, answer.allow ? { allow: true } : { allow: false, reason: 'no' }), i);
    }
  });
  return d;
}

export function finalText(events: NormalizedEvent[]): string {
  return events.map((e) => (e.kind === 'text_delta' ? e.text : '')).join('');
}

export function ofKind<K extends NormalizedEvent['kind']>(events: NormalizedEvent[], kind: K) {
  return events.filter((e): e is Extract<NormalizedEvent, { kind: K }> => e.kind === kind);
}
