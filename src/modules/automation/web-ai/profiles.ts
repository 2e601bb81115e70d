// Vendor profiles as data: what a chat site looks like to svc (its URL, the signs of a login wall or a
// captcha, the composer, send and stop buttons, how to attach files, the assistant's messages and the code
// blocks in them, when an answer is complete). This file is pure: the schema, the user file's
// validation, merging overrides into the built-in profiles, and matching helpers. The driver turns
// the locator specs into Playwright locators.
//
// A locator spec is a CSS (or Playwright) selector string, or `{ role, name?, exact? }` for an element
// found by its accessible role and name (the sturdier kind: sites change class names far more often
// than their buttons' labels). A finder is one spec or a list of alternatives tried in order. Names and
// patterns are case-insensitive substrings, or regular expressions written as "/…/flags".
import { z } from 'zod';
import { AppError } from '../../../core/errors.ts';
import { VENDOR_ID } from './types.ts';

export const ARIA_ROLES = [
  'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox', 'code',
  'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document',
  'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'insertion', 'link', 'list',
  'listbox', 'listitem', 'log', 'main', 'marquee', 'math', 'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup',
  'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status',
  'strong', 'subscript', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer',
  'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem',
] as const;
export type AriaRole = (typeof ARIA_ROLES)[number];

const REGEX_LITERAL = /^\/([\s\S]+)\/([dgimsuy]*)$/;

/** "/re/flags" is a regular expression; any other string a case-insensitive substring. */
export function toPattern(s: string): string | RegExp {
  const m = REGEX_LITERAL.exec(s);
  return m ? new RegExp(m[1]!, m[2]!.replace(/g|y/g, '')) : s;
}

export function matchesPattern(text: string, pattern: string): boolean {
  const p = toPattern(pattern);
  return typeof p === 'string' ? text.toLowerCase().includes(p.toLowerCase()) : p.test(text);
}

const Pattern = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (s) => {
      try {
        toPattern(s);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'not a valid regular expression (write one as "/…/flags", or give plain text to match as a substring)' },
  );
const Selector = z.string().trim().min(1, 'the selector is empty').max(1000);
const RoleLocator = z.strictObject({
  role: z.enum(ARIA_ROLES, { error: "not an ARIA role (button, textbox, link, menuitem, article, … as Playwright's getByRole takes them)" }),
  name: Pattern.optional(),
  exact: z.boolean().optional(),
});
export const LocatorSpecSchema = z.union([Selector, RoleLocator]);
export type LocatorSpec = z.infer<typeof LocatorSpecSchema>;
export const FinderSchema = z.union([LocatorSpecSchema, z.array(LocatorSpecSchema).min(1).max(20)]);
export type Finder = z.infer<typeof FinderSchema>;

/** Signs of a page state (login wall, captcha): any one of them is enough. */
const MarkersSchema = z.strictObject({ url: Pattern.optional(), title: Pattern.optional(), elements: FinderSchema.optional() });
export type Markers = z.infer<typeof MarkersSchema>;

/** Where a code block says its language: an attribute (of the block or an element in it), or a label's text. */
const LanguageRule = z.union([
  z.strictObject({ attribute: z.string().min(1).max(100), of: Selector.optional(), pattern: Pattern.optional() }),
  z.strictObject({ label: Selector }),
]);
export type LanguageRule = z.infer<typeof LanguageRule>;

/** Code blocks inside an assistant message. CSS selectors, relative to the message and then to the block. */
const CodeSchema = z.strictObject({
  block: Selector,
  /** The element holding the code text (default: the block itself). */
  text: Selector.optional(),
  language: z.array(LanguageRule).max(10),
});

/** How to attach files: a file input, or buttons to click in order, the last opening a file chooser. */
const AttachSchema = z
  .strictObject({ input: FinderSchema.optional(), open: z.array(LocatorSpecSchema).min(1).max(5).optional() })
  .refine((a) => a.input || a.open, { message: 'attach needs an input or the buttons that open a file chooser (open)' });

const HttpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { message: 'must be an http(s) URL' });

export const ProfileSchema = z.strictObject({
  label: z.string().trim().min(1).max(100),
  /** Where a new chat starts. Tabs on this origin (or on one of `hosts`) belong to the vendor. */
  url: HttpUrl.optional(),
  hosts: z.array(z.string().trim().min(1).max(253)).max(20).optional(),
  composer: FinderSchema,
  /** Without one, Enter in the composer sends. */
  send: FinderSchema.optional(),
  /** Shows while an answer is being written. */
  stop: FinderSchema.optional(),
  attach: AttachSchema.optional(),
  /** The assistant's messages, oldest first. */
  answer: FinderSchema,
  code: CodeSchema,
  login: MarkersSchema,
  captcha: MarkersSchema,
  /** An answer is complete when the stop button is gone and its text has not changed for this long (ms). */
  stableMs: z.number().int().min(0).max(60_000),
  /** How long a page may take to show its composer (or a login wall, or a captcha). */
  readyTimeoutMs: z.number().int().min(500).max(300_000),
  /** How long sending may take to show (the composer clears, the stop button or a new message appears). */
  sendTimeoutMs: z.number().int().min(500).max(300_000),
});
export type Profile = z.infer<typeof ProfileSchema>;

export interface ResolvedProfile extends Profile {
  id: string;
  source: 'builtin' | 'override' | 'user';
}

/** Fields merged one level deep (the rest, and every list, replace what they override). */
const NESTED = new Set(['code', 'login', 'captcha', 'attach']);

// The user file: every field optional (null removes an optional one), plus `extends`.
const partialOf = <T extends z.ZodRawShape>(o: z.ZodObject<T>) => o.partial();
const PartialProfileSchema = z.strictObject({
  extends: z.string().regex(VENDOR_ID, 'extends names a profile id').optional(),
  label: ProfileSchema.shape.label.optional(),
  url: HttpUrl.nullable().optional(),
  hosts: ProfileSchema.shape.hosts.nullable(),
  composer: FinderSchema.optional(),
  send: FinderSchema.nullable().optional(),
  stop: FinderSchema.nullable().optional(),
  attach: partialOf(z.strictObject({ input: FinderSchema, open: z.array(LocatorSpecSchema).min(1).max(5) })).nullable().optional(),
  answer: FinderSchema.optional(),
  code: partialOf(CodeSchema).optional(),
  login: MarkersSchema.optional(),
  captcha: MarkersSchema.optional(),
  stableMs: ProfileSchema.shape.stableMs.optional(),
  readyTimeoutMs: ProfileSchema.shape.readyTimeoutMs.optional(),
  sendTimeoutMs: ProfileSchema.shape.sendTimeoutMs.optional(),
});
export type PartialProfile = z.infer<typeof PartialProfileSchema>;

export const ProfileFileSchema = z.strictObject({
  profiles: z.record(z.string().regex(VENDOR_ID, 'a profile id is lowercase letters, digits, - and _'), PartialProfileSchema),
});
export type ProfileFile = z.infer<typeof ProfileFileSchema>;

/** Apply an override: given fields replace, nested objects merge one level, null removes. */
export function mergeProfile(base: Partial<Profile>, over: PartialProfile): Partial<Profile> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === 'extends' || value === undefined) continue;
    if (value === null) delete out[key];
    else if (NESTED.has(key) && isPlainObject(out[key]) && isPlainObject(value)) out[key] = { ...out[key], ...value };
    else out[key] = value;
  }
  return out as Partial<Profile>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each zod issue as `profiles.<id>.<field>: what is wrong`, looking inside unions for the branch that got furthest. */
export function issueText(prefix: string, issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    let i = issue;
    let path = [...i.path];
    while (i.code === 'invalid_union' && i.errors.length) {
      const best = i.errors.map((branch) => branch[0]).filter((b) => b !== undefined).sort((a, b) => b.path.length - a.path.length)[0];
      if (!best || (best.path.length === 0 && best.code === 'invalid_type')) break;
      i = best;
      path = [...path, ...i.path];
    }
    const at = (extra: PropertyKey[] = []) => [prefix, ...path, ...extra].map(String).filter(Boolean).join('.');
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${at([k])}: unknown field`);
    if (i.code === 'invalid_union') return [`${at()}: expected a CSS selector, { "role": …, "name": … }, or a list of them`];
    return [`${at()}: ${i.message}`];
  });
}

function invalid(file: string, issues: string[]): AppError {
  return new AppError(
    400,
    'WEB_AI_PROFILE_INVALID',
    `${file} is not a valid web-ai profile file: ${issues.join('; ')}. Fix it, or move it away to use the built-in profiles.`,
    { file, issues },
  );
}

/**
 * The profiles in effect: the built-in ones with the user's file applied. A file entry with a built-in's
 * id overrides it; any other id is a new profile based on `extends` (default: generic). Every resulting
 * profile must be complete; a problem is a 400 WEB_AI_PROFILE_INVALID naming the field (profiles.<id>.<field>).
 */
export function resolveProfiles(builtins: Readonly<Record<string, Profile>>, file?: { name: string; content: unknown }): Map<string, ResolvedProfile> {
  const out = new Map<string, ResolvedProfile>();
  for (const [id, p] of Object.entries(builtins)) out.set(id, { ...p, id, source: 'builtin' });
  if (!file) return out;
  const parsed = ProfileFileSchema.safeParse(file.content);
  if (!parsed.success) throw invalid(file.name, issueText('', parsed.error.issues));
  const entries = parsed.data.profiles;
  const issues: string[] = [];
  const merged = new Map<string, Partial<Profile>>();
  const resolve = (id: string, chain: string[]): Partial<Profile> => {
    const done = merged.get(id);
    if (done) return done;
    const over = entries[id];
    const builtin = builtins[id];
    if (!over) {
      if (builtin) return builtin;
      throw new Error(`profiles.${chain.at(-1)}.extends: there is no profile '${id}'`);
    }
    if (chain.includes(id)) throw new Error(`profiles.${id}.extends: profiles extend each other in a circle (${[...chain, id].join(' → ')})`);
    const baseId = over.extends ?? (builtin ? undefined : 'generic');
    let base: Partial<Profile>;
    if (baseId === id) throw new Error(`profiles.${id}.extends: a profile cannot extend itself`);
    else if (baseId) base = resolve(baseId, [...chain, id]);
    else base = builtin!;
    const result = mergeProfile(base, over);
    merged.set(id, result);
    return result;
  };
  for (const id of Object.keys(entries)) {
    try {
      const p = ProfileSchema.safeParse(resolve(id, []));
      if (!p.success) {
        issues.push(...issueText(`profiles.${id}`, p.error.issues));
        continue;
      }
      out.set(id, { ...p.data, id, source: builtins[id] ? 'override' : 'user' });
    } catch (err) {
      issues.push((err as Error).message);
    }
  }
  if (issues.length) throw invalid(file.name, issues);
  return out;
}

// ---- helpers the driver and the messages share -------------------------------------------------------

export const alternatives = (f: Finder): LocatorSpec[] => (Array.isArray(f) ? f : [f]);

/** A spec as a person reads it: `"#prompt-textarea"`, `button "Send"`, `button /^stop/i`. */
export function describeSpec(spec: LocatorSpec): string {
  if (typeof spec === 'string') return JSON.stringify(spec);
  if (!spec.name) return spec.role;
  return `${spec.role} ${REGEX_LITERAL.test(spec.name) ? spec.name : JSON.stringify(spec.name)}${spec.exact ? ' (exact)' : ''}`;
}

export const describeFinder = (f: Finder): string[] => alternatives(f).map(describeSpec);

export function describeMarkers(m: Markers): string[] {
  return [...(m.url ? [`url ${m.url}`] : []), ...(m.title ? [`title ${m.title}`] : []), ...(m.elements ? describeFinder(m.elements) : [])];
}

/** Whether a page URL belongs to a profile: the same origin as its url, or one of its hosts. */
export function belongsTo(pageUrl: string, p: Pick<Profile, 'url' | 'hosts'>): boolean {
  if (!URL.canParse(pageUrl)) return false;
  const u = new URL(pageUrl);
  if (p.url && new URL(p.url).origin === u.origin) return true;
  return (p.hosts ?? []).some((h) => u.hostname === h || u.hostname.endsWith(`.${h}`));
}
