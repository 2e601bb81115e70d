// Pure fuzzy matching of a target description against OCR words, for the offline OCR locator.
//
// The text to look for is the description's quoted part ("Save", 'Sign in', “Buy now”) when it has one,
// else its words without the generic ones (click, the, button, link, …). Every run of consecutive words of
// an OCR line up to the query's length + 1 is a candidate. Matching is by words, in order: each query
// word pairs with at most one word of the span, later words with later words, and a pair counts only when
// the two words are nearly the same (fuzzy within a word, for OCR slips: "Subrnit" is "Submit"). The score
// is the pairs' mean similarity times the square of the share of words paired (of the longer side), so
// every word must be there: "Submit payment" against a button "Submit order" shares one word of two and
// scores 0.25, far below the 0.5 threshold; the whole text scores 1. The score is then weighted by
// Tesseract's confidence in the words. Several places that match about equally well make the answer
// ambiguous: the confidence is halved, so the default threshold refuses to click and the report names them
// (narrow it with --region).
import type { Box, LocateAnswer } from '../types.ts';

export interface OcrWord {
  text: string;
  /** 0..100 (Tesseract). */
  confidence: number;
  box: Box;
}

export interface OcrLine {
  text: string;
  confidence: number;
  box: Box;
  words: OcrWord[];
}

export interface TextQuery {
  text: string;
  /** Taken from quotes in the description. */
  exact: boolean;
  /** Texts tried (the query without generic words, and the whole description): the best match counts. */
  variants: string[];
}

export interface TextMatch {
  text: string;
  box: Box;
  /** 0..1 how well the words match (wordMatchScore). */
  similarity: number;
  /** Mean word confidence, 0..100. */
  ocrConfidence: number;
  /** 0..1, similarity weighted by OCR confidence. */
  score: number;
  line: number;
}

const GENERIC = new Set([
  'the', 'a', 'an', 'click', 'press', 'tap', 'hit', 'select', 'choose', 'on', 'button', 'btn', 'link', 'tab', 'icon', 'menu',
  'item', 'option', 'field', 'checkbox', 'labeled', 'labelled', 'label', 'named', 'called', 'saying', 'says', 'that', 'which',
  'reads', 'read', 'with', 'text', 'word', 'words', 'titled', 'entry',
]);

/** Lowercase, accents off, anything but letters and digits becomes a space. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function queryFromDescription(description: string): TextQuery {
  // "…", “…”, ‘…’, «…» and '…' (escaped: the bundle is ASCII, scripts/build.mjs)
  const quoted = [...description.matchAll(/"([^"]+)"|\u201c([^\u201d]+)\u201d|\u2018([^\u2019]+)\u2019|\u00ab([^\u00bb]+)\u00bb|(?:^|[\s(])'([^']+)'(?=$|[\s).,!?:;])/g)]
    .map((m) => m.slice(1).find((g) => g !== undefined) ?? '')
    .map(normalizeText)
    .filter(Boolean);
  if (quoted.length) {
    const text = quoted.join(' ');
    return { text, exact: true, variants: quoted.length > 1 ? [text, ...quoted] : [text] };
  }
  const all = normalizeText(description);
  const kept = all.split(' ').filter((w) => w && !GENERIC.has(w)).join(' ');
  const text = kept || all;
  return { text, exact: false, variants: [...new Set([text, all].filter(Boolean))] };
}

export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

export function unionBox(boxes: Box[]): Box {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Two words are the same word when at least this similar (OCR slips); words of 1–2 characters must be equal. */
const WORD_SIMILARITY = 0.7;
/** Candidates below this are not worth reporting. */
const MIN_SCORE = 0.2;
/** Two matches whose scores differ by less than this are "the same" (ambiguous). */
const TIE = 0.05;

function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (Math.min(a.length, b.length) <= 2) return 0;
  const sim = 1 - levenshtein(a, b) / Math.max(a.length, b.length);
  return sim >= WORD_SIMILARITY ? sim : 0;
}

/**
 * How well a span of words says the query, 0..1: the best in-order pairing of query words with span
 * words (a longest-common-subsequence over word similarities), its mean similarity times the square of
 * the share of words paired.
 */
export function wordMatchScore(query: readonly string[], span: readonly string[]): number {
  if (!query.length || !span.length) return 0;
  // best[i][j]: [total similarity, pairs] of the best pairing of query[0..i) with span[0..j)
  let prev: [number, number][] = Array.from({ length: span.length + 1 }, () => [0, 0]);
  for (let i = 1; i <= query.length; i++) {
    const cur: [number, number][] = [[0, 0]];
    for (let j = 1; j <= span.length; j++) {
      const sim = wordSimilarity(query[i - 1]!, span[j - 1]!);
      let best = prev[j]!;
      if (cur[j - 1]![0] > best[0]) best = cur[j - 1]!;
      if (sim > 0 && prev[j - 1]![0] + sim > best[0]) best = [prev[j - 1]![0] + sim, prev[j - 1]![1] + 1];
      cur.push(best);
    }
    prev = cur;
  }
  const [total, pairs] = prev[span.length]!;
  if (!pairs) return 0;
  const coverage = pairs / Math.max(query.length, span.length);
  return (total / pairs) * coverage * coverage;
}

/** Every candidate span at or above the minimum similarity, best first. */
export function findMatches(query: TextQuery, lines: OcrLine[]): TextMatch[] {
  const variants = query.variants.map(normalizeText).filter(Boolean).map((v) => v.split(' '));
  if (!variants.length) return [];
  const qWords = Math.max(...variants.map((v) => v.length));
  const out: TextMatch[] = [];
  lines.forEach((line, li) => {
    const words = line.words.filter((w) => normalizeText(w.text));
    for (let i = 0; i < words.length; i++) {
      for (let n = 1; n <= qWords + 1 && i + n <= words.length; n++) {
        const span = words.slice(i, i + n);
        const text = span.map((w) => w.text).join(' ');
        const spanWords = normalizeText(text).split(' ');
        const sim = Math.max(...variants.map((v) => wordMatchScore(v, spanWords)));
        if (sim < MIN_SCORE) continue;
        const ocr = span.reduce((s, w) => s + w.confidence, 0) / span.length;
        const score = sim * (0.6 + 0.4 * Math.max(0, Math.min(100, ocr)) / 100);
        out.push({ text, box: unionBox(span.map((w) => w.box)), similarity: sim, ocrConfidence: ocr, score, line: li });
      }
    }
  });
  out.sort((a, b) => b.score - a.score || a.box.y - b.box.y || a.box.x - b.box.x);
  // One match per place: drop lower-scored spans that overlap a better one (e.g. "Cancel" inside "Cancel order").
  const kept: TextMatch[] = [];
  for (const m of out) if (!kept.some((k) => overlaps(k.box, m.box))) kept.push(m);
  return kept;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** A short account of the text on screen, for "not found" reports. */
export function seenText(lines: OcrLine[], max = 400): string {
  const texts = lines.map((l) => l.text.replace(/\s+/g, ' ').trim()).filter((t) => t.length > 0);
  if (!texts.length) return 'no readable text';
  let s = '';
  for (const t of texts) {
    const next = s ? `${s} | ${t}` : t;
    if (next.length > max) return `${s} | …`;
    s = next;
  }
  return s;
}

/** The OCR locator's answer for a description, from the recognized lines (image pixels). */
export function locateText(description: string, lines: OcrLine[]): LocateAnswer {
  const query = queryFromDescription(description);
  const seen = seenText(lines);
  if (!query.text) return { found: false, confidence: null, seen, reason: 'the description has no text to look for' };
  const matches = findMatches(query, lines);
  const best = matches[0];
  if (!best) return { found: false, confidence: 0, seen, reason: `no text on screen resembles "${query.text}"` };
  const ties = matches.filter((m) => best.score - m.score < TIE).length - 1;
  const confidence = Math.round((ties > 0 ? best.score / 2 : best.score) * 1000) / 1000;
  return {
    found: true,
    box: best.box,
    confidence,
    label: best.text,
    seen,
    ...(ties > 0 ? { alternatives: ties } : {}),
  };
}
