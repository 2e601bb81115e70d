// Applies web-routing rules to the controlled browser's traffic through Playwright request interception.
//
//   const attachment = await attachToPage(pageOrContext, ruleService);   // …later: await attachment.detach()
//
// One `route('**/*')` handler asks the same engine as the proxy (rules.ts) for a plan per request, reading the
// rule source on every request so rule changes apply at once:
//   pass      → route.fallback()  (untouched; other handlers may still act on it)
//   block     → route.fulfill 403 (or the rule's status) with the JSON body {"error":"BLOCKED_BY_RULE",…}
//   mock      → route.fulfill with the rendered body
//   redirect  → route.fulfill 3xx + Location (the browser follows it; the page sees the new URL)
//   rewrite / request transforms → route.continue({url, headers, postData}) (the page keeps seeing the original URL)
//   response transforms, or a rewrite to another scheme → route.fetch + route.fulfill with edited headers/body
// HTTPS is covered too (interception happens inside the browser, before TLS). Requests made by service workers are
// not seen by Playwright routes. The `x-web-routing` response header is present on responses the engine produced
// (block, mock, redirect, response transforms), not on requests it only continued.
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { toMatchRequest } from './pattern.ts';
import {
  APPLIED_HEADER,
  appliedHeaderValue,
  applyHeaderOps,
  applyReplacements,
  isTextualContentType,
  type Plan,
  type RuleSource,
} from './rules.ts';

export interface AttachOptions {
  /** called when handling one request failed (the request then goes on untouched when still possible) */
  onError?: (error: unknown, url: string) => void;
}

export interface Attachment {
  detach(): Promise<void>;
}

type Routable = Pick<Page, 'route' | 'unroute'> | Pick<BrowserContext, 'route' | 'unroute'>;

const DROP_ON_FULFILL = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export async function attachToPage(
  target: Page | BrowserContext | Routable,
  rules: RuleSource,
  options: AttachOptions = {},
): Promise<Attachment> {
  const handler = async (route: Route, request: Request): Promise<void> => {
    const url = request.url();
    let plan: Plan;
    try {
      const set = rules.current();
      if (set.size === 0 || !(url.startsWith('http://') || url.startsWith('https://'))) {
        await route.fallback();
        return;
      }
      const headers = set.hasHeaderConstraints ? await request.allHeaders() : request.headers();
      plan = set.plan(toMatchRequest(request.method(), url, headers));
    } catch (error) {
      options.onError?.(error, url);
      await route.fallback().catch(() => {});
      return;
    }
    try {
      await apply(route, request, plan);
    } catch (error) {
      options.onError?.(error, url);
      // The route may already be handled or the page gone; otherwise fail the request visibly.
      await route.abort('failed').catch(() => {});
    }
  };

  const routable = target as Routable;
  await routable.route('**/*', handler);
  let detached = false;
  return {
    async detach() {
      if (detached) return;
      detached = true;
      await routable.unroute('**/*', handler).catch(() => {});
    },
  };
}

async function apply(route: Route, request: Request, plan: Plan): Promise<void> {
  const applied: Record<string, string> = plan.applied.length ? { [APPLIED_HEADER]: appliedHeaderValue(plan.applied) } : {};
  switch (plan.action) {
    case 'pass':
      await route.fallback();
      return;
    case 'block':
      await route.fulfill({ status: plan.status, headers: { ...plan.headers, ...applied }, body: plan.body });
      return;
    case 'redirect':
      await route.fulfill({ status: plan.status, headers: { location: plan.location, ...applied }, body: '' });
      return;
    case 'mock': {
      const body = plan.body(plan.needsRequestBody ? (request.postData() ?? undefined) : undefined);
      await route.fulfill({ status: plan.status, headers: { ...plan.headers, ...applied }, body });
      return;
    }
    case 'forward': {
      const original = request.url();
      const url = plan.url;
      let headers: Record<string, string> | undefined;
      if (plan.request.headerOps.length) {
        headers = applyHeaderOps(await request.allHeaders(), plan.request.headerOps) as Record<string, string>;
      }
      let postData: string | Buffer | undefined;
      if (plan.request.replace.length) {
        const buf = request.postDataBuffer();
        const ct = (await request.headerValue('content-type')) ?? undefined;
        if (buf && isTextualContentType(ct)) postData = applyReplacements(buf.toString('utf8'), plan.request.replace);
      }
      const sameScheme = new URL(url).protocol === new URL(original).protocol;
      const editResponse = plan.response.headerOps.length > 0 || plan.response.replace.length > 0;
      if (!editResponse && sameScheme) {
        await route.continue({
          ...(url !== original ? { url } : {}),
          ...(headers ? { headers } : {}),
          ...(postData !== undefined ? { postData } : {}),
        });
        return;
      }
      const response = await route.fetch({
        url,
        ...(headers ? { headers } : {}),
        ...(postData !== undefined ? { postData } : {}),
        maxRedirects: 0,
      });
      let outHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(response.headers())) if (!DROP_ON_FULFILL.has(k)) outHeaders[k] = v;
      outHeaders = applyHeaderOps(outHeaders, plan.response.headerOps) as Record<string, string>;
      Object.assign(outHeaders, applied);
      let body = await response.body(); // already decompressed by Playwright
      if (plan.response.replace.length && isTextualContentType(response.headers()['content-type'])) {
        body = Buffer.from(applyReplacements(body.toString('utf8'), plan.response.replace), 'utf8');
      }
      await route.fulfill({ status: response.status(), headers: outHeaders, body });
      return;
    }
  }
}
