// The full-text half of a search: which words to match in which index, bounded so that a search stays
// fast however large the store (see README "Memory"):
// - every word of the query is looked up in the word index; a word with letters outside ASCII is matched
//   as a prefix there (Korean particles follow the noun: 결정 finds 결정을) and, from 3 letters, inside
//   words through the trigram index (마이그레이션 finds 데이터베이스마이그레이션을);
// - a word found in more than FREQUENT sections says little (bm25 gives it almost no weight); when the
//   query has rarer words, only those are matched, rarest first, up to CANDIDATES sections in all;
// - a query of frequent words only is ranked among the CANDIDATES newest sections that match it.
// Below FREQUENT sections in the store nothing is left out: bm25 ranks every match.
import type { MemoryKind } from '../../protocol/memory.ts';
import { hasNonAscii } from './markdown.ts';
import type { MemoryRepo, TextIndex } from './memory.repo.ts';
import type { RankedList } from './ranking.ts';

export const FREQUENT = 1000;
export const CANDIDATES = 2000;
/** Sections each index contributes to the fusion. */
export const LIST_LIMIT = 50;
/** Words of a query that are looked up at all (a prompt can be long). */
export const MAX_TERMS = 16;

const phrase = (term: string, prefix: boolean) => `"${term.replace(/"/g, '""')}"${prefix ? '*' : ''}`;

export interface MatchPlan {
  match: string;
  /** Rank only sections with an id at least this (0: all). */
  minId: number;
}

/** What to MATCH in one index for these (already quoted) terms, or nothing when none matches. */
export function planMatch(repo: MemoryRepo, index: TextIndex, phrases: readonly string[]): MatchPlan | undefined {
  const counted = phrases.map((q) => ({ q, n: repo.countUpTo(index, q, FREQUENT + 1) })).filter((c) => c.n > 0);
  if (!counted.length) return undefined;
  const rare = counted.filter((c) => c.n <= FREQUENT).sort((a, b) => a.n - b.n);
  if (rare.length) {
    const picked: string[] = [];
    let sum = 0;
    for (const c of rare) {
      if (picked.length && sum + c.n > CANDIDATES) break;
      picked.push(c.q);
      sum += c.n;
    }
    return { match: picked.join(' OR '), minId: 0 };
  }
  const match = counted.map((c) => c.q).join(' OR ');
  return { match, minId: repo.windowEdge(index, match, CANDIDATES) };
}

/** The ranked lists of the word and trigram indexes for these query terms. */
export function textLists(repo: MemoryRepo, terms: readonly string[], kind?: MemoryKind): RankedList[] {
  const lookedUp = terms.slice(0, MAX_TERMS);
  const lists: RankedList[] = [];
  const words = planMatch(repo, 'words', lookedUp.map((t) => phrase(t, hasNonAscii(t))));
  if (words) lists.push({ source: 'words', ...repo.rank('words', words.match, { ...words, kind, limit: LIST_LIMIT }) });
  const inside = lookedUp.filter((t) => hasNonAscii(t) && [...t].length >= 3);
  const trigram = inside.length ? planMatch(repo, 'trigram', inside.map((t) => phrase(t, false))) : undefined;
  if (trigram) lists.push({ source: 'trigram', ...repo.rank('trigram', trigram.match, { ...trigram, kind, limit: LIST_LIMIT }) });
  return lists;
}
