// The browser routes' API over a BrowserSession in this process: what the browser server mounts
// them on (the core server mounts them on a BrowserClient instead).
import { runAction } from './actions.ts';
import type { BrowserApi } from './browser.routes.ts';
import type { BrowserSession } from './session.ts';
import type { Action, ActionResult } from './types.ts';

export function sessionApi(session: BrowserSession): BrowserApi {
  return {
    start: (body) => session.start(body),
    status: async () => ({ server: true, ...session.status() }),
    act: ((action: Action): Promise<ActionResult> => runAction(session, action)) as BrowserApi['act'],
    snapshot: (q = {}) => runAction(session, { action: 'snapshot', diff: q.diff ?? false, tab: q.tab, maxNodes: q.maxNodes }),
    fetch: (body) => runAction(session, { action: 'fetch', ...body }),
    tabs: () => runAction(session, { action: 'tabs' }),
    openTab: (body = {}) => runAction(session, { action: 'tab_open', ...body }),
    switchTab: (tab) => runAction(session, { action: 'tab_switch', tab }),
    closeTab: (tab) => runAction(session, { action: 'tab_close', tab }),
    console: (q = {}) => runAction(session, { action: 'console', tab: q.tab, limit: q.limit, clear: q.clear }),
    network: (q = {}) => runAction(session, { action: 'network', tab: q.tab, limit: q.limit, clear: q.clear }),
  };
}
