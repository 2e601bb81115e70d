// Wire types of the browser skill: the one Action union (zod schemas, so the browser server, the core
// routes and the slash-command parser all validate the same shape) and the result shapes.
// No playwright import here: the core server and the CLI load this without loading a browser driver.
import { z } from 'zod';

export const DEFAULT_BROWSER_PORT = 3459;

/** Default timeouts (ms) of the actions that do not say. */
export const DEFAULT_TIMEOUTS = {
  open: 30_000,
  action: 10_000,
  extract: 5_000,
  eval: 30_000,
  wait: 30_000,
  screenshot: 30_000,
  fetch: 30_000,
} as const;

/** Longest timeout any single action may ask for (ms). Keeps every request bounded. */
export const MAX_TIMEOUT_MS = 300_000;

const target = z.string().trim().min(1, 'target is empty').max(4000);
const timeout = z.number().int().min(1).max(MAX_TIMEOUT_MS).optional();
const tab = z.string().trim().min(1).max(64).optional();
const url = z.string().trim().min(1, 'url is empty').max(8192);

export const OpenAction = z.strictObject({
  action: z.literal('open'),
  url,
  tab,
  timeout,
  waitUntil: z.enum(['load', 'domcontentloaded', 'networkidle', 'commit']).optional(),
});
export const ScreenshotAction = z.strictObject({
  action: z.literal('screenshot'),
  full: z.boolean().optional(),
  /** Optional element (selector or ref) to capture instead of the page. */
  target: target.optional(),
  tab,
  timeout,
});
export const ClickAction = z.strictObject({
  action: z.literal('click'),
  target,
  tab,
  timeout,
  button: z.enum(['left', 'right', 'middle']).optional(),
  double: z.boolean().optional(),
});
/**
 * A mouse event at viewport coordinates (CSS pixels), for targets with no DOM element to name (canvas,
 * pixels found by vision-click): move there, then click with `button` `clickCount` times, or only move
 * (`move: true`, a hover).
 */
export const MouseAction = z
  .strictObject({
    action: z.literal('mouse'),
    x: z.number().finite().min(0).max(100_000),
    y: z.number().finite().min(0).max(100_000),
    button: z.enum(['left', 'right', 'middle']).optional(),
    clickCount: z.number().int().min(1).max(3).optional(),
    move: z.boolean().optional(),
    tab,
  })
  .refine((v) => !(v.move && (v.button !== undefined || v.clickCount !== undefined)), {
    message: 'move: true only moves the pointer; it takes no button or clickCount',
    path: ['move'],
  });
export const TypeAction = z.strictObject({
  action: z.literal('type'),
  target,
  text: z.string().max(1_000_000),
  /** Press Enter after typing. */
  submit: z.boolean().optional(),
  tab,
  timeout,
});
export const ExtractAction = z.strictObject({
  action: z.literal('extract'),
  target,
  what: z
    .string()
    .trim()
    .regex(/^(text|html|attr:[^\s]+)$/, 'what must be text, html or attr:<name>'),
  all: z.boolean().optional(),
  tab,
  timeout,
});
export const EvalAction = z.strictObject({
  action: z.literal('eval'),
  script: z.string().trim().min(1, 'script is empty').max(1_000_000),
  tab,
  timeout,
});
export const WaitAction = z
  .strictObject({
    action: z.literal('wait'),
    selector: target.optional(),
    navigation: z.boolean().optional(),
    idle: z.boolean().optional(),
    state: z.enum(['attached', 'detached', 'visible', 'hidden']).optional(),
    /** Quiet period that counts as network idle (ms, default 500). */
    idleMs: z.number().int().min(0).max(60_000).optional(),
    tab,
    timeout,
  })
  .refine((v) => Number(!!v.selector) + Number(!!v.navigation) + Number(!!v.idle) === 1, {
    message: 'wait needs exactly one of: selector, navigation: true, idle: true',
  });
export const SnapshotAction = z.strictObject({
  action: z.literal('snapshot'),
  diff: z.boolean().optional(),
  tab,
  maxNodes: z.number().int().min(1).max(100_000).optional(),
});
export const TabsAction = z.strictObject({ action: z.literal('tabs') });
export const TabOpenAction = z.strictObject({ action: z.literal('tab_open'), url: url.optional(), timeout });
export const TabSwitchAction = z.strictObject({ action: z.literal('tab_switch'), tab: z.string().trim().min(1) });
export const TabCloseAction = z.strictObject({ action: z.literal('tab_close'), tab: z.string().trim().min(1) });
const logQuery = {
  tab,
  limit: z.number().int().min(1).max(10_000).optional(),
  clear: z.boolean().optional(),
};
export const ConsoleAction = z.strictObject({ action: z.literal('console'), ...logQuery });
export const NetworkAction = z.strictObject({ action: z.literal('network'), ...logQuery });
export const FetchAction = z.strictObject({
  action: z.literal('fetch'),
  url,
  maxChars: z.number().int().min(100).max(5_000_000).optional(),
  timeout,
});

export const ActionSchema = z.discriminatedUnion('action', [
  OpenAction,
  ScreenshotAction,
  ClickAction,
  MouseAction,
  TypeAction,
  ExtractAction,
  EvalAction,
  WaitAction,
  SnapshotAction,
  TabsAction,
  TabOpenAction,
  TabSwitchAction,
  TabCloseAction,
  ConsoleAction,
  NetworkAction,
  FetchAction,
]);

export type Action = z.infer<typeof ActionSchema>;
export type ActionName = Action['action'];
export type ActionOf<N extends ActionName> = Extract<Action, { action: N }>;

/** Body of POST /api/browser/start. */
export const StartBody = z.strictObject({ headless: z.boolean().optional() });
/** Body of POST /api/browser/fetch (the fetch action without its discriminator). */
export const FetchBody = FetchAction.omit({ action: true });
/** Body of POST /api/browser/tabs. */
export const TabOpenBody = TabOpenAction.omit({ action: true });
/** Query of GET /api/browser/snapshot. */
export const SnapshotQuery = z.object({
  diff: z.enum(['1', '0', 'true', 'false']).optional(),
  tab,
  maxNodes: z.coerce.number().int().min(1).max(100_000).optional(),
});
/** Query of GET /api/browser/console and /network. */
export const LogQuery = z.object({
  tab,
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  clear: z.enum(['1', '0', 'true', 'false']).optional(),
});

export const truthy = (v: string | undefined): boolean => v === '1' || v === 'true';

// ---- results -------------------------------------------------------------------------------------

export interface TabInfo {
  id: string;
  url: string;
  title: string;
  active: boolean;
  crashed?: boolean;
}

export interface ConsoleEntry {
  ts: number;
  type: string;
  text: string;
  location?: string;
}

export interface NetworkEntry {
  ts: number;
  method: string;
  url: string;
  resourceType: string;
  status?: number;
  failure?: string;
  durationMs?: number;
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: { before: string; after: string }[];
  unchanged: number;
}

export interface SnapshotResult {
  tab: string;
  url: string;
  title: string;
  text: string;
  lines: number;
  refs: number;
  frames: number;
  truncated: boolean;
  diff?: SnapshotDiff;
  /** False when diff was asked for but there was no earlier snapshot of this tab to compare with. */
  hadPrevious?: boolean;
}

export interface BrowserStatus {
  running: boolean;
  mode: 'launch' | 'attach';
  connected: boolean;
  headless: boolean;
  pid?: number;
  /** The browser was left running by an earlier server on this profile and taken over. */
  adopted?: boolean;
  cdpEndpoint?: string;
  executablePath?: string;
  profileDir?: string;
  launches: number;
  lastExit?: { at: number; code: number | null; signal: string | null; reason: string };
  tabs: number;
  activeTab?: string;
}

export interface FetchResult {
  url: string;
  finalUrl: string;
  status?: number;
  title: string;
  text: string;
  chars: number;
  truncated: boolean;
}

export interface ScreenshotResult {
  filename: string;
  url: string;
  bytes: number;
  fullPage: boolean;
}

export interface OpenResult {
  tab: string;
  url: string;
  title: string;
  status: number | null;
}
export interface ClickResult {
  tab: string;
  clicked: string;
  url: string;
}
export interface MouseResult {
  tab: string;
  x: number;
  y: number;
  /** 'move' when only the pointer moved (hover). */
  button: 'left' | 'right' | 'middle' | 'move';
  clickCount: number;
  url: string;
}
export interface TypeResult {
  tab: string;
  typed: string;
  chars: number;
  submitted: boolean;
}
export interface ExtractResult {
  tab: string;
  target: string;
  what: string;
  count: number;
  /** Single-element form. */
  value?: string | null;
  /** --all form. */
  values?: (string | null)[];
}
export interface EvalResult {
  tab: string;
  result: unknown;
}
export interface WaitResult {
  tab: string;
  waited: 'selector' | 'navigation' | 'idle';
  ms: number;
  url: string;
}
export interface TabsResult {
  tabs: TabInfo[];
  active?: string;
}
export interface TabResult {
  tab: TabInfo;
}
export interface TabCloseResult {
  closed: string;
  active?: string;
}
export interface LogsResult<T> {
  tab: string;
  entries: T[];
  /** Entries ever recorded for the tab (older ones fall out of the ring buffer). */
  total: number;
}

export interface ActionResultMap {
  open: OpenResult;
  screenshot: ScreenshotResult & { tab: string };
  click: ClickResult;
  mouse: MouseResult;
  type: TypeResult;
  extract: ExtractResult;
  eval: EvalResult;
  wait: WaitResult;
  snapshot: SnapshotResult;
  tabs: TabsResult;
  tab_open: TabResult;
  tab_switch: TabResult;
  tab_close: TabCloseResult;
  console: LogsResult<ConsoleEntry>;
  network: LogsResult<NetworkEntry>;
  fetch: FetchResult;
}
export type ActionResult<N extends ActionName = ActionName> = ActionResultMap[N];

