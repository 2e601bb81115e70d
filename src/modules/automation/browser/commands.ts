// The `/browser ...` slash command: a pure parser from command text to the typed Action (or a parse
// error that says what is wrong and how the command is written), and runBrowserCommand, which runs the
// action through a client and renders a result a person can read.
import { AppError } from '../../../core/errors.ts';
import { tokenizeArgs as tokenize, type ArgToken as Token } from '../../../agent/commands.ts';
import { formatDiff } from './snapshot.ts';
import { ActionSchema, type Action, type ActionResult, type ActionResultMap, type ConsoleEntry, type NetworkEntry } from './types.ts';
import { ownValue } from '../../../core/own.ts';

export const BROWSER_USAGE: Record<string, string> = {
  open: '/browser open <url> [--timeout ms] [--tab id]',
  screenshot: '/browser screenshot [--full] ["<selector|ref>"] [--tab id]',
  click: '/browser click "<selector|ref>" [--double] [--right] [--timeout ms]',
  type: '/browser type "<selector|ref>" "<text>" [--submit] [--timeout ms]',
  extract: '/browser extract "<selector|ref>" [text|html|attr:<name>] [--all]',
  eval: '/browser eval "<javascript>" [--timeout ms]',
  wait: '/browser wait "<selector>" | --navigation | --idle [--timeout ms] [--state visible|hidden|attached|detached] [--idle-ms ms]',
  snapshot: '/browser snapshot [--diff] [--tab id]',
  tabs: '/browser tabs',
  tab: '/browser tab open [url] | tab switch <id> | tab close <id>',
  console: '/browser console [--limit n] [--clear] [--tab id]',
  network: '/browser network [--limit n] [--clear] [--tab id]',
  fetch: '/browser fetch <url> [--max-chars n] [--timeout ms]',
};

export const BROWSER_HELP = `Browser commands:\n${Object.values(BROWSER_USAGE)
  .map((u) => `  ${u}`)
  .join('\n')}`;

export type ParseResult = { ok: true; action: Action } | { ok: false; error: string };

type FlagSpec = Record<string, 'bool' | 'value'>;

interface Parsed {
  positional: string[];
  flags: Record<string, string | true>;
}

function splitArgs(tokens: Token[], spec: FlagSpec): Parsed | string {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.quoted && t.value.startsWith('--') && t.value.length > 2) {
      const [name, inline] = t.value.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const kind = spec[name];
      if (!kind) return `unknown option --${name}`;
      if (kind === 'bool') {
        if (inline !== undefined) return `--${name} takes no value`;
        flags[name] = true;
      } else {
        const v = inline ?? tokens[++i]?.value;
        if (v === undefined) return `--${name} needs a value`;
        flags[name] = v;
      }
      continue;
    }
    positional.push(t.value);
  }
  return { positional, flags };
}

function intFlag(flags: Parsed['flags'], name: string): number | undefined | string {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v === true || !/^\d+$/.test(v)) return `--${name} must be a whole number`;
  return Number(v);
}

const failWith = (error: string, sub?: string): ParseResult => ({
  ok: false,
  error: sub && ownValue(BROWSER_USAGE, sub) ? `${error}. Usage: ${ownValue(BROWSER_USAGE, sub)}` : error,
});

/** Parse `/browser <subcommand> ...` (the `/browser` prefix is optional) into an Action. */
export function parseBrowserCommand(text: string): ParseResult {
  let rest = text.trim();
  if (/^\/?browser(\s|$)/.test(rest)) rest = rest.replace(/^\/?browser/, '').trim();
  const subMatch = /^(\S+)\s*/.exec(rest);
  if (!subMatch) return failWith(`missing subcommand.\n${BROWSER_HELP}`);
  const sub = subMatch[1]!.toLowerCase();
  const argText = rest.slice(subMatch[0].length);

  // eval keeps its code as written: unquoted, the rest of the line is the script.
  if (sub === 'eval') {
    if (!argText.trim()) return failWith('eval needs JavaScript to run', 'eval');
    if (!/^["']/.test(argText.trim())) return finish({ action: 'eval', script: argText.trim() }, sub);
  }

  const tokens = tokenize(argText);
  if (typeof tokens === 'string') return failWith(tokens, sub);
  return parseTokens(sub, tokens);
}

/**
 * Parse already-split arguments, as a shell hands them to `svc browser <subcommand> ...`: each element is
 * one argument (the shell removed the quotes); `--name` elements are options. For eval, all arguments
 * after the subcommand are the script, joined by spaces.
 */
export function parseBrowserArgs(argv: readonly string[]): ParseResult {
  const [first, ...rest] = argv;
  if (!first) return failWith(`missing subcommand.\n${BROWSER_HELP}`);
  const sub = first.toLowerCase();
  if (sub === 'eval') {
    const flagAt = rest.findIndex((a) => a === '--timeout' || a === '--tab');
    const scriptParts = flagAt >= 0 ? rest.slice(0, flagAt) : rest;
    if (!scriptParts.join(' ').trim()) return failWith('eval needs JavaScript to run', 'eval');
    const tokens: Token[] = [{ value: scriptParts.join(' '), quoted: true }, ...(flagAt >= 0 ? rest.slice(flagAt) : []).map((v) => ({ value: v, quoted: false }))];
    return parseTokens(sub, tokens);
  }
  return parseTokens(
    sub,
    rest.map((v) => ({ value: v, quoted: false })),
  );
}

function parseTokens(sub: string, tokens: Token[]): ParseResult {
  const fail = failWith;
  const common: FlagSpec = { tab: 'value', timeout: 'value' };
  const specs: Record<string, FlagSpec> = {
    open: { ...common, 'wait-until': 'value' },
    screenshot: { ...common, full: 'bool' },
    click: { ...common, double: 'bool', right: 'bool', middle: 'bool' },
    type: { ...common, submit: 'bool' },
    extract: { ...common, all: 'bool' },
    eval: { ...common },
    wait: { ...common, navigation: 'bool', idle: 'bool', state: 'value', 'idle-ms': 'value' },
    snapshot: { tab: 'value', diff: 'bool', 'max-nodes': 'value' },
    tabs: {},
    tab: { timeout: 'value' },
    console: { tab: 'value', limit: 'value', clear: 'bool' },
    network: { tab: 'value', limit: 'value', clear: 'bool' },
    fetch: { timeout: 'value', 'max-chars': 'value' },
  };
  const spec = specs[sub];
  if (!spec) return fail(`unknown subcommand '${sub}'.\n${BROWSER_HELP}`);
  const parsed = splitArgs(tokens, spec);
  if (typeof parsed === 'string') return fail(parsed, sub);
  const { positional: pos, flags } = parsed;
  const timeout = intFlag(flags, 'timeout');
  if (typeof timeout === 'string') return fail(timeout, sub);
  const tab = typeof flags.tab === 'string' ? flags.tab : undefined;
  const base = { ...(tab ? { tab } : {}), ...(timeout !== undefined ? { timeout } : {}) };
  const tooMany = (n: number) => (pos.length > n ? `unexpected extra argument '${pos[n]}' (quote arguments that contain spaces)` : undefined);

  switch (sub) {
    case 'open': {
      if (!pos[0]) return fail('open needs a URL', sub);
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      const waitUntil = flags['wait-until'];
      return finish({ action: 'open', url: pos[0], ...base, ...(typeof waitUntil === 'string' ? { waitUntil } : {}) } as Action, sub);
    }
    case 'screenshot': {
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      return finish({ action: 'screenshot', ...(flags.full ? { full: true } : {}), ...(pos[0] ? { target: pos[0] } : {}), ...base }, sub);
    }
    case 'click': {
      if (!pos[0]) return fail('click needs a selector or ref', sub);
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      const button = flags.right ? 'right' : flags.middle ? 'middle' : undefined;
      return finish({ action: 'click', target: pos[0], ...base, ...(button ? { button } : {}), ...(flags.double ? { double: true } : {}) }, sub);
    }
    case 'type': {
      if (pos.length < 2) return fail('type needs a selector or ref and the text', sub);
      const extra = tooMany(2);
      if (extra) return fail(extra, sub);
      return finish({ action: 'type', target: pos[0]!, text: pos[1]!, ...base, ...(flags.submit ? { submit: true } : {}) }, sub);
    }
    case 'extract': {
      if (!pos[0]) return fail('extract needs a selector or ref', sub);
      const extra = tooMany(2);
      if (extra) return fail(extra, sub);
      const what = pos[1] ?? 'text';
      if (!/^(text|html|attr:\S+)$/.test(what)) return fail(`'${what}' is not something extract can read: use text, html or attr:<name>`, sub);
      return finish({ action: 'extract', target: pos[0], what, ...base, ...(flags.all ? { all: true } : {}) }, sub);
    }
    case 'eval': {
      if (!pos[0]) return fail('eval needs JavaScript to run', sub);
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      return finish({ action: 'eval', script: pos[0], ...base }, sub);
    }
    case 'wait': {
      const idleMs = intFlag(flags, 'idle-ms');
      if (typeof idleMs === 'string') return fail(idleMs, sub);
      const modes = Number(!!pos[0]) + Number(!!flags.navigation) + Number(!!flags.idle);
      if (modes !== 1) return fail('wait needs exactly one of: a selector, --navigation, --idle', sub);
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      const state = flags.state;
      if (state !== undefined && !pos[0]) return fail('--state applies to waiting for a selector', sub);
      return finish(
        {
          action: 'wait',
          ...(pos[0] ? { selector: pos[0] } : {}),
          ...(flags.navigation ? { navigation: true } : {}),
          ...(flags.idle ? { idle: true } : {}),
          ...(typeof state === 'string' ? { state } : {}),
          ...(idleMs !== undefined ? { idleMs } : {}),
          ...base,
        } as Action,
        sub,
      );
    }
    case 'snapshot': {
      const extra = tooMany(0);
      if (extra) return fail(extra, sub);
      const maxNodes = intFlag(flags, 'max-nodes');
      if (typeof maxNodes === 'string') return fail(maxNodes, sub);
      return finish({ action: 'snapshot', ...(flags.diff ? { diff: true } : {}), ...(tab ? { tab } : {}), ...(maxNodes ? { maxNodes } : {}) }, sub);
    }
    case 'tabs': {
      const extra = tooMany(0);
      if (extra) return fail(extra, sub);
      return finish({ action: 'tabs' }, sub);
    }
    case 'tab': {
      const verb = pos[0];
      if (verb === 'open') {
        const extra = tooMany(2);
        if (extra) return fail(extra, sub);
        return finish({ action: 'tab_open', ...(pos[1] ? { url: pos[1] } : {}), ...(timeout !== undefined ? { timeout } : {}) }, sub);
      }
      if (verb === 'switch' || verb === 'close') {
        if (!pos[1]) return fail(`tab ${verb} needs a tab id (see /browser tabs)`, sub);
        const extra = tooMany(2);
        if (extra) return fail(extra, sub);
        return finish({ action: verb === 'switch' ? 'tab_switch' : 'tab_close', tab: pos[1] }, sub);
      }
      return fail(verb ? `unknown tab command '${verb}'` : 'tab needs open, switch or close', sub);
    }
    case 'console':
    case 'network': {
      const extra = tooMany(0);
      if (extra) return fail(extra, sub);
      const limit = intFlag(flags, 'limit');
      if (typeof limit === 'string') return fail(limit, sub);
      return finish({ action: sub, ...(tab ? { tab } : {}), ...(limit ? { limit } : {}), ...(flags.clear ? { clear: true } : {}) }, sub);
    }
    case 'fetch': {
      if (!pos[0]) return fail('fetch needs a URL', sub);
      const extra = tooMany(1);
      if (extra) return fail(extra, sub);
      const maxChars = intFlag(flags, 'max-chars');
      if (typeof maxChars === 'string') return fail(maxChars, sub);
      return finish({ action: 'fetch', url: pos[0], ...(maxChars ? { maxChars } : {}), ...(timeout !== undefined ? { timeout } : {}) }, sub);
    }
  }
  return fail(`unknown subcommand '${sub}'`);
}

/** Final check against the shared schema, so the parser can never produce what the server refuses. */
function finish(candidate: Action, sub: string): ParseResult {
  const r = ActionSchema.safeParse(candidate);
  if (r.success) return { ok: true, action: r.data };
  const why = r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  return { ok: false, error: `${why}. Usage: ${ownValue(BROWSER_USAGE, sub) ?? BROWSER_HELP}` };
}

// ---- run ------------------------------------------------------------------------------------------

export interface BrowserActor {
  act(action: Action): Promise<ActionResult>;
}

const time = (ts: number) => new Date(ts).toISOString().slice(11, 19);

/** Render an action's result for a person. */
export function renderResult(action: Action, data: ActionResult): string {
  switch (action.action) {
    case 'open': {
      const r = data as ActionResultMap['open'];
      return `Opened ${r.url}${r.title ? ` — "${r.title}"` : ''}${r.status ? ` (HTTP ${r.status})` : ''} in tab ${r.tab}.`;
    }
    case 'screenshot': {
      const r = data as ActionResultMap['screenshot'];
      return `Screenshot saved: ${r.url} (${Math.max(1, Math.round(r.bytes / 1024))} KB${r.fullPage ? ', full page' : ''}).`;
    }
    case 'click': {
      const r = data as ActionResultMap['click'];
      return `Clicked ${r.clicked}. Page: ${r.url}`;
    }
    case 'mouse': {
      const r = data as ActionResultMap['mouse'];
      return r.button === 'move' ? `Moved the pointer to (${r.x}, ${r.y}).` : `${r.clickCount === 2 ? 'Double-clicked' : r.button === 'right' ? 'Right-clicked' : 'Clicked'} at (${r.x}, ${r.y}). Page: ${r.url}`;
    }
    case 'type': {
      const r = data as ActionResultMap['type'];
      return `Typed ${r.chars} character${r.chars === 1 ? '' : 's'} into ${r.typed}${r.submitted ? ' and pressed Enter' : ''}.`;
    }
    case 'extract': {
      const r = data as ActionResultMap['extract'];
      if (r.values) {
        if (r.values.length === 0) return `No element matches ${r.target}.`;
        return `${r.values.length} match${r.values.length === 1 ? '' : 'es'}:\n${r.values.map((v, i) => `[${i + 1}] ${v ?? '(none)'}`).join('\n')}`;
      }
      const more = r.count > 1 ? ` (first of ${r.count} matches; add --all for every one)` : '';
      return `${r.value ?? `(no ${r.what.replace('attr:', '')} attribute)`}${more}`;
    }
    case 'eval': {
      const r = data as ActionResultMap['eval'];
      return typeof r.result === 'string' ? r.result : (JSON.stringify(r.result, null, 2) ?? 'undefined');
    }
    case 'wait': {
      const r = data as ActionResultMap['wait'];
      const what = r.waited === 'selector' ? `'${(action as { selector?: string }).selector}'` : r.waited === 'idle' ? 'network idle' : 'navigation';
      return `Waited ${r.ms} ms for ${what}. Page: ${r.url}`;
    }
    case 'snapshot': {
      const r = data as ActionResultMap['snapshot'];
      const head = `${r.title ? `"${r.title}" ` : ''}${r.url} (tab ${r.tab}, ${r.lines} lines, ${r.refs} refs${r.frames > 1 ? `, ${r.frames} frames` : ''}${r.truncated ? ', truncated' : ''})`;
      if (r.diff) {
        if (!r.hadPrevious) return `${head}\nNo earlier snapshot of this tab to compare with; full snapshot:\n${r.text}`;
        const d = r.diff;
        return `${head}\nChanges since the last snapshot: +${d.added.length} -${d.removed.length} ~${d.changed.length}\n${formatDiff(d)}`;
      }
      return `${head}\n${r.text}`;
    }
    case 'tabs': {
      const r = data as ActionResultMap['tabs'];
      if (!r.tabs.length) return 'No tabs open.';
      return r.tabs.map((t) => `${t.active ? '*' : ' '} ${t.id}  ${t.title || '(untitled)'} — ${t.url}${t.crashed ? ' [crashed]' : ''}`).join('\n');
    }
    case 'tab_open':
    case 'tab_switch': {
      const r = data as ActionResultMap['tab_open'];
      return `Tab ${r.tab.id} is active: ${r.tab.title || '(untitled)'} — ${r.tab.url}`;
    }
    case 'tab_close': {
      const r = data as ActionResultMap['tab_close'];
      return `Closed tab ${r.closed}.${r.active ? ` Active tab: ${r.active}.` : ''}`;
    }
    case 'console': {
      const r = data as ActionResultMap['console'];
      if (!r.entries.length) return `No console messages in tab ${r.tab}.`;
      return r.entries.map((e: ConsoleEntry) => `[${time(e.ts)}] ${e.type}: ${e.text}`).join('\n');
    }
    case 'network': {
      const r = data as ActionResultMap['network'];
      if (!r.entries.length) return `No requests recorded in tab ${r.tab}.`;
      return r.entries
        .map((e: NetworkEntry) => `[${time(e.ts)}] ${e.method} ${e.failure ? `FAILED (${e.failure})` : (e.status ?? 'pending')} ${e.url}${e.durationMs !== undefined ? ` (${e.durationMs} ms)` : ''}`)
        .join('\n');
    }
    case 'fetch': {
      const r = data as ActionResultMap['fetch'];
      return `# ${r.title || '(untitled)'}\nURL: ${r.finalUrl}${r.status ? ` (HTTP ${r.status})` : ''}\n\n${r.text}${r.truncated ? '\n\n[truncated]' : ''}`;
    }
  }
}

/** Parse and run a `/browser ...` command. Parse errors are 400 BAD_COMMAND; action errors pass through. */
export async function runBrowserCommand(text: string, client: BrowserActor): Promise<{ text: string; data?: unknown }> {
  return run(parseBrowserCommand(text), client);
}

/** The same for shell arguments: `svc browser click "#go"` -> runBrowserArgs(['click', '#go'], client). */
export async function runBrowserArgs(argv: readonly string[], client: BrowserActor): Promise<{ text: string; data?: unknown }> {
  return run(parseBrowserArgs(argv), client);
}

async function run(parsed: ParseResult, client: BrowserActor): Promise<{ text: string; data?: unknown }> {
  if (!parsed.ok) throw new AppError(400, 'BAD_COMMAND', parsed.error);
  const data = await client.act(parsed.action);
  return { text: renderResult(parsed.action, data), data };
}
