// Uploads and attachments on the wire: the upload answer, the limits, and the block that lists
// attached files in a message. Pure: the routes, the CLI and the web UI share it.
import { z } from 'zod';

/** The largest file POST /api/upload accepts (the CLI and the UI check it before sending). */
export const UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;
/** At most this many attachments per message. */
export const MAX_ATTACHMENTS = 10;

/** The answer of POST /api/upload (201): where the file is stored and how to fetch it. */
export const UploadedFileSchema = z.object({
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
});
export type UploadedFile = z.infer<typeof UploadedFileSchema>;

/** The first line of the block withAttachments() appends (the UI and session titles find it by this). */
export const ATTACHMENTS_HEADER = 'Attached files:';

/** 512 B, 12.3 KB, 4.0 MB (binary multiples, as file managers show them). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
