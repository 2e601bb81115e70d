// Messaging and media: GET /media/:filename serves a stored file (screenshots, uploads from
// POST /api/upload) from the media directory, and nothing outside it.
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import type { RouteModule } from './index.ts';
import { badRequest, notFound } from '../errors.ts';

// Never html, svg, xml or js: served from this origin they could run script against the API
// (same-origin XSS); they stay application/octet-stream, and the sandbox CSP below backs that up.
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

export const mediaRoutes: RouteModule = (app, ctx) => {
  app.get('/media/:filename', async (request, reply) => {
    const { filename } = request.params as { filename: string };
    const path = resolveMediaFile(ctx.home.media, filename);
    void reply
      .type(mediaType(path))
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .header('Cache-Control', 'private, max-age=3600');
    return reply.send(createReadStream(path));
  });
};
