// The media directory (<home>/media): uploads and screenshots, stored under safe names and found
// again by name, never outside the directory (links are followed only when they stay inside).
import { randomBytes } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { badRequest, notFound } from '../../core/errors.ts';
import type { UploadedFile } from '../../protocol/media.ts';
import { sanitizeFileName, storedName, type AttachedFile } from './attachments.ts';

// Never html, svg, xml or js: served from this origin they could run script against the API
// (same-origin XSS); they stay application/octet-stream, and the route's sandbox CSP backs that up.
const TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.avif': 'image/avif',
  '.txt': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.webm': 'video/webm',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
};

/** The type a media file is served with, from its extension. */
export const mediaType = (filename: string): string => TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';

/** A plain file name: no separators, no dot-dot, no hidden files, nothing the decoder turned into a path. */
export const SAFE_MEDIA_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Resolves a media file inside `dir`, following links only when they stay inside it. */
export function resolveMediaFile(dir: string, filename: string): string {
  if (!SAFE_MEDIA_NAME.test(filename) || filename.includes('..')) {
    throw badRequest('INVALID_FILENAME', 'A media file name has letters, digits, dots, dashes and underscores only.');
  }
  let real: string;
  let root: string;
  try {
    root = realpathSync(dir);
    real = realpathSync(join(dir, filename));
  } catch {
    throw notFound('media file', filename);
  }
  if (!real.startsWith(root + sep) || !statSync(real).isFile()) throw notFound('media file', filename);
  return real;
}

export class MediaStore {
  constructor(readonly dir: string) {}

  /** The absolute path of a stored file (400 for a name that is not a plain file name, 404 when absent). */
  resolve(filename: string): string {
    return resolveMediaFile(this.dir, filename);
  }

  /** Stored files as the agent is told about them; every name is resolved before anything happens. */
  attachments(filenames: readonly string[]): AttachedFile[] {
    return filenames.map((name) => {
      const path = this.resolve(name);
      return { path, type: mediaType(path), size: statSync(path).size };
    });
  }

  /** Stores an upload under a fresh safe name; never replaces a file. */
  async save(originalName: string, bytes: Buffer, type: string): Promise<UploadedFile> {
    const filename = storedName(sanitizeFileName(originalName), new Date(), randomBytes(3).toString('hex'));
    // the real path, the same one /api/message attachments resolve to
    const path = join(realpathSync(this.dir), filename);
    // 'wx': never replace a file (a name collision is a 500, not a silent overwrite)
    await writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
    return { filename, url: `/media/${filename}`, path, size: bytes.length, type, name: originalName };
  }
}
