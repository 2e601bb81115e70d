// Ref snapshots: capture (frame by frame, through the in-page script), and the pure parts: formatting a
// node tree as compact text (one line per node) and diffing two snapshot texts.
import type { Frame, Page } from 'playwright-core';
import type { SnapshotDiff } from './types.ts';
import { snapshotExpression } from './page-scripts.ts';
import type { RefRegistry } from './refs.ts';
import { firstLine } from './errors.ts';

export interface SnapNode {
  role: string;
  name?: string;
  ref?: string;
  value?: string;
  level?: number;
  states?: string[];
  /** Inline text of a node whose only content is text (paragraph, list item...), or of a text node. */
  text?: string;
  children?: SnapNode[];
  /** Internal: index of an iframe marker in its frame's document (removed before formatting). */
  frame?: number;
}

// ---- pure: format ---------------------------------------------------------------------------------

const q = (s: string): string => JSON.stringify(s);

/** One line of the compact format, without indentation. */
export function formatNodeLine(n: SnapNode): string {
  if (n.role === 'text') return `text ${q(n.text ?? '')}`;
  let line = n.role;
  if (n.name) line += ` ${q(n.name)}`;
  if (n.level !== undefined) line += ` [level=${n.level}]`;
  for (const s of n.states ?? []) line += ` [${s}]`;
  if (n.ref) line += ` [ref=${n.ref}]`;
  if (n.value !== undefined) line += ` = ${q(n.value)}`;
  if (n.text) line += `: ${q(n.text)}`;
  return line;
}

/**
 * The tree as text, one line per node, two spaces of indentation per level:
 *   heading "Sign in" [level=1]
 *   form
 *     textbox "Email" [required] [ref=e3] = "a@b.c"
 *     button "Sign in" [ref=e4]
 *   text "Forgot your password?"
 */
export function formatSnapshot(nodes: readonly SnapNode[]): string {
  const out: string[] = [];
  const walk = (list: readonly SnapNode[], depth: number): void => {
    for (const n of list) {
      out.push('  '.repeat(depth) + formatNodeLine(n));
      if (n.children?.length) walk(n.children, depth + 1);
    }
  };
  walk(nodes, 0);
  return out.join('\n');
}

export function countNodes(nodes: readonly SnapNode[]): { lines: number; refs: number } {
  let lines = 0;
  let refs = 0;
  const walk = (list: readonly SnapNode[]): void => {
    for (const n of list) {
      lines++;
      if (n.ref) refs++;
      if (n.children) walk(n.children);
    }
  };
  walk(nodes);
  return { lines, refs };
}

// ---- pure: diff -----------------------------------------------------------------------------------

interface Line {
  raw: string;
  body: string;
  depth: number;
  role: string;
  ref?: string;
}

const QUOTED = /"(?:[^"\\]|\\.)*"/g;

export function parseSnapshotLine(raw: string): Line {
  const body = raw.trimStart();
  const depth = Math.floor((raw.length - body.length) / 2);
  const bare = body.replace(QUOTED, '""');
  const ref = /\[ref=(e\d+)\]/.exec(bare)?.[1];
  const role = /^[^\s:[]+/.exec(bare)?.[0] ?? '';
  return ref ? { raw, body: body.trimEnd(), depth, role, ref } : { raw, body: body.trimEnd(), depth, role };
}

/** Edit script between two line arrays: indices of removed (from a) and added (from b) lines, in order. */
function editScript(a: readonly string[], b: readonly string[]): { removed: number[]; added: number[]; hunks: [number[], number[]][] } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  const hunks: [number[], number[]][] = [];
  if (n === 0 && m === 0) return { removed: [], added: [], hunks };
  if (n * m <= 4_000_000) {
    // LCS table over the middle part, then walk it to produce hunks in order.
    const w = m + 1;
    const t = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        t[i * w + j] = a[start + i] === b[start + j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    let cur: [number[], number[]] = [[], []];
    const close = (): void => {
      if (cur[0].length || cur[1].length) hunks.push(cur);
      cur = [[], []];
    };
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i] === b[start + j]) {
        close();
        i++;
        j++;
      } else if (j >= m || (i < n && t[(i + 1) * w + j]! >= t[i * w + j + 1]!)) {
        cur[0].push(start + i++);
      } else {
        cur[1].push(start + j++);
      }
    }
    close();
  } else {
    // Too large for a table: a multiset difference (order-insensitive) is still correct about content.
    const counts = new Map<string, number>();
    for (let j = start; j < endB; j++) counts.set(b[j]!, (counts.get(b[j]!) ?? 0) + 1);
    const removed: number[] = [];
    for (let i = start; i < endA; i++) {
      const c = counts.get(a[i]!) ?? 0;
      if (c > 0) counts.set(a[i]!, c - 1);
      else removed.push(i);
    }
    const left = new Map<string, number>();
    for (let i = start; i < endA; i++) left.set(a[i]!, (left.get(a[i]!) ?? 0) + 1);
    const added: number[] = [];
    for (let j = start; j < endB; j++) {
      const c = left.get(b[j]!) ?? 0;
      if (c > 0) left.set(b[j]!, c - 1);
      else added.push(j);
    }
    hunks.push([removed, added]);
  }
  return { removed: hunks.flatMap((h) => h[0]), added: hunks.flatMap((h) => h[1]), hunks };
}

/**
 * Lines added, removed and changed between two snapshot texts. A line whose ref appears on both sides
 * with different content is "changed" (same element, new state); a ref-less line replaced by a line of
 * the same role at the same depth within one edit hunk is "changed" too. Moves without content change
 * (same ref, same text, other position) count as unchanged.
 */
export function diffSnapshots(prev: string, next: string): SnapshotDiff {
  const split = (s: string): string[] => (s === '' ? [] : s.split('\n').filter((l) => l.trim() !== ''));
  const aRaw = split(prev);
  const bRaw = split(next);
  const a = aRaw.map(parseSnapshotLine);
  const b = bRaw.map(parseSnapshotLine);
  const { hunks } = editScript(aRaw, bRaw);

  const changed: { before: string; after: string }[] = [];
  const usedA = new Set<number>();
  const usedB = new Set<number>();

  // 1. Same ref on both sides.
  const addedByRef = new Map<string, number>();
  for (const [, add] of hunks) for (const j of add) if (b[j]!.ref) addedByRef.set(b[j]!.ref!, j);
  for (const [rem] of hunks) {
    for (const i of rem) {
      const ref = a[i]!.ref;
      const j = ref ? addedByRef.get(ref) : undefined;
      if (j === undefined) continue;
      usedA.add(i);
      usedB.add(j);
      if (a[i]!.body !== b[j]!.body) changed.push({ before: a[i]!.body, after: b[j]!.body });
    }
  }
  // 2. Ref-less lines of the same role and depth replaced within one hunk.
  for (const [rem, add] of hunks) {
    const free = add.filter((j) => !usedB.has(j) && !b[j]!.ref);
    for (const i of rem) {
      if (usedA.has(i) || a[i]!.ref) continue;
      const k = free.findIndex((j) => b[j]!.role === a[i]!.role && b[j]!.depth === a[i]!.depth);
      if (k < 0) continue;
      const j = free.splice(k, 1)[0]!;
      usedA.add(i);
      usedB.add(j);
      changed.push({ before: a[i]!.body, after: b[j]!.body });
    }
  }
  const removed: string[] = [];
  const added: string[] = [];
  let edited = 0;
  for (const [rem, add] of hunks) {
    edited += rem.length;
    for (const i of rem) if (!usedA.has(i)) removed.push(a[i]!.body);
    for (const j of add) if (!usedB.has(j)) added.push(b[j]!.body);
  }
  return { added, removed, changed, unchanged: a.length - edited + (usedA.size - changed.length) };
}

export function formatDiff(diff: SnapshotDiff): string {
  const out: string[] = [];
  for (const l of diff.removed) out.push(`- ${l}`);
  for (const l of diff.added) out.push(`+ ${l}`);
  for (const c of diff.changed) out.push(`~ ${c.before}\n  -> ${c.after}`);
  return out.length ? out.join('\n') : '(no changes)';
}

// ---- capture --------------------------------------------------------------------------------------

interface RawSnapshot {
  nodes: SnapNode[];
  next: number;
  live: string[];
  truncated: boolean;
}

export interface CapturedSnapshot {
  nodes: SnapNode[];
  frames: number;
  truncated: boolean;
}

/**
 * Snapshot a page: the main frame, then every rendered iframe (same-origin or not), spliced under its
 * iframe node. Runs under the registry's lock, so ref numbers are handed out by one snapshot at a time.
 */
export function captureSnapshot(page: Page, refs: RefRegistry, tabId: string, maxNodes = 20_000): Promise<CapturedSnapshot> {
  return refs.exclusive(async () => {
    const state = { remaining: maxNodes, frames: 0, truncated: false };
    const nodes = await snapFrame(page.mainFrame(), page, refs, tabId, state);
    return { nodes, frames: state.frames, truncated: state.truncated };
  });
}

async function snapFrame(
  frame: Frame,
  page: Page,
  refs: RefRegistry,
  tabId: string,
  state: { remaining: number; frames: number; truncated: boolean },
): Promise<SnapNode[]> {
  state.frames++;
  const json = (await frame.evaluate(
    snapshotExpression({ key: refs.key, base: refs.next, maxNodes: Math.max(1, state.remaining) }),
  )) as string;
  const raw = JSON.parse(json) as RawSnapshot;
  refs.next = Math.max(refs.next, raw.next);
  refs.sync(frame, page, tabId, raw.live);
  if (raw.truncated) state.truncated = true;
  state.remaining -= countNodes(raw.nodes).lines;

  const markers: SnapNode[] = [];
  const collect = (list: SnapNode[]): void => {
    for (const n of list) {
      if (n.frame !== undefined) markers.push(n);
      if (n.children) collect(n.children);
    }
  };
  collect(raw.nodes);
  if (markers.length === 0) return raw.nodes;

  const key = refs.key;
  for (const child of frame.childFrames()) {
    if (child.isDetached()) continue;
    let index = -1;
    try {
      const owner = await child.frameElement();
      index = await owner.evaluate(
        (el, k) => {
          const g = (window as unknown as Record<string, { frames: Node[] } | undefined>)[k];
          return g ? g.frames.indexOf(el) : -1;
        },
        key,
      );
      await owner.dispose();
    } catch {
      continue;
    }
    const marker = markers.find((m) => m.frame === index);
    if (!marker) continue;
    if (state.remaining <= 0) {
      state.truncated = true;
      continue;
    }
    try {
      const inner = await snapFrame(child, page, refs, tabId, state);
      if (inner.length) marker.children = inner;
    } catch (err) {
      marker.children = [{ role: 'text', text: `(frame not readable: ${firstLine(err)})` }];
    }
  }
  for (const m of markers) delete m.frame;
  return raw.nodes;
}
