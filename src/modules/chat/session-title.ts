// A chat session's title from its first message, as chat apps name new conversations: the first
// line of what the user wrote, tidied and cut at a word. Pure.
import { ATTACHMENTS_HEADER } from '../../protocol/media.ts';

export const MAX_AUTO_TITLE = 60;

export function titleFromMessage(content: string, max = MAX_AUTO_TITLE): string | undefined {
  const blockAt = content.startsWith(ATTACHMENTS_HEADER) ? 0 : content.indexOf(`\n\n${ATTACHMENTS_HEADER}\n`);
  const text = blockAt === -1 ? content : content.slice(0, blockAt);
  const line = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find(Boolean);
  if (!line) return blockAt === -1 ? undefined : 'Attached files';
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}
