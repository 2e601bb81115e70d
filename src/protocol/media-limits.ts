// The upload limits and how attachments are written into a message. Without zod on purpose: the
// web UI imports these values, and a value import from a file that builds schemas would put zod
// in the browser bundle. src/protocol/media.ts re-exports them.

/** The largest file POST /api/upload accepts (the CLI and the UI check it before sending). */
export const UPLOAD_LIMIT_BYTES = 25 * 1024 * 1024;
/** At most this many attachments per message. */
export const MAX_ATTACHMENTS = 10;

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
