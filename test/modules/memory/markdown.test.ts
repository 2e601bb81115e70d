// Reading memory files (src/modules/memory/markdown.ts) and what a save does to them (edit.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkMarkdown, datedAt, kindOf, MAX_CHUNK_CHARS, parseMemoryFile, queryTerms, trigramWords } from '../../../src/modules/memory/markdown.ts';
import { applySave } from '../../../src/modules/memory/edit.ts';

test('sections are cut at headings of level 1-3, with their heading path and line numbers in the file', () => {
  const text = [
    '---', 'kind: note', 'source: me', '---', // 1-4
    'Before any heading.', '', // 5-6
    '# Decisions', 'We decided things.', '', // 7-9
    '```md', '# not a heading inside code', '```', // 10-12
    '## Database', 'Postgres 16.', '#### A detail', 'stays in Database', // 13-16
    '### Backups', 'Nightly.', // 17-18
    '# Projects', '', '', // 19-21
  ].join('\n');
  const { fields, chunks } = chunkMarkdown(text);
  assert.deepEqual(fields, { kind: 'note', source: 'me' });
  assert.deepEqual(
    chunks.map((c) => [c.heading, c.startLine, c.endLine]),
    [
      ['', 5, 5],
      ['Decisions', 7, 12],
      ['Decisions > Database', 13, 16],
      ['Decisions > Database > Backups', 17, 18],
      ['Projects', 19, 19],
    ],
  );
  assert.equal(chunks[1]!.text, '# Decisions\nWe decided things.\n\n```md\n# not a heading inside code\n```');
  assert.match(chunks[2]!.text, /#### A detail\nstays in Database$/);
  // the same text hashes the same; a different heading path does not
  assert.equal(chunkMarkdown(text).chunks[2]!.hash, chunks[2]!.hash);
  assert.notEqual(chunks[0]!.hash, chunks[1]!.hash);
});

test('a frontmatter that is never closed is text; a file without headings is one section', () => {
  const { fields, chunks } = chunkMarkdown('---\nnot: frontmatter\njust text\n');
  assert.deepEqual(fields, {});
  assert.equal(chunks.length, 1);
  assert.deepEqual([chunks[0]!.startLine, chunks[0]!.endLine], [1, 3]);
  assert.deepEqual(chunkMarkdown('\n\n  \n').chunks, []);
});

test('a long section is cut at blank lines into parts that keep the heading', () => {
  const paragraph = `${'word '.repeat(150).trim()}.`; // ~750 chars
  const text = `## Long\n${Array.from({ length: 10 }, () => paragraph).join('\n\n')}\n`;
  const { chunks } = chunkMarkdown(text);
  assert.ok(chunks.length >= 3, `${chunks.length} parts`);
  for (const c of chunks) {
    assert.equal(c.heading, 'Long');
    assert.ok(c.text.length <= MAX_CHUNK_CHARS, `part of ${c.text.length} chars`);
  }
  assert.equal(chunks[0]!.startLine, 1);
  assert.equal(chunks.at(-1)!.endLine, 20);
  // parts follow each other without overlap
  for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i]!.startLine > chunks[i - 1]!.endLine);
});

test('kind from the place of the file, unless the frontmatter says otherwise; episodes dated by their name', () => {
  assert.equal(kindOf('profile.md'), 'profile');
  assert.equal(kindOf('notes/decisions.md'), 'note');
  assert.equal(kindOf('projects/x.md'), 'note');
  assert.equal(kindOf('episodes/2025-01-02.md'), 'episode');
  assert.equal(kindOf('procedures/deploy.md'), 'procedure');
  assert.equal(kindOf('notes/me.md', { kind: 'Profile' }), 'profile');
  assert.equal(kindOf('notes/x.md', { kind: 'nonsense' }), 'note');
  assert.equal(parseMemoryFile('x.md', '---\nkind: procedure\n---\n# How\n').kind, 'procedure');
  assert.equal(datedAt('episodes/2025-01-02.md', {}, 5), new Date(2025, 0, 2).getTime());
  assert.equal(datedAt('notes/a.md', { updated: '2024-03-04T00:00:00Z' }, 5), Date.parse('2024-03-04T00:00:00Z'));
  assert.equal(datedAt('notes/a.md', {}, 1234.6), 1235);
});

test('query terms and the words the trigram index holds', () => {
  assert.deepEqual(queryTerms('What did we decide about the Database? a b 7'), ['what', 'did', 'we', 'decide', 'about', 'the', 'database', '7']);
  assert.deepEqual(queryTerms('마이그레이션 결정'), ['마이그레이션', '결정']);
  assert.equal(queryTerms('x '.repeat(100) + 'one two three', 2).length, 2);
  assert.equal(trigramWords('We use 데이터베이스마이그레이션을 on Friday, café ok'), '데이터베이스마이그레이션을 café');
  assert.equal(trigramWords('plain English only'), '');
});

test('save modes: append after a blank line, replace, replace a section by its heading', () => {
  assert.equal(applySave('', 'first', 'append'), 'first\n');
  assert.equal(applySave('# Notes\nline\n', 'more', 'append'), '# Notes\nline\n\nmore\n');
  assert.equal(applySave('a\n\n\n', 'b\n', 'append'), 'a\n\nb\n');
  // content is kept as written: a literal backslash-n stays
  assert.equal(applySave('', 'keep \\n as is', 'append'), 'keep \\n as is\n');
  assert.equal(applySave('old\n', 'new', 'replace'), 'new\n');
  const file = '# Notes\nintro\n\n## Database\nMySQL\n### Detail\nold detail\n\n## Other\nkept\n';
  assert.equal(applySave(file, '## database\nPostgres 16', 'section'), '# Notes\nintro\n\n## database\nPostgres 16\n\n## Other\nkept\n');
  // a missing section is appended; a heading inside code is not a section
  assert.equal(applySave('```\n## Database\n```\n', '## Database\nx', 'section'), '```\n## Database\n```\n\n## Database\nx\n');
  assert.throws(() => applySave(file, 'no heading', 'section'), /must start with the Markdown heading/);
  assert.throws(() => applySave(file, '  \n', 'append'), (err: { code?: string }) => err.code === 'INVALID_MEMORY_CONTENT');
});
