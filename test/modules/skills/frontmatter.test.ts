import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSkillMd } from '../../../src/modules/skills/index.ts';

test('SKILL.md frontmatter: name, description, category, requires in flow and block lists', () => {
  const md = `---
name: pdf
description: "Reads PDFs: text, tables"
category: documents
metadata: { "emoji": "x" }
requires:
  bins: [pdftotext, 'qpdf']
  env:
    - OPENAI_API_KEY
---
# PDF

Run pdftotext.
`;
  assert.deepEqual(parseSkillMd(md), {
    name: 'pdf',
    description: 'Reads PDFs: text, tables',
    category: 'documents',
    requires: { bins: ['pdftotext', 'qpdf'], env: ['OPENAI_API_KEY'] },
    body: '# PDF\n\nRun pdftotext.\n',
  });
  assert.deepEqual(parseSkillMd('no frontmatter'), { requires: { bins: [], env: [] }, body: 'no frontmatter' });
});
