// Code blocks as read from an answer, made into what the routes return (pure): the language normalized,
// the code without its trailing newline, and a file name when the answer gives one, either as a comment
// on the block's first line (`// src/util.js`) or on the line just before the block ("Save this as
// hello.py:"). Names are only taken where the wording says so; a product name ("Node.js") is not a file.
import type { CodeBlock } from './types.ts';
import { ownValue } from '../../../core/own.ts';

/** One block as the page script reads it: its text, the language the page shows, the text before it. */
export interface RawBlock {
  code: string;
  language: string | null;
  before: string;
}


const ALIASES: Record<string, string> = {
  js: 'javascript', node: 'javascript', mjs: 'javascript', ts: 'typescript', py: 'python', python3: 'python', sh: 'bash', shell: 'bash',
  zsh: 'bash', console: 'bash', 'c++': 'cpp', 'c#': 'csharp', cs: 'csharp', 'f#': 'fsharp', golang: 'go', rs: 'rust', rb: 'ruby',
  kt: 'kotlin', yml: 'yaml', md: 'markdown', 'plain text': 'text', plaintext: 'text', txt: 'text', 'objective-c': 'objectivec', ps1: 'powershell',
};

/** `Python`, `language-py`, `C++` → `python`, `python`, `cpp`; nothing → `text`. */
export function normalizeLanguage(raw: string | null | undefined): string {
  const s = (raw ?? '').trim().toLowerCase().replace(/^(?:language|lang)-/, '').replace(/\s+/g, ' ');
  if (!s) return 'text';
  return ownValue(ALIASES, s) ?? s.replace(/ /g, '-');
}

const EXTENSIONS: Record<string, string> = {
  python: 'py', javascript: 'js', typescript: 'ts', bash: 'sh', cpp: 'cpp', csharp: 'cs', fsharp: 'fs', go: 'go', rust: 'rs', ruby: 'rb',
  kotlin: 'kt', yaml: 'yaml', markdown: 'md', text: 'txt', objectivec: 'm', powershell: 'ps1', java: 'java', c: 'c', php: 'php',
  swift: 'swift', sql: 'sql', html: 'html', css: 'css', json: 'json', jsx: 'jsx', tsx: 'tsx', toml: 'toml', xml: 'xml', lua: 'lua',
  perl: 'pl', r: 'r', scala: 'scala', dart: 'dart', haskell: 'hs', elixir: 'ex', erlang: 'erl', clojure: 'clj', vue: 'vue', svelte: 'svelte',
  dockerfile: 'dockerfile', makefile: 'mk', diff: 'diff', ini: 'ini', scss: 'scss', graphql: 'graphql', zig: 'zig', nix: 'nix',
};

/** The file extension for a (normalized) language: `python` → `py`; unknown → `txt`. */
export function extensionFor(language: string): string {
  return ownValue(EXTENSIONS, language) ?? (/^[a-z0-9]{1,10}$/.test(language) ? language : 'txt');
}

// A path whose last part has an extension with a letter in it, a dotfile, or a well-known extensionless name.
const NAME = String.raw`(?:[\w.-]+/)*(?:[\w-][\w.-]*\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*|\.[A-Za-z][\w.-]*|Dockerfile|Makefile|Procfile|Gemfile|Rakefile|Jenkinsfile|Vagrantfile)`;
const COMMENT_LINE = new RegExp(String.raw`^\s*(?:#|//|--|;+|%|/\*+|<!--|\{/\*|rem\s)\s*(?:(?:file(?:name)?|path)\s*:\s*)?(${NAME})\s*(?:\*+/\}?|-->)?\s*$`, 'i');
const WHOLE_LINE = new RegExp(String.raw`^(?:(?:file(?:name)?|path)\s*:\s*)?["'(]?(${NAME})["')]?\s*:?$`, 'i');
const AFTER_NAME = String.raw`["')]?(?=\s*(?:[:.,;!]\s*)?$|\s+(?:and|with|containing|then|file)\b)`;
const CUED = new RegExp(String.raw`\b(?:as|to|in|into|file|named|called|create|update|edit|save|replace|modify)\s+(?:(?:the|a|new|your|this|file|following)\s+)*["'(]?(${NAME})${AFTER_NAME}`, 'i');
const AT_END = new RegExp(String.raw`(?:^|\s)["'(]?(${NAME})["')]?\s*[:.]?$`, 'i');
/** Names that look like files but are products or domains. */
const NOT_A_FILE = [/^(?:node|vue|next|nuxt|react|express|three|d3|chart|ember|backbone|alpine|solid|nest|p5|anime|moment|day|socket)\.js$/i, /\.(?:com|org|net|io|ai|dev|co|gov|edu)$/i];

/** A relative path without `..`, absolute parts or odd characters, or undefined. */
export function safeRelativePath(name: string): string | undefined {
  const p = name.trim().replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
  if (!p || p.length > 255 || p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:/.test(p)) return undefined;
  if (/[\u0000-\u001f<>:"|?*]/.test(p)) return undefined;
  const parts = p.split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..')) return undefined;
  return p;
}

const accept = (candidate: string | undefined): string | undefined => {
  if (!candidate || NOT_A_FILE.some((re) => re.test(candidate.split('/').at(-1)!))) return undefined;
  return safeRelativePath(candidate);
};

/** Markdown left in rendered text, list markers, surrounding whitespace. */
const cleanLine = (l: string) =>
  l
    .replace(/[*`_]{1,3}/g, '')
    .replace(/^\s*(?:#{1,6}\s+|[-\u2022]\s+|\d+[.)]\s+)/, '') // a heading, a bullet (- or •), a number
    .replace(/\s+/g, ' ')
    .trim();

/** A label or button text next to a block ("python", "Copy code"): short, no file name in it. */
const isNoise = (l: string) => l.length <= 24 && l.split(' ').length <= 2 && !/[./]/.test(l);

/** The file name an answer gives for a block, if any. */
export function detectFilename(before: string, code: string): string | undefined {
  const first = code.split('\n', 1)[0] ?? '';
  const fromComment = accept(COMMENT_LINE.exec(first)?.[1]);
  if (fromComment) return fromComment;
  const line = before
    .split('\n')
    .map(cleanLine)
    .filter((l) => l && !isNoise(l))
    .at(-1);
  if (!line) return undefined;
  return accept(WHOLE_LINE.exec(line)?.[1]) ?? accept(CUED.exec(line)?.[1]) ?? accept(AT_END.exec(line)?.[1]);
}

export function toBlock(raw: RawBlock): CodeBlock {
  const code = raw.code.replace(/(?:\r?\n)+$/, '');
  const filename = detectFilename(raw.before, code);
  return { language: normalizeLanguage(raw.language), code, ...(filename ? { filename } : {}) };
}
