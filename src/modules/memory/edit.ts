// What a save does to a file's text (POST /api/svc-memory/save `mode`). Pure. Content is written as
// given: no unescaping of "\n" or anything else.
import { badRequest } from '../../core/errors.ts';
import type { SaveMode } from '../../protocol/memory.ts';
import { forEachLine, headingOf, splitLines } from './markdown.ts';

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** The file's new text. `existing` is '' for a file that does not exist yet. */
export function applySave(existing: string, content: string, mode: SaveMode): string {
  if (!content.trim()) throw badRequest('INVALID_MEMORY_CONTENT', 'Nothing to save: the content is empty.');
  switch (mode) {
    case 'replace':
      return withNewline(content);
    case 'append':
      return append(existing, content);
    case 'section':
      return replaceSection(existing, content);
  }
}

/** Appended after one blank line, so the new text never runs into the last paragraph or heading. */
function append(existing: string, content: string): string {
  if (!existing.trim()) return withNewline(content);
  const base = existing.replace(/\s+$/, '');
  return `${base}\n\n${withNewline(content.replace(/^\s*\n/, ''))}`;
}

/**
 * The section whose heading has the same level and title as the content's first line is replaced by the
 * content (up to the next heading of the same or a higher level); without one, the content is appended.
 */
function replaceSection(existing: string, content: string): string {
  const contentLines = splitLines(content.replace(/^\s*\n/, ''));
  const target = headingOf(contentLines[0] ?? '');
  if (!target) {
    throw badRequest('INVALID_MEMORY_CONTENT', "In section mode the content must start with the Markdown heading of the section to replace, e.g. '## Database'.");
  }
  const lines = splitLines(existing);
  const sameTitle = (title: string) => title.toLowerCase() === target.title.toLowerCase();
  let start = -1;
  let end = lines.length;
  forEachLine(lines, 0, (line, index, inCode) => {
    if (inCode || end !== lines.length) return;
    const found = headingOf(line);
    if (!found) return;
    if (start < 0) {
      if (found.level === target.level && sameTitle(found.title)) start = index;
    } else if (found.level <= target.level) end = index;
  });
  if (start < 0) return append(existing, content);
  const before = lines.slice(0, start).join('\n').replace(/\s+$/, '');
  const after = lines.slice(end).join('\n').replace(/^\s+/, '');
  const section = contentLines.join('\n').replace(/\s+$/, '');
  return withNewline([before, section, after].filter(Boolean).join('\n\n'));
}
