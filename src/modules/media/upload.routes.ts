// POST /api/upload?filename=<original name>: the body is the file's raw bytes; it is stored in the
// media directory under a fresh safe name and served back by GET /media/:filename.
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { RouteModule } from './index.ts';
import { parseInput } from '../validate.ts';
import { ApiError, badRequest } from '../errors.ts';
import { sanitizeFileName, storedName, UPLOAD_LIMIT_BYTES, type UploadedFile } from '../../services/attachments.ts';


const required = "the file's original name is required: ?filename=<name>";
const uploadQuery = z.strictObject({ filename: z.string({ error: required }).min(1, required).max(200) });

// The three CORS-safelisted types are what a cross-site page may post without a preflight.
// Refusing them (and a missing type, which is just as "simple") means every accepted upload
// carries a type that forces a preflight, so a cross-site page can never post a file: the same
// rule the server's JSON-only parsing enforces for the other mutating routes. JSON is refused
// too: it means a client meant another API, and is told how to upload instead.
const REFUSED_TYPES = new Set(['multipart/form-data', 'application/x-www-form-urlencoded', 'text/plain', 'application/json']);
const MIME = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+$/;

/** Runs before the body is read: a refused type or a bad query costs no upload. */
async function checkUpload(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'];
  const essence = type?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (!MIME.test(essence) || REFUSED_TYPES.has(essence)) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE',
      `Send the file's raw bytes as the request body with Content-Type application/octet-stream (or the file's own type, e.g. image/png)${type ? `, not '${type}'` : ''}.`);
  }
  parseInput(uploadQuery, request.query, 'query');
}

export const uploadRoutes: RouteModule = (app, ctx) => {
  // An encapsulated scope: the bytes parser exists only here, every other route stays JSON-only.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.post('/api/upload', { bodyLimit: UPLOAD_LIMIT_BYTES, onRequest: checkUpload }, async (request, reply) => {
      const { filename: name } = parseInput(uploadQuery, request.query, 'query');
      const body = request.body as Buffer | undefined;
      if (!body?.length) throw badRequest('EMPTY_UPLOAD', "The upload is empty: send the file's bytes as the request body.");
      const filename = storedName(sanitizeFileName(name), new Date(), randomBytes(3).toString('hex'));
      // the real path, the same one /api/message attachments resolve to
      const path = join(realpathSync(ctx.home.media), filename);
      // 'wx': never replace a file (a name collision is a 500, not a silent overwrite)
      await writeFile(path, body, { flag: 'wx', mode: 0o600 });
      const uploaded: UploadedFile = { filename, url: `/media/${filename}`, path, size: body.length, type: request.headers['content-type']!, name };
      return reply.code(201).send(uploaded);
    });
  });
};
