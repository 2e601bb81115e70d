// Wire types of the browser skill: the one Action union (zod schemas, so the browser server, the core
// routes and the slash-command parser all validate the same shape) and the result shapes.
// No playwright import here: the core server and the CLI load this without loading a browser driver.
import { z } from 'zod';
import { MAX_TIMEOUT_MS } from './limits.ts';

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

// ---- results (one schema each: the routes' answers, and the types the actions return) ---------------

export const TabInfoSchema = z.object({
  id: z.string(),
  url: z.string(),
  title: z.string(),
  active: z.boolean(),
  crashed: z.boolean().optional(),
});
export type TabInfo = z.infer<typeof TabInfoSchema>;

export const ConsoleEntrySchema = z.object({
  ts: z.number(),
  type: z.string(),
  text: z.string(),
  location: z.string().optional(),
});
export type ConsoleEntry = z.infer<typeof ConsoleEntrySchema>;

export const NetworkEntrySchema = z.object({
  ts: z.number(),
  method: z.string(),
  url: z.string(),
  resourceType: z.string(),
  status: z.number().optional(),
  failure: z.string().optional(),
  durationMs: z.number().optional(),
});
export type NetworkEntry = z.infer<typeof NetworkEntrySchema>;

export const SnapshotDiffSchema = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.object({ before: z.string(), after: z.string() })),
  unchanged: z.number(),
});
export type SnapshotDiff = z.infer<typeof SnapshotDiffSchema>;

export const SnapshotResultSchema = z.object({
  tab: z.string(),
  url: z.string(),
  title: z.string(),
  text: z.string(),
  lines: z.number(),
  refs: z.number(),
  frames: z.number(),
  truncated: z.boolean(),
  diff: SnapshotDiffSchema.optional(),
  /** False when diff was asked for but there was no earlier snapshot of this tab to compare with. */
  hadPrevious: z.boolean().optional(),
});
export type SnapshotResult = z.infer<typeof SnapshotResultSchema>;

export const BrowserStatusSchema = z.object({
  running: z.boolean(),
  mode: z.enum(['launch', 'attach']),
  connected: z.boolean(),
  headless: z.boolean(),
  pid: z.number().optional(),
  /** The browser was left running by an earlier server on this profile and taken over. */
  adopted: z.boolean().optional(),
  cdpEndpoint: z.string().optional(),
  executablePath: z.string().optional(),
  profileDir: z.string().optional(),
  launches: z.number(),
  lastExit: z.object({ at: z.number(), code: z.number().nullable(), signal: z.string().nullable(), reason: z.string() }).optional(),
  tabs: z.number(),
  activeTab: z.string().optional(),
});
export type BrowserStatus = z.infer<typeof BrowserStatusSchema>;

export const FetchResultSchema = z.object({
  url: z.string(),
  finalUrl: z.string(),
  status: z.number().optional(),
  title: z.string(),
  text: z.string(),
  chars: z.number(),
  truncated: z.boolean(),
});
export type FetchResult = z.infer<typeof FetchResultSchema>;

export const ScreenshotResultSchema = z.object({
  filename: z.string(),
  url: z.string(),
  bytes: z.number(),
  fullPage: z.boolean(),
});
export type ScreenshotResult = z.infer<typeof ScreenshotResultSchema>;

const tabOf = { tab: z.string() };
export const TabsResultSchema = z.object({ tabs: z.array(TabInfoSchema), active: z.string().optional() });
export const TabResultSchema = z.object({ tab: TabInfoSchema });
export const TabCloseResultSchema = z.object({ closed: z.string(), active: z.string().optional() });
/** `total`: entries ever recorded for the tab (older ones fall out of the ring buffer). */
const logsResult = <S extends z.ZodType>(entry: S) => z.object({ ...tabOf, entries: z.array(entry), total: z.number() });

export const ActionResultSchemas = {
  open: z.object({ ...tabOf, url: z.string(), title: z.string(), status: z.number().nullable() }),
  screenshot: ScreenshotResultSchema.extend(tabOf),
  click: z.object({ ...tabOf, clicked: z.string(), url: z.string() }),
  /** button 'move' when only the pointer moved (hover). */
  mouse: z.object({ ...tabOf, x: z.number(), y: z.number(), button: z.enum(['left', 'right', 'middle', 'move']), clickCount: z.number(), url: z.string() }),
  type: z.object({ ...tabOf, typed: z.string(), chars: z.number(), submitted: z.boolean() }),
  /** `value`: the single-element form; `values`: the --all form. */
  extract: z.object({
    ...tabOf,
    target: z.string(),
    what: z.string(),
    count: z.number(),
    value: z.string().nullable().optional(),
    values: z.array(z.string().nullable()).optional(),
  }),
  eval: z.object({ ...tabOf, result: z.unknown() }),
  wait: z.object({ ...tabOf, waited: z.enum(['selector', 'navigation', 'idle']), ms: z.number(), url: z.string() }),
  snapshot: SnapshotResultSchema,
  tabs: TabsResultSchema,
  tab_open: TabResultSchema,
  tab_switch: TabResultSchema,
  tab_close: TabCloseResultSchema,
  console: logsResult(ConsoleEntrySchema),
  network: logsResult(NetworkEntrySchema),
  fetch: FetchResultSchema,
} satisfies Record<ActionName, z.ZodType>;

export type ActionResultMap = { [N in ActionName]: z.infer<(typeof ActionResultSchemas)[N]> };
export type ActionResult<N extends ActionName = ActionName> = ActionResultMap[N];
export type OpenResult = ActionResultMap['open'];
export type ClickResult = ActionResultMap['click'];
export type MouseResult = ActionResultMap['mouse'];
export type TypeResult = ActionResultMap['type'];
export type ExtractResult = ActionResultMap['extract'];
export type EvalResult = ActionResultMap['eval'];
export type WaitResult = ActionResultMap['wait'];
export type TabsResult = ActionResultMap['tabs'];
export type TabResult = ActionResultMap['tab_open'];
export type TabCloseResult = ActionResultMap['tab_close'];
export interface LogsResult<T> {
  tab: string;
  entries: T[];
  total: number;
}

/** Any action's answer (POST /api/browser/act). */
const r = ActionResultSchemas;
export const ActionResultSchema = z.union([
  r.open, r.screenshot, r.click, r.mouse, r.type, r.extract, r.eval, r.wait, r.snapshot, r.tabs, r.tab_open, r.tab_switch, r.tab_close, r.console, r.network, r.fetch,
]);
