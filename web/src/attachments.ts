// Attached files as a user message carries them. The server appends one block to the prompt
// (src/modules/media/attachments.ts, withAttachments):
//
//   <text>
//
//   Attached files:
//   - /abs/path/media/20261121-101500-ab12cd-photo.png (image/png, 12.3 KB)
//
// The UI shows the text as the bubble and the block as chips and thumbnails served from /media/.

import { ATTACHMENTS_HEADER } from '../../src/protocol/media-limits.ts';

export interface AttachmentRef {
  /** The media file name (GET /media/<filename>). */
  filename: string;
  type: string;
  /** As the server wrote it, e.g. "12.3 KB". */
  size: string;
}

const HEADER = ATTACHMENTS_HEADER;
const LINE = /^- (.+) \(([^,()]+), ([^()]+)\)$/;

/** Splits a message into its text and the files of its attachment block (none when there is no block). */
export function splitAttachments(content: string): { text: string; files: AttachmentRef[] } {
  const at = content.startsWith(`${HEADER}\n`) ? 0 : content.lastIndexOf(`\n\n${HEADER}\n`);
  if (at === -1) return { text: content, files: [] };
  const lines = content.slice(content.indexOf(HEADER, at) + HEADER.length + 1).split('\n');
  const files: AttachmentRef[] = [];
  for (const line of lines) {
    const match = LINE.exec(line);
    if (!match) return { text: content, files: [] }; // not our block: show the message as written
    files.push({ filename: match[1]!.split(/[\\/]/).pop()!, type: match[2]!, size: match[3]! });
  }
  return { text: content.slice(0, at), files };
}

/** The name the user gave the file: the stored name without its `<date>-<time>-<random>-` prefix. */
export const displayName = (filename: string) => filename.replace(/^\d{8}-\d{6}-[0-9a-f]{6}-/, '');

export const isImage = (type: string) => /^image\/(png|jpeg|gif|webp|avif)$/.test(type);
