// Markdown to safe HTML: marked → DOMPurify (always) → highlight.js for fenced code.
//
// Text is rendered per top-level block (split at blank lines outside code fences). While an
// answer streams, blocks before the last one are final, so each new chunk costs only the work of
// the open last block; finished blocks are cached by their source, so the final answer (and the
// saved message that repeats it) reuses the HTML of the preview.
import { Marked } from 'marked';
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import ini from 'highlight.js/lib/languages/ini';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import plaintext from 'highlight.js/lib/languages/plaintext';

const languages = {
  bash, c, cpp, csharp, css, diff, go, java, javascript, json, kotlin, markdown, php, python, ruby, rust,
  shell, sql, swift, typescript, xml, yaml, ini, dockerfile, plaintext,
};
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

/** The highlighter with these languages (the review's diffs use it too). */
export { hljs };

/** Code longer than this is not highlighted (it would cost a long frame). */
const MAX_HIGHLIGHT_CHARS = 60_000;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

let highlightEnabled = true;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in a message is shown as text, like the chat tools people know; it is never parsed
    // as markup (DOMPurify below stays as a second line of defence).
    html({ text }) {
      return escapeHtml(text);
    },
    code({ text, lang }) {
      const name = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const known = name && hljs.getLanguage(name) ? name : '';
      let body = escapeHtml(text);
      if (known && highlightEnabled && text.length <= MAX_HIGHLIGHT_CHARS) {
        try {
          body = hljs.highlight(text, { language: known, ignoreIllegals: true }).value;
        } catch {
          body = escapeHtml(text);
        }
      }
      const label = name ? ` data-lang="${escapeHtml(name)}"` : '';
      return `<pre${label}><code class="hljs${known ? ` language-${known}` : ''}">${body}</code></pre>\n`;
    },
  },
});

// Two DOMPurify instances, each configured once (passing a config on every call re-parses it,
// which costs more than sanitizing a small block).
const purifier = DOMPurify(window);
purifier.setConfig({
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'option', 'iframe', 'object', 'embed', 'dialog'],
  FORBID_ATTR: ['style', 'class', 'id', 'tabindex', 'autofocus'],
  ALLOW_DATA_ATTR: false,
});
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});
// FORBID_ATTR removes `class` everywhere, including highlight.js spans: re-allow only the class
// names highlight.js and our renderer emit.
purifier.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class') {
    const ok = data.attrValue.split(/\s+/).every((c) => /^(hljs(-[a-z_-]+)?|language-[a-z0-9+#-]+|[a-z_]+_)$/.test(c));
    data.forceKeepAttr = ok || undefined;
  }
  if (data.attrName === 'data-lang' && /^[a-z0-9+#._-]{1,40}$/i.test(data.attrValue)) data.forceKeepAttr = true;
});

const snippetPurifier = DOMPurify(window);
snippetPurifier.setConfig({ ALLOWED_TAGS: ['mark'], ALLOWED_ATTR: [] });

const sanitize = (html: string): string => purifier.sanitize(html) as unknown as string;

// ── block splitting ──────────────────────────────────────────────────────────────────────

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits a growing Markdown text into top-level blocks. Feed it the whole text so far with
 * `push(text)` (each text must extend the previous one); it returns the blocks that became final
 * and scans only the new part. `tail()` is the open last block.
 */
export class BlockSplitter {
  private text = '';
  private pos = 0;
  private blockStart = 0;
  private fence: { char: string; len: number } | null = null;
  private blankSeen = false;
  private hasContent = false;

  push(text: string): string[] {
    const out: string[] = [];
    this.text = text;
    for (;;) {
      const end = text.indexOf('\n', this.pos);
      if (end === -1) break;
      this.line(this.pos, end, out);
      this.pos = end + 1;
    }
    return out;
  }

  tail(): string {
    return this.text.slice(this.blockStart);
  }

  /** The text fed so far (for callers that check the append-only rule). */
  get source(): string {
    return this.text;
  }

  private line(start: number, end: number, out: string[]): void {
    const line = this.text.slice(start, end);
    if (this.fence) {
      const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (m && m[1]![0] === this.fence.char && m[1]!.length >= this.fence.len) this.fence = null;
      return;
    }
    if (!line.trim()) {
      if (this.hasContent) this.blankSeen = true;
      else this.blockStart = end + 1; // leading blank lines belong to no block
      return;
    }
    if (this.blankSeen) {
      this.blankSeen = false;
      // An indented line after a blank one continues the block (list item paragraphs, indented code).
      if (!/^[ \t]/.test(line)) {
        const block = this.text.slice(this.blockStart, start).trim();
        if (block) out.push(block);
        this.blockStart = start;
      }
    }
    this.hasContent = true;
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[1]![0] === '`' && line.slice(open[0].length).includes('`'))) {
      this.fence = { char: open[1]![0]!, len: open[1]!.length };
    }
  }
}

export function splitBlocks(text: string): string[] {
  const splitter = new BlockSplitter();
  const blocks = splitter.push(text);
  const tail = splitter.tail().trim();
  if (tail) blocks.push(tail);
  return blocks;
}

// ── rendering with a bounded cache ───────────────────────────────────────────────────────

const CACHE_MAX_CHARS = 4_000_000;
const cache = new Map<string, string>();
let cachedChars = 0;

/** Renders one block to sanitized HTML (cached by its source). */
export function renderBlock(source: string, options: { highlight?: boolean; cache?: boolean } = {}): string {
  const useCache = options.cache !== false;
  if (useCache) {
    const hit = cache.get(source);
    if (hit !== undefined) {
      cache.delete(source);
      cache.set(source, hit);
      return hit;
    }
  }
  highlightEnabled = options.highlight !== false;
  let html: string;
  try {
    html = sanitize(marked.parse(source, { async: false }));
  } finally {
    highlightEnabled = true;
  }
  if (useCache) {
    cache.set(source, html);
    cachedChars += source.length + html.length;
    for (const [key, value] of cache) {
      if (cachedChars <= CACHE_MAX_CHARS) break;
      cache.delete(key);
      cachedChars -= key.length + value.length;
    }
  }
  return html;
}

/** Plain text as HTML (for an oversized open block while it streams). */
export const plainHtml = (text: string) => `<p class="plain">${escapeHtml(text)}</p>`;

/** Sanitizes a server-made search snippet (escaped text with <mark>): only <mark> survives. */
export function sanitizeSnippet(html: string): string {
  return snippetPurifier.sanitize(html) as unknown as string;
}

/** Adds a header with the language and a copy button to each code block inside `root`. */
export function enhanceCodeBlocks(root: Element): void {
  for (const pre of root.querySelectorAll('pre')) {
    if (pre.parentElement?.classList.contains('code-block')) continue;
    const wrapper = document.createElement('div');
    wrapper.className = 'code-block';
    const head = document.createElement('div');
    head.className = 'code-head';
    const label = document.createElement('span');
    label.className = 'code-lang';
    label.textContent = pre.getAttribute('data-lang') ?? 'text';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy-code';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    head.append(label, button);
    pre.replaceWith(wrapper);
    wrapper.append(head, pre);
  }
}

