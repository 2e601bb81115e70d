// The media directory (<home>/media): uploads and screenshots, stored under safe names and found
// again by name, never outside the directory (links are followed only when they stay inside).
import { randomBytes } from 'node:crypto';
import { readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { link, readdir, rm, stat, writeFile } from 'node:fs/promises';
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

/** An upload being written: a hidden name (never served: SAFE_MEDIA_NAME starts with a letter or digit). */
const PARTIAL = /^\.upload-[0-9a-f]+\.part$/;

export class MediaStore {
  constructor(readonly dir: string) {}

  /** Removes uploads a crash left half-written (called at start, before anything is served). */
  removePartials(): number {
    const partials = readdirSync(this.dir).filter((name) => PARTIAL.test(name));
    for (const name of partials) rmSync(join(this.dir, name), { force: true });
    return partials.length;
  }

  /**
   * The user's cleanup (Settings › Traces and disk use): removes the stored files not changed for `days`
   * days. Media are never removed otherwise: chat messages link to them.
   */
  async removeOlderThan(days: number, now = Date.now()): Promise<{ removed: number; bytes: number }> {
    const cutoff = now - days * 86_400_000;
    let removed = 0;
    let bytes = 0;
    for (const name of await readdir(this.dir)) {
      if (!SAFE_MEDIA_NAME.test(name)) continue;
      const path = join(this.dir, name);
      const facts = await stat(path).catch(() => undefined);
      if (!facts?.isFile() || facts.mtimeMs >= cutoff) continue;
      await rm(path, { force: true });
      removed += 1;
      bytes += facts.size;
    }
    return { removed, bytes };
  }

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

  /**
   * Stores an upload under a fresh safe name, never replacing a file. It is written under a hidden
   * temporary name and appears under its own name only once complete, so a crash mid-write leaves
   * nothing that is served (and removePartials() clears it at the next start).
   */
  async save(originalName: string, bytes: Buffer, type: string): Promise<UploadedFile> {
    const filename = storedName(sanitizeFileName(originalName), new Date(), randomBytes(3).toString('hex'));
    // the real path, the same one /api/message attachments resolve to
    const dir = realpathSync(this.dir);
    const path = join(dir, filename);
    const partial = join(dir, `.upload-${randomBytes(6).toString('hex')}.part`);
    try {
      await writeFile(partial, bytes, { flag: 'wx', mode: 0o600 });
      // link, not rename: it fails instead of replacing a file of that name
      await link(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
    return { filename, url: `/media/${filename}`, path, size: bytes.length, type, name: originalName };
  }
}
