// Uploads and attachments, the pure part: how an uploaded file is named in the media directory and
// how attached files are described to the agent. No I/O here (the routes do that). The limits and
// the wire shapes are in src/protocol/media.ts.
import { ATTACHMENTS_HEADER, formatSize } from '../../protocol/media.ts';

/** `yyyymmdd-hhmmss-` + 6 random chars + `-`: what storedName() puts before the sanitized name. */
const PREFIX_LENGTH = 23;
/** Media file names are at most 200 characters (SAFE_MEDIA_NAME in media.routes.ts). */
const MAX_SANITIZED = 200 - PREFIX_LENGTH;

/**
 * A user's file name made safe for the media directory: ASCII letters, digits, `.`, `_` and `-`
 * only (accents dropped, anything else one `-`), no `..`, no leading dot, the extension
 * lower-cased. Path tricks (`../x`, `a/b`) become plain names; an unusable name becomes `file`.
 */
export function sanitizeFileName(original: string, maxLength = MAX_SANITIZED): string {
  const ascii = original.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  // the extension is split off first, so a name of only non-ASCII letters keeps it ("фото.png" → "file.png")
  const ext = /\.([A-Za-z0-9]{1,16})$/.exec(ascii);
  const hasExt = ext !== null && ext.index > 0;
  const suffix = hasExt ? `.${ext[1]!.toLowerCase()}` : '';
  const trimEdges = (s: string) => s.replace(/^[.-]+|[.-]+$/g, '');
  const base = trimEdges(
    (hasExt ? ascii.slice(0, ext.index) : ascii)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/\.{2,}/g, '.'),
  );
  return (trimEdges(base.slice(0, maxLength - suffix.length)) || 'file') + suffix;
}

/** The stored name: `<yyyymmdd-hhmmss UTC>-<random>-<sanitized>`; sorts by upload time, never collides in practice. */
export function storedName(sanitized: string, now: Date, random: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${random}-${sanitized}`;
}

export interface AttachedFile {
  /** Absolute path on the server's disk (the agent's CLI reads it from there). */
  path: string;
  /** Media type; parameters such as `; charset=utf-8` are left out of the text. */
  type: string;
  size: number;
}

/**
 * The prompt the agent gets and the history keeps: the user's text, then one block listing the
 * attached files by absolute path. The block alone when the text is empty.
 */
export function withAttachments(prompt: string, files: AttachedFile[]): string {
  if (files.length === 0) return prompt;
  const lines = files.map((f) => `- ${f.path} (${f.type.split(';')[0]!.trim()}, ${formatSize(f.size)})`);
  const block = [ATTACHMENTS_HEADER, ...lines].join('\n');
  return prompt ? `${prompt}\n\n${block}` : block;
}
