// The full-text half of a search: which words to match in which index. bm25 reads, for every word, how
// many sections hold it, and scores every match; both grow with how common the word is. So a search is
// planned to stay fast however large the store (see docs/memory.md):
// - every word of the query is looked up in the word index; a word with letters outside ASCII is matched
//   as a prefix there (Korean particles follow the noun: 결정 finds 결정을) and, from 3 letters, inside
//   words through the trigram index (마이그레이션 finds 데이터베이스마이그레이션을);
// - a word found in more than half the sections is left out (bm25 gives it no weight at all), unless
//   the query has nothing else;
// - a word found in more than FREQUENT sections says little; when the query has rarer words, only those
//   are matched, rarest first, up to CANDIDATES sections in all, and bm25 ranks all of their matches;
// - a query of frequent words only is ranked among the CANDIDATES most recently written sections that
//   match it.
// In a store of up to FREQUENT sections nothing is ever left out.
import type { MemoryKind } from '../../protocol/memory.ts';
import { hasNonAscii } from './markdown.ts';
import type { MemoryRepo } from './memory.repo.ts';
import type { RankedList } from './ranking.ts';

export const FREQUENT = 400;
export const CANDIDATES = 800;
/** Sections each index contributes to the fusion. */
export const LIST_LIMIT = 50;
/** Words of a query that are looked up at all (a prompt can be long). */
export const MAX_TERMS = 16;

const phrase = (term: string, prefix: boolean) => `"${term.replace(/"/g, '""')}"${prefix ? '*' : ''}`;

/** A word as the word index stores it (unicode61 with remove_diacritics: café → cafe; Hangul unchanged). */
export const foldWord = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');

export interface Candidate {
  /** The FTS5 phrase. */
  q: string;
  /** Sections holding it (exact, an upper bound, or counted up to FREQUENT + 1). */
  docs: number;
}

export interface MatchPlan {
  match: string;
  /** Rank only sections with an id at least this (0: all). */
  minId: number;
}

/** What to MATCH for these words, given how many sections hold each; undefined when none matches. */
export function plan(candidates: readonly Candidate[], total: number, windowEdge: (match: string) => number): MatchPlan | undefined {
  const found = candidates.filter((c) => c.docs > 0).sort((a, b) => a.docs - b.docs);
  if (!found.length) return undefined;
  if (total <= FREQUENT) return { match: found.map((c) => c.q).join(' OR '), minId: 0 };
  const informative = found.filter((c) => c.docs <= total / 2);
  const pool = informative.length ? informative : found.slice(0, 1);
  const rare = pool.filter((c) => c.docs <= FREQUENT);
  if (rare.length) {
    const picked: string[] = [];
    let sum = 0;
    for (const c of rare) {
      if (picked.length && sum + c.docs > CANDIDATES) break;
      picked.push(c.q);
      sum += c.docs;
    }
    return { match: picked.join(' OR '), minId: 0 };
  }
  const match = pool.map((c) => c.q).join(' OR ');
  return { match, minId: windowEdge(match) };
}

/** The ranked lists of the word and trigram indexes for these query terms. */
export function textLists(repo: MemoryRepo, terms: readonly string[], kind?: MemoryKind): RankedList[] {
  const lookedUp = terms.slice(0, MAX_TERMS);
  const total = repo.sectionCount();
  const lists: RankedList[] = [];
  const wordCandidates = lookedUp.map((t) => {
    const prefix = hasNonAscii(t);
    const q = phrase(t, prefix);
    // (a word the tokenizer splits differently than we do is counted by matching it)
    return { q, docs: repo.wordDocs(foldWord(t), prefix) || repo.countUpTo('words', q, FREQUENT + 1) };
  });
  const words = plan(wordCandidates, total, (match) => repo.windowEdge('words', match, CANDIDATES));
  if (words) lists.push({ source: 'words', ...repo.rank('words', words.match, { ...words, kind, limit: LIST_LIMIT }) });
  // (counted, bounded: the trigram index has no word counts, and a phrase is not one trigram)
  const inside = lookedUp.filter((t) => hasNonAscii(t) && [...t].length >= 3).map((t) => phrase(t, false));
  const trigramCandidates = inside.map((q) => ({ q, docs: repo.countUpTo('trigram', q, FREQUENT + 1) }));
  const trigram = plan(trigramCandidates, Infinity, (match) => repo.windowEdge('trigram', match, CANDIDATES));
  if (trigram) lists.push({ source: 'trigram', ...repo.rank('trigram', trigram.match, { ...trigram, kind, limit: LIST_LIMIT }) });
  return lists;
}
