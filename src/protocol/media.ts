// Uploads and attachments on the wire: the upload answer, the limits, and the block that lists
// attached files in a message (those two in media-limits.ts). Pure: the routes, the CLI and the
// web UI share it.
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export { ATTACHMENTS_HEADER, formatSize, MAX_ATTACHMENTS, UPLOAD_LIMIT_BYTES } from './media-limits.ts';

/** The answer of POST /api/upload (201): where the file is stored and how to fetch it. */
export const UploadedFileSchema = lazySchema(() => z.object({
  /** The stored name in the media directory: what `attachments` and GET /media/:filename take. */
  filename: z.string(),
  url: z.string(),
  /** Absolute path on the server's disk. */
  path: z.string(),
  size: z.number().int(),
  /** The Content-Type the upload was sent with. */
  type: z.string(),
  /** The name the client gave. */
  name: z.string(),
}));
export type UploadedFile = z.infer<typeof UploadedFileSchema>;
