// Pure merges of svc's MCP servers into one CLI config file's text. Only entries svc wrote before
// (`owned`) are replaced or removed; every other entry is kept as it is, and an svc server whose name
// is taken by an entry svc did not write is skipped rather than overwriting it.
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { badRequest } from '../../core/errors.ts';

export interface MergeResult {
  /** The new file text (equal to the old one when nothing changed). */
  text: string;
  added: string[];
  updated: string[];
  removed: string[];
  /** Entries svc did not write, left as they are. */
  kept: string[];
  skipped: { name: string; reason: string }[];
  /** The names svc owns in this file afterwards. */
  owned: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function plan(current: Json, owned: readonly string[], desired: Json) {
  const mine = new Set(owned);
  const result = { added: [] as string[], updated: [] as string[], removed: [] as string[], kept: [] as string[], skipped: [] as MergeResult['skipped'], owned: [] as string[] };
  for (const name of Object.keys(current)) {
    if (!mine.has(name)) result.kept.push(name);
    else if (!(name in desired)) result.removed.push(name);
  }
  for (const [name, entry] of Object.entries(desired)) {
    if (name in current && !mine.has(name)) {
      result.skipped.push({ name, reason: 'an entry of this name was not written by svc; it is kept as it is' });
      continue;
    }
    result.owned.push(name);
    if (!(name in current)) result.added.push(name);
    else if (JSON.stringify(current[name]) !== JSON.stringify(entry)) result.updated.push(name);
  }
  return result;
}

/** A JSON config whose servers live under one top-level key (`mcpServers`, `mcp`). */
export function mergeJsonConfig(text: string | undefined, key: string, owned: readonly string[], desired: Json): MergeResult {
  let doc: unknown = {};
  if (text !== undefined && text.trim()) {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw badRequest('MCP_SYNC_FAILED', `The file is not valid JSON (${(err as Error).message}); fix it by hand, then sync again.`);
    }
  }
  if (!isObject(doc)) throw badRequest('MCP_SYNC_FAILED', 'The file does not hold a JSON object; fix it by hand, then sync again.');
  const current = isObject(doc[key]) ? doc[key] : {};
  const p = plan(current, owned, desired);
  const changed = p.added.length + p.updated.length + p.removed.length > 0;
  if (!changed) return { text: text ?? '', ...p };
  const servers: Json = {};
  for (const [name, entry] of Object.entries(current)) if (!p.removed.includes(name)) servers[name] = entry;
  for (const name of p.owned) servers[name] = desired[name];
  return { text: `${JSON.stringify({ ...doc, [key]: servers }, null, 2)}\n`, ...p };
}

const MARK = '# svc: MCP server written by POST /api/mcp/sync; svc replaces or removes it on the next sync';
const HEADER = /^\s*\[\s*mcp_servers\s*\.\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$/;
const ANY_HEADER = /^\s*\[/;

/** The name of the `[mcp_servers.<name>…]` table a header line opens, if it is one. */
function tableName(line: string): string | undefined {
  const m = HEADER.exec(line);
  if (!m) return undefined;
  return m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1];
}

/**
 * Codex's config.toml: svc's tables (and the marker comment above each) are cut out as text and
 * rewritten at the end, so the user's comments and layout elsewhere stay byte for byte.
 */
export function mergeCodexToml(text: string | undefined, owned: readonly string[], desired: Json): MergeResult {
  const source = text ?? '';
  let doc: Json;
  try {
    doc = parseToml(source) as Json;
  } catch (err) {
    throw badRequest('MCP_SYNC_FAILED', `The file is not valid TOML (${(err as Error).message.split('\n')[0]}); fix it by hand, then sync again.`);
  }
  const current = isObject(doc.mcp_servers) ? doc.mcp_servers : {};
  const p = plan(current, owned, desired);
  if (p.added.length + p.updated.length + p.removed.length === 0) return { text: source, ...p };
  const mine = new Set(owned);
  const lines = source.split('\n');
  const out: string[] = [];
  let cutting = false;
  for (const line of lines) {
    if (ANY_HEADER.test(line)) {
      const name = tableName(line);
      cutting = name !== undefined && mine.has(name);
    }
    if (!cutting) out.push(line);
  }
  // The marker sits right above each table svc wrote: drop the ones left dangling.
  let body = out.filter((line) => line !== MARK).join('\n').replace(/\n{3,}/g, '\n\n').trimEnd();
  const rest = parseToml(body) as Json;
  const left = isObject(rest.mcp_servers) ? Object.keys(rest.mcp_servers).filter((n) => mine.has(n)) : [];
  if (left.length) throw badRequest('MCP_SYNC_FAILED', `mcp_servers.${left[0]} is not written as its own table; edit it by hand, then sync again.`);
  for (const name of p.owned) {
    body += `${body ? '\n\n' : ''}${MARK}\n${stringifyToml({ mcp_servers: { [name]: desired[name] } }).trim()}`;
  }
  const next = `${body}\n`;
  parseToml(next);
  return { text: next, ...p };
}
