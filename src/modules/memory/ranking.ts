// How search hits are ranked, in one place. Pure.
//
// 1. Each index gives a ranked list of sections: the word index (bm25, headings weigh double), the
//    trigram index (bm25), and the embeddings when configured (cosine similarity).
// 2. Reciprocal rank fusion: score = Σ 1 / (10 + rank) over the lists a section is in, so a section
//    found by two indexes beats one found by one, and no list's raw scores need to be comparable. (The
//    usual constant is 60, made for fusing many long lists; with two or three lists of 50, 10 keeps the
//    gap between the first ranks larger than the weights below, so the weights reorder near-equals
//    instead of overruling relevance.)
// 3. That score is multiplied by the kind's weight (profile 1.1, procedure 1.05, note and episode 1) and,
//    for episodes only, by their freshness: 0.5 + 0.5 · 2^(−age / 30 days). Old episodes fade to half
//    weight, never out; procedures, notes and the profile do not age.
import type { MATCH_SOURCES, MemoryKind } from '../../protocol/memory.ts';

export type MatchSource = (typeof MATCH_SOURCES)[number];

export const RRF_K = 10;
export const KIND_WEIGHT: Readonly<Record<MemoryKind, number>> = { profile: 1.1, procedure: 1.05, note: 1, episode: 1 };
export const EPISODE_HALF_LIFE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface RankedList {
  source: MatchSource;
  /** Section ids, best first. */
  ids: readonly number[];
  /** Their scores in that list (better first, either direction): equal scores share a rank. */
  scores?: readonly number[];
}

export interface Fused {
  rrf: number;
  sources: MatchSource[];
}

export function fuse(lists: readonly RankedList[]): Map<number, Fused> {
  const out = new Map<number, Fused>();
  for (const list of lists) {
    let rank = 0;
    list.ids.forEach((id, index) => {
      if (index === 0 || list.scores?.[index] !== list.scores?.[index - 1] || !list.scores) rank = index + 1;
      const entry = out.get(id) ?? { rrf: 0, sources: [] };
      entry.rrf += 1 / (RRF_K + rank);
      if (!entry.sources.includes(list.source)) entry.sources.push(list.source);
      out.set(id, entry);
    });
  }
  return out;
}

/** 1 for everything but episodes; an episode's weight halves towards 0.5 every 30 days. */
export function freshness(kind: MemoryKind, datedAt: number, now: number): number {
  if (kind !== 'episode') return 1;
  const ageDays = Math.max(0, now - datedAt) / DAY_MS;
  return 0.5 + 0.5 * 2 ** (-ageDays / EPISODE_HALF_LIFE_DAYS);
}

export const finalScore = (fused: Fused, kind: MemoryKind, datedAt: number, now: number) =>
  fused.rrf * KIND_WEIGHT[kind] * freshness(kind, datedAt, now);

// ── snippets ────────────────────────────────────────────────────────────────────────────────

export const SNIPPET_CHARS = 240;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The section's text without its heading line (the hit names the heading separately). */
export function bodyOf(text: string): string {
  return /^\s{0,3}#{1,6}\s/.test(text) ? text.slice(text.indexOf('\n') + 1 || text.length) : text;
}

/**
 * About SNIPPET_CHARS of the section's text around its first match, whitespace collapsed, with the
 * stretches that match a query term. Plain text: the UI highlights `marks`, nothing is HTML.
 */
export function snippetOf(text: string, terms: readonly string[], size = SNIPPET_CHARS): { snippet: string; marks: { start: number; end: number }[] } {
  const flat = bodyOf(text).replace(/\s+/g, ' ').trim() || text.replace(/\s+/g, ' ').trim();
  const pattern = terms.length ? new RegExp([...terms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'giu') : undefined;
  const matches: { start: number; end: number }[] = [];
  if (pattern) for (const m of flat.matchAll(pattern)) if (m[0]) matches.push({ start: m.index, end: m.index + m[0].length });
  let start = 0;
  if (matches.length && flat.length > size) {
    start = Math.max(0, matches[0]!.start - Math.floor(size / 4));
    const space = flat.indexOf(' ', start);
    if (start > 0 && space >= 0 && space < matches[0]!.start) start = space + 1;
  }
  let end = Math.min(flat.length, start + size);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + size / 2) end = space;
  }
  const lead = start > 0 ? '…' : '';
  const snippet = `${lead}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
  const marks = matches
    .filter((m) => m.start >= start && m.end <= end)
    .map((m) => ({ start: m.start - start + lead.length, end: m.end - start + lead.length }));
  return { snippet, marks };
}
