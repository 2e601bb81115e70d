// Messaging and media: POST /api/upload stores a file's raw bytes in the media directory under a
// fresh safe name; GET /media/:filename serves a stored file (uploads, screenshots) and nothing
// outside that directory.
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { defineRoutes, route } from '../../http/routes.ts';
import { parseInput } from '../../http/validate.ts';
import { AppError, badRequest, forbidden } from '../../core/errors.ts';
import { callerOf } from '../../http/caller.ts';
import type { RunIdentity } from '../../protocol/caller.ts';
import { UPLOAD_LIMIT_BYTES, UploadedFileSchema } from '../../protocol/media.ts';
import { mediaType, type MediaStore } from './media.service.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

const required = "the file's original name is required: ?filename=<name>";
const uploadQuery = lazySchema(() => z.strictObject({ filename: z.string({ error: required }).min(1, required).max(200) }));

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
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE',
      `Send the file's raw bytes as the request body with Content-Type application/octet-stream (or the file's own type, e.g. image/png)${type ? `, not '${type}'` : ''}.`);
  }
  parseInput(uploadQuery, request.query, 'query');
}

export interface MediaRouteDeps {
  media: MediaStore;
  resolveRun(token: string): RunIdentity | undefined;
}

export const mediaRoutes: FastifyPluginAsync<MediaRouteDeps> = async (app, { media, resolveRun }) => {
  defineRoutes(app, 'media', [
    route({
      method: 'DELETE',
      url: '/api/media',
      summary: 'Removes the uploads and screenshots not changed for olderThanDays days (a person only): chat messages linking to them show them missing.',
      query: lazySchema(() => z.strictObject({ olderThanDays: z.coerce.number().int().min(1).max(36500) })),
      response: lazySchema(() => z.object({ removed: z.number().int(), bytes: z.number() })),
      handler: ({ query, request }) => {
        if (callerOf(request, resolveRun).kind === 'agent') throw forbidden('PERSON_REQUIRED', 'Only a person removes media files: an agent run\'s credential cannot.');
        return media.removeOlderThan(query.olderThanDays);
      },
    }),
    route({
      method: 'GET',
      url: '/media/:filename',
      summary: 'A stored media file (upload or screenshot); active types are served inert (octet-stream, sandbox CSP).',
      params: lazySchema(() => z.strictObject({ filename: z.string() })),
      produces: 'file',
      handler: ({ params, reply }) => {
        const path = media.resolve(params.filename);
        void reply
          .type(mediaType(path))
          .header('Content-Security-Policy', "default-src 'none'; sandbox")
          .header('Cache-Control', 'private, max-age=3600');
        return reply.send(createReadStream(path));
      },
    }),
  ]);

  // An encapsulated scope: the bytes parser exists only here, every other route stays JSON-only.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    defineRoutes(scope, 'media', [
      route({
        method: 'POST',
        url: '/api/upload',
        summary: `Stores a file (the raw bytes as the body, up to ${UPLOAD_LIMIT_BYTES / 1024 / 1024} MiB) in the media directory.`,
        query: uploadQuery,
        rawBody: 'application/octet-stream',
        bodyLimit: UPLOAD_LIMIT_BYTES,
        onRequest: checkUpload,
        status: 201,
        response: UploadedFileSchema,
        handler: async ({ query, request }) => {
          const body = request.body as Buffer | undefined;
          if (!body?.length) throw badRequest('EMPTY_UPLOAD', "The upload is empty: send the file's bytes as the request body.");
          return media.save(query.filename, body, request.headers['content-type']!);
        },
      }),
    ]);
  });
};
