// Reading a memory file: its optional frontmatter, its kind and date, and its sections (the index's
// chunks). Pure: text in, values out.
import { createHash } from 'node:crypto';
import { MEMORY_KINDS, type MemoryKind } from '../../protocol/memory.ts';

/** Headings of these levels start a new section; deeper ones stay inside their parent's. */
export const SPLIT_LEVEL = 3;
/** A longer section is cut at blank lines into parts of about this size (the context quotes whole parts). */
export const MAX_CHUNK_CHARS = 3000;

export interface Frontmatter {
  fields: Record<string, string>;
  /** Line (0-based) where the body starts. */
  bodyStart: number;
}

export interface Chunk {
  /** Heading path, e.g. "Decisions > Database"; '' for text before the first heading. */
  heading: string;
  /** 1-based, inclusive, in the file as it is on disk. */
  startLine: number;
  endLine: number;
  text: string;
  hash: string;
}

export interface ParsedFile {
  kind: MemoryKind;
  fields: Record<string, string>;
  chunks: Chunk[];
}

export const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

export const splitLines = (text: string) => text.split(/\r?\n/);

/** `---` / `key: value` lines / `---` at the very top (no YAML library: flat keys only). */
export function parseFrontmatter(lines: readonly string[]): Frontmatter {
  if (lines[0]?.trimEnd() !== '---') return { fields: {}, bodyStart: 0 };
  const fields: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trimEnd() === '---' || line.trimEnd() === '...') return { fields, bodyStart: i + 1 };
    const match = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (match) fields[match[1]!.toLowerCase()] = match[2]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  // never closed: not frontmatter, just a file that starts with a rule
  return { fields: {}, bodyStart: 0 };
}

/** The kind a file's place gives it (`profile.md`, `episodes/`, `procedures/`, anything else a note); frontmatter `kind:` wins. */
export function kindOf(path: string, fields: Record<string, string> = {}): MemoryKind {
  const declared = fields.kind?.toLowerCase();
  if (declared && (MEMORY_KINDS as readonly string[]).includes(declared)) return declared as MemoryKind;
  const [first] = path.split('/');
  if (path === 'profile.md') return 'profile';
  if (first === 'episodes') return 'episode';
  if (first === 'procedures') return 'procedure';
  return 'note';
}

/** When an episode happened: a YYYY-MM-DD in its name, else frontmatter updated/created, else the file time. */
export function datedAt(path: string, fields: Record<string, string>, mtimeMs: number): number {
  const named = /(\d{4})-(\d{2})-(\d{2})/.exec(path.split('/').at(-1) ?? '');
  if (named) {
    const date = new Date(Number(named[1]), Number(named[2]) - 1, Number(named[3]));
    if (!Number.isNaN(date.getTime())) return date.getTime();
  }
  for (const key of ['updated', 'created']) {
    const value = fields[key] ? Date.parse(fields[key]!) : NaN;
    if (!Number.isNaN(value)) return value;
  }
  return Math.round(mtimeMs);
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;

/** A heading line outside code: its level and title. */
export function headingOf(line: string): { level: number; title: string } | undefined {
  const match = HEADING.exec(line);
  return match ? { level: match[1]!.length, title: match[2]!.trim() } : undefined;
}

/** Calls `visit` for each line with whether it is inside a fenced code block (fence lines count as inside). */
export function forEachLine(lines: readonly string[], from: number, visit: (line: string, index: number, inCode: boolean) => void): void {
  let fence: string | undefined;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    const open = FENCE.exec(line)?.[1];
    if (fence) {
      visit(line, i, true);
      if (open && open[0] === fence[0] && open.length >= fence.length && line.trim() === open) fence = undefined;
    } else if (open) {
      fence = open;
      visit(line, i, true);
    } else visit(line, i, false);
  }
}

/** A file's sections: one per heading of level ≤ SPLIT_LEVEL (and the text before the first), long ones cut in parts. */
export function chunkMarkdown(text: string): { fields: Record<string, string>; chunks: Chunk[] } {
  const lines = splitLines(text);
  const { fields, bodyStart } = parseFrontmatter(lines);
  const chunks: Chunk[] = [];
  const stack: { level: number; title: string }[] = [];
  let start = bodyStart;
  let heading = '';
  const close = (end: number) => pushSection(chunks, lines, start, end, heading);
  forEachLine(lines, bodyStart, (line, index, inCode) => {
    const found = inCode ? undefined : headingOf(line);
    if (!found || found.level > SPLIT_LEVEL) return;
    close(index);
    while (stack.length && stack.at(-1)!.level >= found.level) stack.pop();
    stack.push(found);
    heading = stack.map((h) => h.title).join(' > ');
    start = index;
  });
  close(lines.length);
  return { fields, chunks };
}

/** Lines [from, to) as one or more chunks: whole paragraphs packed up to MAX_CHUNK_CHARS; blank edges trimmed. */
function pushSection(out: Chunk[], lines: readonly string[], from: number, to: number, heading: string): void {
  const size = (a: number, b: number) => {
    let n = 0;
    for (let i = a; i < b; i++) n += lines[i]!.length + 1;
    return n;
  };
  let partStart = -1;
  let partEnd = -1;
  let partSize = 0;
  const flush = () => {
    if (partStart >= 0) out.push(makeChunk(lines, partStart, partEnd, heading));
    partStart = -1;
    partSize = 0;
  };
  const add = (a: number, b: number, n: number) => {
    if (partSize && partSize + n > MAX_CHUNK_CHARS) flush();
    if (partStart < 0) partStart = a;
    partEnd = b;
    partSize += n;
  };
  for (let i = from; i < to; ) {
    if (!lines[i]!.trim()) {
      i++;
      continue;
    }
    let j = i;
    while (j < to && lines[j]!.trim()) j++;
    const n = size(i, j);
    if (n <= MAX_CHUNK_CHARS) add(i, j, n);
    else for (let k = i; k < j; k++) add(k, k + 1, lines[k]!.length + 1); // one huge paragraph: by lines
    i = j;
  }
  flush();
}

function makeChunk(lines: readonly string[], from: number, to: number, heading: string): Chunk {
  const text = lines.slice(from, to).join('\n');
  return { heading, startLine: from + 1, endLine: to, text, hash: sha1(`${heading}\n${text}`) };
}

/** Frontmatter, kind and sections of a file at `path`. */
export function parseMemoryFile(path: string, text: string): ParsedFile {
  const { fields, chunks } = chunkMarkdown(text);
  return { kind: kindOf(path, fields), fields, chunks };
}

/** Words of letters and digits (the word index's idea of a token, near enough). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * What the trigram index holds for a text: its words that contain a letter outside ASCII (Hangul, CJK,
 * accented Latin…), which the word index cannot match inside. English words stay out: the word index and
 * its prefix search serve them, and leaving them out keeps the trigram index small and fast.
 */
export function trigramWords(text: string): string {
  const out: string[] = [];
  for (const word of text.match(WORD) ?? []) if (NON_ASCII.test(word)) out.push(word);
  return out.join(' ');
}

export const hasNonAscii = (text: string) => NON_ASCII.test(text);

/** The distinct words of a query, lower-cased, in order; single ASCII letters are dropped. */
export function queryTerms(query: string, max = 24): string[] {
  const seen = new Set<string>();
  for (const raw of query.normalize('NFC').match(WORD) ?? []) {
    const term = raw.toLowerCase();
    if (term.length < 2 && !NON_ASCII.test(term) && !/\d/.test(term)) continue;
    seen.add(term);
    if (seen.size >= max) break;
  }
  return [...seen];
}
