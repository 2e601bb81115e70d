// Browser failures as AppErrors: stable codes, statuses fixed by the issue (bad selector 400, stale ref
// 409, timeout 504, no browser / launch failure 503, navigation error 502), messages a person can act on.
// `fromPlaywright` is the one place that reads Playwright's error text.
import { AppError } from '../../../core/errors.ts';

export const browserErrors = {
  badSelector: (target: string, why: string) =>
    new AppError(400, 'BAD_SELECTOR', `'${target}' is not a valid selector: ${why}. Use CSS, xpath=<expr> (or a leading /), or a ref like e12 from a snapshot.`, { target }),
  ambiguous: (target: string, count?: number) =>
    new AppError(
      400,
      'SELECTOR_AMBIGUOUS',
      `'${target}' matches ${count ?? 'several'} elements; refusing to guess which one. Make the selector more specific or use a ref from a snapshot.`,
      { target, ...(count !== undefined ? { count } : {}) },
    ),
  notFound: (target: string, ms: number) =>
    new AppError(404, 'ELEMENT_NOT_FOUND', `No element matches '${target}' (waited ${ms} ms). Check the selector, or take a snapshot to see the page.`, { target }),
  refStale: (ref: string, why = 'its element is no longer in the page') =>
    new AppError(409, 'REF_STALE', `Ref ${ref} is stale: ${why}. Take a new snapshot and use the refs it shows.`, { ref }),
  refUnknown: (ref: string) =>
    new AppError(404, 'REF_UNKNOWN', `Ref ${ref} was never issued. Take a snapshot first and use the refs it shows.`, { ref }),
  timeout: (what: string, ms: number, detail?: string) =>
    new AppError(504, 'TIMEOUT', `${what} did not finish within ${ms} ms${detail ? `: ${detail}` : ''}. Raise the timeout or check the page.`, { timeoutMs: ms }),
  navigation: (url: string, why: string) =>
    new AppError(502, 'NAVIGATION_FAILED', `Could not load ${url}: ${why}.`, { url }),
  badUrl: (url: string, why: string) => new AppError(400, 'BAD_URL', `'${url}' is not a URL the browser may open: ${why}.`, { url }),
  browserClosed: (detail?: string) =>
    new AppError(
      503,
      'BROWSER_CLOSED',
      `The browser closed while the command ran${detail ? ` (${detail})` : ''}. Run the command again: a browser this server launched is relaunched automatically.`,
    ),
  pageChanged: (detail: string) =>
    new AppError(409, 'PAGE_CHANGED', `The page navigated or its frame went away while the command ran (${detail}). Run the command again on the new page.`),
  tabNotFound: (id: string, known: string[]) =>
    new AppError(404, 'TAB_NOT_FOUND', `No tab '${id}'. Open tabs: ${known.length ? known.join(', ') : 'none'}.`, { tab: id }),
  pageCrashed: (id: string) =>
    new AppError(502, 'PAGE_CRASHED', `The page in tab ${id} crashed. Open the URL again or close the tab.`, { tab: id }),
  evalError: (message: string) => new AppError(400, 'EVAL_ERROR', `The script threw: ${message}`),
  resultTooLarge: (bytes: number, limit: number) =>
    new AppError(413, 'RESULT_TOO_LARGE', `The result is ${bytes} bytes of JSON, over the ${limit}-byte limit. Return less data from the script.`),
  // the browser is outside this server: its failures it has no words for are a 502, never svc's own 500
  internal: (what: string, message: string) => new AppError(502, 'BROWSER_ERROR', `${what} failed in the browser: ${message}`),
};

/**
 * The statuses a route that acts in the browser may answer besides every route's own: what the page lacks
 * (404), a page that changed under a ref (409), a result too large (413), the browser's failures (502) and its
 * timeouts (504). The browser server not starting or the browser closing is a 503, which every route lists.
 */
export const BROWSER_ERRORS: readonly number[] = [404, 409, 413, 502, 504];

/** Terminal colour codes (Playwright colours its call log) and control characters go; at most `max` characters stay. */
export function plainText(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

/** First line of an error message, without Playwright's "locator.click: " style prefix and call log. */
export function firstLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const line = (raw.split('\n').find((l) => l.trim() !== '') ?? raw).trim();
  return plainText(line.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, ''));
}

const CLOSED = /Target page, context or browser has been closed|Browser has been closed|browser has disconnected|Target closed|Connection closed|Browser closed|has been closed/i;
const DETACHED = /Element is not attached to the DOM|Execution context was destroyed|Frame was detached|Node is detached|Cannot find context with specified id|Element is detached|JSHandle is disposed|Node with given id does not belong/i;
const SELECTOR_SYNTAX = /Unexpected token|is not a valid selector|Unknown engine|Invalid selector|while parsing (css )?selector|Failed to execute '(querySelector(All)?|evaluate)'|Unexpected end of selector|not a valid XPath|SyntaxError.*(selector|XPath)|Failed to parse selector/i;

export interface ErrorContext {
  /** What was being done, for messages: "click on '#go'". */
  what: string;
  target?: string;
  ref?: string;
  timeoutMs?: number;
  url?: string;
}

/** Turn anything thrown by Playwright (or us) into an AppError. */
export function fromPlaywright(err: unknown, ctx: ErrorContext): AppError {
  if (err instanceof AppError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  const line = firstLine(err);
  if (ctx.ref && DETACHED.test(msg)) return browserErrors.refStale(ctx.ref);
  if (CLOSED.test(msg)) return browserErrors.browserClosed(line);
  if (err instanceof Error && err.name === 'TimeoutError') {
    const why = callLogReason(msg);
    return browserErrors.timeout(ctx.what, ctx.timeoutMs ?? 0, why);
  }
  if (/strict mode violation/i.test(msg)) {
    const m = /resolved to (\d+) elements/.exec(msg);
    return browserErrors.ambiguous(ctx.target ?? '?', m ? Number(m[1]) : undefined);
  }
  if (ctx.target && SELECTOR_SYNTAX.test(msg)) return browserErrors.badSelector(ctx.target, line);
  const net = /net::(ERR_[A-Z_]+)/.exec(msg);
  if (net && ctx.url) return browserErrors.navigation(ctx.url, net[1]!);
  if (DETACHED.test(msg)) return browserErrors.pageChanged(line);
  return browserErrors.internal(ctx.what, line);
}

/** The most telling line of Playwright's call log, e.g. "<div> intercepts pointer events". */
function callLogReason(msg: string): string | undefined {
  const lines = msg
    .split('\n')
    .map((l) => l.trim().replace(/^- /, ''))
    .filter(Boolean);
  const idx = lines.findIndex((l) => /^Call log:?$/i.test(l));
  if (idx < 0) return undefined;
  const log = lines.slice(idx + 1);
  const telling = [...log].reverse().find((l) => /intercepts pointer events|not visible|not enabled|not stable|not editable|waiting for/i.test(l));
  const reason = telling ?? log.at(-1);
  return reason === undefined ? undefined : plainText(reason);
}
