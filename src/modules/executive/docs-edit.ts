// Markdown edits of `POST /api/svc-ceo/docs/edit` (pure): which paths may be edited, and the three
// operations (append a section, replace a section, apply a unified diff). An edit that cannot be made
// exactly as asked fails with a reason; the caller then writes nothing.
import { isAbsolute, normalize, sep } from 'node:path';

export const MAX_DOCS_CONTENT = 20 * 1024;
export const MAX_DOCS_FILE = 1024 * 1024;

export type EditResult = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Whether a path (relative to the project root, or to svc's notes) may be edited: Markdown only,
 * and in the project only README.md and files under docs/. Null when allowed, else why not.
 */
export function docsPathRefusal(path: string, target: 'project' | 'notes'): string | null {
  if (!path || isAbsolute(path) || path.includes('\0') || path.includes('\\')) return 'give a relative path (e.g. docs/guide.md)';
  const clean = normalize(path);
  const parts = clean.split(sep);
  if (parts.some((p) => p === '..' || p.startsWith('.'))) return 'the path may not leave its root or name a hidden file or folder';
  if (!/\.(md|markdown)$/i.test(clean)) return 'only Markdown files (.md, .markdown) are edited here';
  if (target === 'project' && clean !== 'README.md' && parts[0] !== 'docs') return 'in the project only README.md and files under docs/ are edited';
  return null;
}

const headingOf = (line: string) => /^(#{1,6})\s+\S/.exec(line)?.[1]?.length;

/** Adds a section at the end, separated by a blank line. */
export function appendSection(doc: string, section: string): string {
  const body = section.replace(/\s+$/, '');
  if (!doc.trim()) return `${body}\n`;
  return `${doc.replace(/\s+$/, '')}\n\n${body}\n`;
}

/**
 * Replaces the section whose heading line is the first line of `section` (same text, same level):
 * from that heading to the next heading of the same or a higher level.
 */
export function replaceSection(doc: string, section: string): EditResult {
  const [heading] = section.split('\n');
  const level = headingOf(heading ?? '');
  if (!level) return { ok: false, reason: 'the content must start with the heading of the section to replace (e.g. "## Usage")' };
  const lines = doc.split('\n');
  const matches = lines.flatMap((l, i) => (l.trim() === heading!.trim() ? [i] : []));
  if (matches.length === 0) return { ok: false, reason: `no section "${heading!.trim()}" in the file` };
  if (matches.length > 1) return { ok: false, reason: `"${heading!.trim()}" appears ${matches.length} times; use a patch` };
  const start = matches[0]!;
  let end = start + 1;
  while (end < lines.length && !(headingOf(lines[end]!) && headingOf(lines[end]!)! <= level)) end++;
  const replacement = section.replace(/\s+$/, '').split('\n');
  const after = lines.slice(end);
  return { ok: true, text: [...lines.slice(0, start), ...replacement, ...(after.length ? [''] : []), ...after].join('\n') };
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newLines: number;
  lines: string[];
}

function parsePatch(patch: string): Hunk[] | string {
  const hunks: Hunk[] = [];
  let current: Hunk | null = null;
  const lines = patch.replace(/\n$/, '').split('\n');
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      current = { oldStart: Number(header[1]), oldLines: header[2] === undefined ? 1 : Number(header[2]), newLines: header[4] === undefined ? 1 : Number(header[4]), lines: [] };
      hunks.push(current);
    } else if (!current) {
      if (!/^(diff |index |--- |\+\+\+ )/.test(line) && line.trim()) return `unexpected line before the first hunk: "${line.slice(0, 80)}"`;
    } else if (line === '\\ No newline at end of file') {
      continue;
    } else if (/^[ +-]/.test(line) || line === '') {
      current.lines.push(line === '' ? ' ' : line);
    } else {
      return `a hunk line must start with a space, + or -: "${line.slice(0, 80)}"`;
    }
  }
  if (!hunks.length) return 'the patch has no hunk (@@ -a,b +c,d @@)';
  for (const h of hunks) {
    const removed = h.lines.filter((l) => l[0] !== '+').length;
    const added = h.lines.filter((l) => l[0] !== '-').length;
    if (removed !== h.oldLines || added !== h.newLines) return `a hunk at line ${h.oldStart} does not match its header counts`;
  }
  return hunks;
}

/**
 * Applies a unified diff to one file's text: every hunk's context and removed lines must match the
 * file exactly, at its stated line or (if the file moved) the nearest place; else nothing is applied.
 */
export function applyUnifiedDiff(doc: string, patch: string): EditResult {
  const hunks = parsePatch(patch);
  if (typeof hunks === 'string') return { ok: false, reason: hunks };
  const endsWithNewline = doc.endsWith('\n');
  const lines = doc === '' ? [] : doc.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let cursor = 0;
  for (const h of hunks) {
    const old = h.lines.filter((l) => l[0] !== '+').map((l) => l.slice(1));
    // a hunk that removes nothing inserts after its line; any other starts at it
    const at = findBlock(lines, old, h.oldLines === 0 ? h.oldStart : Math.max(0, h.oldStart - 1), cursor);
    if (at < 0) return { ok: false, reason: `the hunk at line ${h.oldStart} does not match the file` };
    out.push(...lines.slice(cursor, at), ...h.lines.filter((l) => l[0] !== '-').map((l) => l.slice(1)));
    cursor = at + old.length;
  }
  out.push(...lines.slice(cursor));
  const text = out.join('\n');
  return { ok: true, text: out.length && endsWithNewline ? `${text}\n` : text };
}

/** Where `block` occurs in `lines` at or after `from`, nearest to `hint`; -1 when nowhere. */
function findBlock(lines: string[], block: string[], hint: number, from: number): number {
  const fits = (i: number) => i >= from && i + block.length <= lines.length && block.every((b, k) => lines[i + k] === b);
  for (let d = 0; d <= lines.length; d++) {
    if (fits(hint - d)) return hint - d;
    if (fits(hint + d)) return hint + d;
  }
  return -1;
}
