// Answers as the channels want them, pure: Markdown cut into pieces under a channel's length limit
// (on paragraph or line breaks, never inside a code block without closing and reopening it), then each
// piece rendered on its own (Telegram: its HTML subset), so a cut never splits a tag.

/** Cuts Markdown into pieces of at most `limit` characters. */
export function splitMarkdown(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  let reopen = '';
  while (rest) {
    const room = limit - reopen.length;
    if (rest.length <= room) {
      pieces.push(reopen + rest);
      break;
    }
    const window = rest.slice(0, room);
    let cut = Math.max(window.lastIndexOf('\n\n'), window.lastIndexOf('\n'));
    if (cut < room / 2) cut = window.lastIndexOf(' ');
    if (cut < room / 2) cut = room;
    // a fence left open in this piece is closed here and reopened in the next
    const fences = (reopen + rest.slice(0, cut)).match(/^```.*$/gm) ?? [];
    const open = fences.length % 2 === 1 ? fences.at(-1)! : '';
    const closing = open ? '\n```' : '';
    if (closing && cut + closing.length > room) cut = Math.max(1, room - closing.length);
    pieces.push((reopen + rest.slice(0, cut)).trimEnd() + closing);
    rest = rest.slice(cut).replace(/^\n+/, '');
    reopen = open ? `${open}\n` : '';
  }
  return pieces;
}

export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Markdown (as agents write it) in Telegram's HTML subset: code blocks, inline code, bold, italic, strike, links. */
export function markdownToTelegramHtml(markdown: string): string {
  const out: string[] = [];
  const fence = /^```([^\n]*)\n?([\s\S]*?)(?:\n?^```[ \t]*$|$(?![\s\S]))/gm;
  let at = 0;
  for (const match of markdown.matchAll(fence)) {
    out.push(inline(markdown.slice(at, match.index)));
    const lang = match[1]!.trim();
    const code = escapeHtml(match[2]!);
    out.push(lang ? `<pre><code class="language-${escapeHtml(lang)}">${code}</code></pre>` : `<pre>${code}</pre>`);
    at = match.index + match[0].length;
  }
  out.push(inline(markdown.slice(at)));
  return out.join('');
}

function inline(text: string): string {
  const codes: string[] = [];
  let s = text.replace(/`([^`\n]+)`/g, (_, code: string) => {
    codes.push(`<code>${escapeHtml(code)}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  s = escapeHtml(s);
  s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label: string, url: string) => `<a href="${url.replace(/"/g, '&quot;')}">${label}</a>`);
  s = s.replace(/^#{1,6}\s+(.+)$/gm, '<b>$1</b>');
  s = s.replace(/\*\*([^*\n]+)\*\*/g, '<b>$1</b>').replace(/__([^_\n]+)__/g, '<b>$1</b>');
  s = s.replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, '$1<i>$2</i>').replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, '$1<i>$2</i>');
  s = s.replace(/~~([^~\n]+)~~/g, '<s>$1</s>');
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]!);
}
