// The memory block added to a prompt: the profile first (who the user is applies to every request),
// then the sections most relevant to the request, diversified (at most MAX_PER_FILE from one file and
// MAX_PER_KIND of one kind, so one long diary does not crowd out a decision), all within a character
// budget. Pure: the caller searches and hands in the profile's sections and the ranked hits.
import type { ContextPart, MemoryContext, MemoryKind } from '../../protocol/memory.ts';
import type { ChunkRow } from './memory.repo.ts';

export const PROFILE_SHARE = 0.3;
export const MAX_PROFILE_CHARS = 1200;
export const MAX_PART_CHARS = 800;
export const MAX_PER_FILE = 2;
export const MAX_PER_KIND = 3;
/** A part is not squeezed into less room than this (a few words of a section help nobody). */
const MIN_PART_CHARS = 120;

const HEADER = '# Memory\nWhat svc remembers from earlier conversations (files under its memory directory). It may be out of date: what the user says now wins.';

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`);

const lines = (row: Pick<ChunkRow, 'startLine' | 'endLine'>) => (row.startLine === row.endLine ? `${row.startLine}` : `${row.startLine}-${row.endLine}`);

function render(part: ContextPart): string {
  const title = part.role === 'profile' ? `## Profile (${part.path})` : `## ${part.path}:${lines(part)} (${part.kind})`;
  return `${title}\n${part.text}`;
}

export interface ContextInput {
  query: string;
  budget: number;
  /** The profile file's sections, in file order (none when there is no profile). */
  profile: readonly ChunkRow[];
  /** Ranked hits, best first, with their score. */
  hits: readonly { row: ChunkRow; score: number }[];
  /** Hits of these kinds only (workers get procedures). */
  kinds?: readonly MemoryKind[];
}

export function buildContext(input: ContextInput): MemoryContext {
  const parts: ContextPart[] = [];
  const empty = { query: input.query, budget: input.budget, text: '', parts };
  if (input.budget <= HEADER.length + MIN_PART_CHARS) return empty;
  let used = HEADER.length;
  const room = () => input.budget - used - 2;
  const add = (part: ContextPart) => {
    parts.push(part);
    used += render(part).length + 2;
  };

  let profileWhole = false;
  if (input.profile.length) {
    const first = input.profile[0]!;
    const last = input.profile.at(-1)!;
    const whole = input.profile.map((r) => r.text).join('\n\n');
    const max = Math.min(MAX_PROFILE_CHARS, Math.floor(input.budget * PROFILE_SHARE));
    const text = clip(whole, max);
    const part: ContextPart = { role: 'profile', path: first.path, kind: 'profile', heading: '', startLine: first.startLine, endLine: last.endLine, text };
    if ((text.length >= MIN_PART_CHARS || text === whole) && render(part).length <= room()) {
      add(part);
      profileWhole = text === whole;
    }
  }

  const perFile = new Map<string, number>();
  const perKind = new Map<MemoryKind, number>();
  for (const { row, score } of input.hits) {
    if (input.kinds && !input.kinds.includes(row.kind)) continue;
    if (row.kind === 'profile' && profileWhole) continue;
    if ((perFile.get(row.path) ?? 0) >= MAX_PER_FILE || (perKind.get(row.kind) ?? 0) >= MAX_PER_KIND) continue;
    const probe: ContextPart = { role: 'hit', path: row.path, kind: row.kind, heading: row.heading, startLine: row.startLine, endLine: row.endLine, text: '', score };
    const space = room() - render(probe).length;
    if (space < MIN_PART_CHARS) break;
    add({ ...probe, text: clip(row.text, Math.min(MAX_PART_CHARS, space)) });
    perFile.set(row.path, (perFile.get(row.path) ?? 0) + 1);
    perKind.set(row.kind, (perKind.get(row.kind) ?? 0) + 1);
  }
  if (!parts.length) return empty;
  return { ...empty, text: [HEADER, ...parts.map(render)].join('\n\n') };
}
