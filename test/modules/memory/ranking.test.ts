// Ranking (src/modules/memory/ranking.ts) and the full-text lists over a real SQLite index (search.ts,
// memory.repo.ts): reciprocal rank fusion, kind and age weights, Korean found inside a word, the bounds
// that keep a large store fast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/store/db.ts';
import { MemoryRepo } from '../../../src/modules/memory/memory.repo.ts';
import { chunkMarkdown, kindOf, queryTerms, sha1 } from '../../../src/modules/memory/markdown.ts';
import { finalScore, freshness, fuse, snippetOf, RRF_K } from '../../../src/modules/memory/ranking.ts';
import { CANDIDATES, FREQUENT, foldWord, plan, textLists } from '../../../src/modules/memory/search.ts';

const DAY = 86_400_000;

function indexInto(repo: MemoryRepo, files: Record<string, string>, datedAt = Date.now()): void {
  repo.transaction(() => {
    for (const [path, text] of Object.entries(files)) {
      repo.replaceFile({ path, kind: kindOf(path), mtimeMs: datedAt, size: text.length, hash: sha1(text), datedAt }, chunkMarkdown(text).chunks);
    }
  });
}

/** Paths of the fused, weighed hits of a query (what the service ranks). */
function search(repo: MemoryRepo, query: string, now = Date.now()): string[] {
  const fused = fuse(textLists(repo, queryTerms(query)));
  return repo
    .chunks([...fused.keys()])
    .map((row) => ({ row, score: finalScore(fused.get(row.id)!, row.kind, row.datedAt, now) }))
    .sort((a, b) => b.score - a.score)
    .map((s) => `${s.row.path}#${s.row.heading}`);
}

test('reciprocal rank fusion: found by two lists beats found by one at the same rank', () => {
  const fused = fuse([
    { source: 'words', ids: [1, 2, 3] },
    { source: 'trigram', ids: [2, 4] },
  ]);
  assert.equal(fused.get(1)!.rrf, 1 / (RRF_K + 1));
  assert.equal(fused.get(2)!.rrf, 1 / (RRF_K + 2) + 1 / (RRF_K + 1));
  assert.deepEqual(fused.get(2)!.sources, ['words', 'trigram']);
  assert.ok(fused.get(2)!.rrf > fused.get(1)!.rrf);
  // equal scores share a rank (so the kind weight can order equal matches)
  const tied = fuse([{ source: 'words', ids: [7, 8, 9], scores: [-2, -2, -1] }]);
  assert.deepEqual([...tied.values()].map((f) => f.rrf), [1 / (RRF_K + 1), 1 / (RRF_K + 1), 1 / (RRF_K + 3)]);
});

test('episodes fade with age towards half weight; procedures, notes and the profile do not', () => {
  const now = Date.now();
  assert.equal(freshness('episode', now, now), 1);
  assert.ok(Math.abs(freshness('episode', now - 30 * DAY, now) - 0.75) < 1e-9);
  assert.ok(Math.abs(freshness('episode', now - 3650 * DAY, now) - 0.5) < 1e-9, 'never below half');
  assert.equal(freshness('procedure', now - 3650 * DAY, now), 1);
  assert.equal(freshness('note', now - 3650 * DAY, now), 1);
  const f = { rrf: 0.02, sources: [] };
  assert.ok(finalScore(f, 'profile', now, now) > finalScore(f, 'procedure', now, now));
  assert.ok(finalScore(f, 'procedure', now, now) > finalScore(f, 'note', now, now));
  assert.ok(finalScore(f, 'note', now, now) > finalScore(f, 'episode', now - 60 * DAY, now));
});

test('Korean is found by a piece of a word (trigram) and by a stem before its particle (prefix)', () => {
  const repo = new MemoryRepo(openDatabase(':memory:'));
  indexInto(repo, {
    'notes/db.md': '# 데이터베이스\n데이터베이스마이그레이션을 금요일에 하지 않기로 결정했다.\n',
    'notes/ui.md': '# 화면\n사용자는 다크모드를 선호한다.\n',
    'notes/en.md': '# Deploys\nWe never deploy on Fridays.\n',
  });
  assert.deepEqual(search(repo, '마이그레이션'), ['notes/db.md#데이터베이스'], 'inside a word');
  assert.deepEqual(search(repo, '결정'), ['notes/db.md#데이터베이스'], 'a two-letter stem before its ending');
  assert.deepEqual(search(repo, '다크모드'), ['notes/ui.md#화면']);
  assert.deepEqual(search(repo, 'friday deploy'), ['notes/en.md#Deploys']);
  assert.deepEqual(search(repo, 'nothing-like-this'), []);
  const lists = textLists(repo, queryTerms('마이그레이션 결정'));
  assert.deepEqual(lists.map((l) => l.source), ['words', 'trigram']);
  const { snippet, marks } = snippetOf('# 데이터베이스\n데이터베이스마이그레이션을 금요일에', ['마이그레이션']);
  assert.equal(snippet, '데이터베이스마이그레이션을 금요일에');
  assert.deepEqual(marks.map((m) => snippet.slice(m.start, m.end)), ['마이그레이션']);
});

test('a heading match ranks above a body match; the kind weight and age order equal matches', () => {
  const repo = new MemoryRepo(openDatabase(':memory:'));
  const now = Date.now();
  indexInto(repo, {
    'notes/a.md': '# Misc\nWe talked about kubernetes once, among many other things that day.\n',
    'notes/b.md': '# Kubernetes\nThe cluster runs 1.30.\n',
  });
  assert.deepEqual(search(repo, 'kubernetes', now), ['notes/b.md#Kubernetes', 'notes/a.md#Misc']);

  const same = '# Release\nHow we release the app.\n';
  const weighed = new MemoryRepo(openDatabase(':memory:'));
  indexInto(weighed, { 'episodes/2020-01-01.md': same }, now - 400 * DAY);
  indexInto(weighed, { 'notes/release.md': same, 'procedures/release.md': same }, now);
  assert.deepEqual(search(weighed, 'release', now), ['procedures/release.md#Release', 'notes/release.md#Release', 'episodes/2020-01-01.md#Release']);
});

test('planning: words in most sections are left out, rare words are matched, frequent words alone rank the newest', () => {
  const edge = () => 42;
  assert.equal(plan([{ q: 'a', docs: 0 }], 1000, edge), undefined);
  // a word in more than half the sections carries no weight in bm25: it is left out
  assert.deepEqual(plan([{ q: 'the', docs: 900 }, { q: 'zanzibar', docs: 3 }], 1000, edge), { match: 'zanzibar', minId: 0 });
  // … but not in a small store, where every match counts
  assert.deepEqual(plan([{ q: 'the', docs: 300 }, { q: 'zanzibar', docs: 3 }], FREQUENT, edge), { match: 'zanzibar OR the', minId: 0 });
  // rarest first, up to CANDIDATES sections
  assert.deepEqual(plan([{ q: 'b', docs: CANDIDATES - 10 }, { q: 'a', docs: 5 }, { q: 'c', docs: 20 }], 100_000, edge), { match: 'a OR c', minId: 0 });
  // one rare word is always matched, however many sections hold it
  assert.deepEqual(plan([{ q: 'x', docs: FREQUENT }], 100_000, edge), { match: 'x', minId: 0 });
  // frequent words only: ranked among the newest matches
  assert.deepEqual(plan([{ q: 'x', docs: FREQUENT + 1 }, { q: 'y', docs: 5000 }], 100_000, edge), { match: 'x OR y', minId: 42 });
  // nothing but words in most sections: the rarest of them
  assert.deepEqual(plan([{ q: 'the', docs: 900 }, { q: 'of', docs: 800 }], 1000, edge), { match: 'of', minId: 42 });
  assert.equal(foldWord('Café'), 'Cafe');
  assert.equal(foldWord('결정'), '결정');
});

test('a large store: rare words win over frequent ones, and the window holds the newest matches', () => {
  const repo = new MemoryRepo(openDatabase(':memory:'));
  const files: Record<string, string> = {};
  for (let i = 0; i < CANDIDATES + 100; i++) files[`notes/n${i}.md`] = `# Note ${i}\nthe meeting was about the budget ${i}\n`;
  files['notes/rare.md'] = '# Rare\nthe meeting chose zanzibar\n';
  indexInto(repo, files);
  assert.equal(repo.wordDocs('meeting', false), CANDIDATES + 101);
  assert.equal(repo.wordDocs('zanzi', true), 1);
  assert.deepEqual(search(repo, 'the meeting zanzibar'), ['notes/rare.md#Rare']);
  const [list] = textLists(repo, ['meeting']);
  assert.equal(list!.ids.length, 50);
  assert.ok(Math.min(...list!.ids) > repo.sectionCount() - CANDIDATES, 'only the newest matches were ranked');
});

test('prefix counts read whole code points: astral words, a word that folds to nothing, the last code point (a fuzzer found the 500)', () => {
  const repo = new MemoryRepo(openDatabase(':memory:'));
  // U+10428 and U+10429 are Deseret small letters: one code point, two UTF-16 units each
  indexInto(repo, { 'notes/deseret.md': '# Deseret\nthe word \u{10428}\u{10429}x stays\n', 'notes/other.md': '# Other\nplain words\n' });
  assert.equal(repo.wordDocs('\u{10428}', true), 1, 'an astral last letter: its pair is one code point');
  assert.equal(repo.wordDocs('\u{10428}\u{10429}', true), 1);
  assert.equal(repo.wordDocs('', true), 0, 'a lone combining mark folds to nothing: no range, the caller matches instead');
  assert.equal(repo.wordDocs('a\u{10FFFF}', true), 0);
  assert.equal(repo.wordDocs('\uD7FF', true), 0, 'the bound skips the surrogates');
  assert.deepEqual(search(repo, '𝅗𝅥'), [], 'the query that was a 500');
});
