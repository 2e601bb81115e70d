// Shared by the provider adapter tests: recorded fixtures, running an adapter over lines, and
// small views of the normalized events.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AdapterOutput, ExitInfo, InvocationRequest, NormalizedEvent, ProviderAdapter } from '../../src/agent/providers/types.ts';

export const FIXTURES = new URL('../fixtures/protocols/', import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function fixtureLines(name: string): string[] {
  return fixtureText(name).split('\n');
}

/** The recorded stderr with its `exit=<code>` trailer turned into ExitInfo. */
export function recordedExit(name: string): ExitInfo {
  const text = fixtureText(name);
  const match = /(?:^|\n)exit=(\d+)\s*$/.exec(text);
  assert.ok(match, `${name} has an exit trailer`);
  return { code: Number(match[1]), signal: null, stderr: text.slice(0, match.index) };
}

export interface Run<S> {
  state: S;
  outputs: AdapterOutput[];
  events: NormalizedEvent[];
}

/** Feeds lines to an adapter; `runFixture` also closes with the recording's exit status. */
export function adapterHarness<S>(adapter: ProviderAdapter<S>, defaultRequest: () => InvocationRequest) {
  const feed = (lines: string[], req = defaultRequest(), state = adapter.initialState(req)): Run<S> => {
    const outputs = lines.map((line) => adapter.parseLine(state, line));
    return { state, outputs, events: outputs.flatMap((o) => o.events) };
  };
  const runFixture = (name: string): Run<S> & { closing: NormalizedEvent[] } => {
    const run = feed(fixtureLines(`${name}.jsonl`));
    return { ...run, closing: adapter.finish(run.state, recordedExit(`${name}.stderr`)) };
  };
  return { feed, runFixture };
}

export function ofKind<K extends NormalizedEvent['kind']>(events: NormalizedEvent[], kind: K) {
  return events.filter((e): e is Extract<NormalizedEvent, { kind: K }> => e.kind === kind);
}

export function liveText(events: NormalizedEvent[]): string {
  return ofKind(events, 'text_delta')
    .map((e) => e.text)
    .join('');
}

/** The single event of a closing list, which must be a result. */
export function onlyResult(events: NormalizedEvent[]) {
  assert.equal(events.length, 1, JSON.stringify(events));
  const event = events[0];
  assert.ok(event && event.kind === 'result', 'a result');
  return event;
}

/** The kinds of the events in order, runs of text deltas counted once. */
export function shape(events: NormalizedEvent[]): string[] {
  const kinds: string[] = [];
  for (const e of events) if (!(e.kind === 'text_delta' && kinds.at(-1) === 'text_delta')) kinds.push(e.kind);
  return kinds;
}
