// The browser session: owns the CDP connection (playwright-core connectOverCDP) across commands, the
// tabs (one id per page, an explicit active tab), per-tab console and network ring buffers, and the ref
// registry. A dropped connection or a dead browser process is noticed (disconnect / exit events) and the
// next command launches a new browser, or reconnects to the attached one.
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { AppError } from '../../../core/errors.ts';
import { launchBrowser, normalizeCdpUrl, type LaunchedBrowser } from './launcher.ts';
import { RefRegistry } from './refs.ts';
import { Ring } from './ring.ts';
import type { BrowserStatus, ConsoleEntry, NetworkEntry, TabInfo } from './types.ts';
import { browserErrors, firstLine } from './errors.ts';
import { attachToPage, type RuleSource } from '../web-routing/index.ts';

export interface SessionOptions {
  /** Data directory: profile in <home>/browser-profile, screenshots in <home>/media. */
  home: string;
  /** Attach to a browser the user runs instead of launching one. */
  cdpUrl?: string;
  headless?: boolean;
  executablePath?: string;
  profileDir?: string;
  mediaDir?: string;
  /** Entries kept per tab in each of the console and network logs. */
  logLimit?: number;
  launchTimeoutMs?: number;
  extraArgs?: string[];
  /** web-routing rules applied to every request of the browser's pages. */
  rules?: RuleSource;
}

export interface Tab {
  id: string;
  page: Page;
  console: Ring<ConsoleEntry>;
  network: Ring<NetworkEntry>;
  inflight: Map<Request, NetworkEntry>;
  lastNetworkAt: number;
  /** Main-frame navigations seen. */
  navSeq: number;
  /** navSeq when the last action on this tab started (wait --navigation waits for navSeq to pass it). */
  navMark: number;
  navWaiters: Set<() => void>;
  lastActiveAt: number;
  crashed: boolean;
  /** Pages the server opens for itself (fetch): not listed, not made active. */
  internal: boolean;
  lastSnapshot?: string;
}

const MAX_INFLIGHT = 5000;
const SECRET_PARAM = /^(access_token|token|auth|authorization|key|api_key|apikey|secret|password|passwd|sig|signature|session|code)$/i;

/** URL as shown in the network log: sensitive query values masked, data: URLs shortened. */
export function redactUrl(raw: string): string {
  if (raw.startsWith('data:')) return raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  try {
    const u = new URL(raw);
    let changed = false;
    for (const k of [...u.searchParams.keys()]) {
      if (SECRET_PARAM.test(k)) {
        u.searchParams.set(k, 'REDACTED');
        changed = true;
      }
    }
    const s = changed ? u.toString() : raw;
    return s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
  } catch {
    return raw.slice(0, 2000);
  }
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export class BrowserSession {
  readonly refs = new RefRegistry();
  readonly profileDir: string;
  readonly mediaDir: string;
  readonly cdpUrl?: string;
  headless: boolean;
  launches = 0;
  lastExit?: BrowserStatus['lastExit'];

  private browser: Browser | null = null;
  private launched: LaunchedBrowser | null = null;
  private connecting: Promise<Browser> | null = null;
  private readonly tabs = new Map<string, Tab>();
  private readonly byPage = new WeakMap<Page, Tab>();
  private tabSeq = 0;
  private activeId?: string;
  private closed = false;
  private readonly logLimit: number;
  /** Browsers we are stopping on purpose: their exit is not a crash. */
  private readonly stopping = new WeakSet<LaunchedBrowser>();

  constructor(private readonly opts: SessionOptions) {
    this.profileDir = opts.profileDir ?? join(opts.home, 'browser-profile');
    this.mediaDir = opts.mediaDir ?? join(opts.home, 'media');
    this.cdpUrl = opts.cdpUrl ? normalizeCdpUrl(opts.cdpUrl) : undefined;
    this.headless = opts.headless ?? true;
    this.logLimit = opts.logLimit ?? 500;
  }

  get mode(): 'launch' | 'attach' {
    return this.cdpUrl ? 'attach' : 'launch';
  }

  /** The launched browser process, if this session owns one. */
  get process(): LaunchedBrowser | null {
    return this.launched;
  }

  /** A connected browser: the current one, or a fresh launch / re-attach. Concurrent callers share one. */
  async ensure(): Promise<Browser> {
    if (this.closed) throw new AppError(503, 'BROWSER_SERVER_CLOSING', 'The browser server is shutting down.');
    if (this.browser?.isConnected()) return this.browser;
    if (!this.connecting) {
      this.connecting = this.connect().finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  async context(): Promise<BrowserContext> {
    const b = await this.ensure();
    const ctx = b.contexts()[0];
    if (!ctx) throw new AppError(503, 'BROWSER_NO_CONTEXT', 'The browser has no default context to open pages in. Restart it.');
    return ctx;
  }

  private resetState(): void {
    for (const t of this.tabs.values()) for (const w of t.navWaiters) w();
    this.tabs.clear();
    this.refs.clear();
    this.activeId = undefined;
  }

  private async connect(): Promise<Browser> {
    this.browser = null;
    this.resetState();
    let browser: Browser;
    if (this.cdpUrl) {
      try {
        browser = await chromium.connectOverCDP(this.cdpUrl, { timeout: 10_000 });
      } catch (err) {
        throw new AppError(
          503,
          'BROWSER_ATTACH_FAILED',
          `Could not connect to the browser at ${this.cdpUrl}: ${firstLine(err)}. Start Chrome with --remote-debugging-port=9222 (loopback) and pass --cdp-url http://127.0.0.1:9222.`,
        );
      }
    } else {
      if (this.launched && !this.launched.isAlive()) this.launched = null;
      if (!this.launched) {
        const l = await launchBrowser({
          profileDir: this.profileDir,
          headless: this.headless,
          executablePath: this.opts.executablePath,
          extraArgs: this.opts.extraArgs,
          timeoutMs: this.opts.launchTimeoutMs,
        });
        this.launches++;
        this.launched = l;
        l.onExit((e) => {
          this.lastExit = { at: e.at, code: e.code, signal: e.signal, reason: this.stopping.has(l) ? 'stopped' : 'crashed' };
          if (this.launched === l) this.launched = null;
        });
      }
      try {
        browser = await chromium.connectOverCDP(this.launched.wsEndpoint, { timeout: 10_000 });
      } catch (err) {
        await this.launched.kill(1000);
        this.launched = null;
        throw new AppError(503, 'BROWSER_CONNECT_FAILED', `Launched the browser but could not connect to it: ${firstLine(err)}. Try again.`);
      }
    }
    browser.on('disconnected', () => {
      if (this.browser === browser) {
        this.browser = null;
        this.resetState();
        if (!this.lastExit || Date.now() - this.lastExit.at > 5000) {
          this.lastExit = { at: Date.now(), code: null, signal: null, reason: 'disconnected' };
        }
      }
    });
    this.browser = browser;
    for (const ctx of browser.contexts()) {
      if (this.opts.rules) await attachToPage(ctx, this.opts.rules);
      ctx.on('page', (p) => this.register(p));
      for (const p of ctx.pages()) this.register(p);
    }
    if (![...this.tabs.values()].some((t) => !t.internal)) {
      const ctx = browser.contexts()[0];
      if (ctx) this.register(await ctx.newPage());
    }
    return browser;
  }

  /** Give a page a tab id and attach its logs and trackers (idempotent). */
  register(page: Page): Tab {
    const known = this.byPage.get(page);
    if (known) return known;
    const t: Tab = {
      id: `t${++this.tabSeq}`,
      page,
      console: new Ring(this.logLimit),
      network: new Ring(this.logLimit),
      inflight: new Map(),
      lastNetworkAt: Date.now(),
      navSeq: 0,
      navMark: 0,
      navWaiters: new Set(),
      lastActiveAt: 0,
      crashed: false,
      internal: false,
    };
    this.byPage.set(page, t);
    this.tabs.set(t.id, t);
    const now = () => Date.now();
    page.on('console', (m) => {
      const loc = m.location();
      t.console.push({ ts: now(), type: m.type(), text: clip(m.text(), 4000), ...(loc.url ? { location: `${loc.url}:${loc.lineNumber}` } : {}) });
    });
    page.on('pageerror', (e) => t.console.push({ ts: now(), type: 'pageerror', text: clip(e.message, 4000) }));
    page.on('dialog', (d) => {
      const kind = d.type();
      t.console.push({ ts: now(), type: 'dialog', text: `${kind}: ${clip(d.message(), 1000)} (${kind === 'confirm' || kind === 'prompt' ? 'dismissed' : 'accepted'})` });
      (kind === 'confirm' || kind === 'prompt' ? d.dismiss() : d.accept()).catch(() => undefined);
    });
    page.on('request', (r) => {
      const e: NetworkEntry = { ts: now(), method: r.method(), url: redactUrl(r.url()), resourceType: r.resourceType() };
      t.network.push(e);
      t.inflight.set(r, e);
      if (t.inflight.size > MAX_INFLIGHT) t.inflight.delete(t.inflight.keys().next().value as Request);
      t.lastNetworkAt = now();
    });
    page.on('response', (res) => {
      const e = t.inflight.get(res.request());
      if (e) e.status = res.status();
    });
    const done = (r: Request, failure?: string) => {
      const e = t.inflight.get(r);
      if (e) {
        e.durationMs = now() - e.ts;
        if (failure) e.failure = failure;
        t.inflight.delete(r);
      }
      t.lastNetworkAt = now();
    };
    page.on('requestfinished', (r) => done(r));
    page.on('requestfailed', (r) => done(r, r.failure()?.errorText ?? 'failed'));
    page.on('framenavigated', (f) => {
      this.refs.dropHandles(f);
      if (f === page.mainFrame()) {
        t.navSeq++;
        for (const w of t.navWaiters) w();
      }
    });
    page.on('framedetached', (f) => this.refs.forgetFrame(f));
    page.on('crash', () => {
      t.crashed = true;
      t.console.push({ ts: now(), type: 'crash', text: 'The page crashed.' });
    });
    page.on('close', () => {
      this.tabs.delete(t.id);
      this.refs.forgetPage(page);
      for (const w of t.navWaiters) w();
      if (this.activeId === t.id) this.activeId = this.mostRecent()?.id;
    });
    return t;
  }

  private mostRecent(): Tab | undefined {
    let best: Tab | undefined;
    for (const t of this.tabs.values()) if (!t.internal && (!best || t.lastActiveAt >= best.lastActiveAt)) best = t;
    return best;
  }

  tabOf(page: Page): Tab {
    const t = this.byPage.get(page);
    if (!t || page.isClosed()) throw new AppError(409, 'TAB_CLOSED', 'The tab holding this element was closed.');
    return t;
  }

  /** A tab by id, or the active tab (opening one if the browser has none). Refuses crashed tabs. */
  async tab(id?: string): Promise<Tab> {
    await this.ensure();
    let t: Tab | undefined;
    if (id) {
      t = this.tabs.get(id);
      if (!t || t.internal) throw browserErrors.tabNotFound(id, this.tabIds());
    } else {
      t = (this.activeId ? this.tabs.get(this.activeId) : undefined) ?? this.mostRecent();
      if (!t) t = this.register(await (await this.context()).newPage());
      this.setActive(t);
    }
    if (t.crashed) throw browserErrors.pageCrashed(t.id);
    return t;
  }

  /** Like tab(id) but without refusing crashed tabs (for closing them, reading their logs). */
  async anyTab(id?: string): Promise<Tab> {
    await this.ensure();
    if (!id) return this.tab();
    const t = this.tabs.get(id);
    if (!t || t.internal) throw browserErrors.tabNotFound(id, this.tabIds());
    return t;
  }

  setActive(t: Tab): void {
    this.activeId = t.id;
    t.lastActiveAt = Date.now();
  }

  tabIds(): string[] {
    return [...this.tabs.values()].filter((t) => !t.internal).map((t) => t.id);
  }

  visibleTabs(): Tab[] {
    return [...this.tabs.values()].filter((t) => !t.internal);
  }

  async tabInfo(t: Tab): Promise<TabInfo> {
    const title = t.crashed ? '' : await t.page.title().catch(() => '');
    return { id: t.id, url: t.page.url(), title, active: t.id === this.activeId, ...(t.crashed ? { crashed: true } : {}) };
  }

  get activeTabId(): string | undefined {
    return this.activeId;
  }

  status(): BrowserStatus {
    const connected = !!this.browser?.isConnected();
    const l = this.launched;
    return {
      running: connected,
      mode: this.mode,
      connected,
      headless: this.headless,
      ...(l ? { pid: l.pid, adopted: l.adopted, cdpEndpoint: `http://127.0.0.1:${l.port}`, executablePath: l.executablePath, profileDir: l.profileDir } : {}),
      ...(this.cdpUrl ? { cdpEndpoint: this.cdpUrl } : {}),
      launches: this.launches,
      ...(this.lastExit ? { lastExit: this.lastExit } : {}),
      tabs: connected ? this.tabIds().length : 0,
      ...(connected && this.activeId ? { activeTab: this.activeId } : {}),
    };
  }

  /** Make sure a browser is up; switch headless/headed first if asked (launch mode only). */
  async start(opts: { headless?: boolean } = {}): Promise<BrowserStatus> {
    if (opts.headless !== undefined && opts.headless !== this.headless) {
      if (this.mode === 'attach') {
        throw new AppError(400, 'ATTACHED_MODE_FIXED', 'This server is attached to a browser it does not own; its headless/headed mode cannot be changed from here.');
      }
      await this.stopBrowser();
      this.headless = opts.headless;
    }
    await this.ensure();
    return this.status();
  }

  /**
   * Let go of the browser: a browser this session launched is closed (gracefully, then killed);
   * an attached browser is only disconnected from, never closed.
   */
  async stopBrowser(): Promise<void> {
    if (this.connecting) await this.connecting.catch(() => undefined);
    const b = this.browser;
    const l = this.launched;
    this.browser = null;
    this.launched = null;
    this.resetState();
    if (l) {
      this.stopping.add(l);
      if (b?.isConnected()) {
        try {
          const cdp = await b.newBrowserCDPSession();
          await Promise.race([cdp.send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]);
        } catch {
          /* fall through to kill */
        }
      }
      if (!(await l.waitExit(3000))) await l.kill(2000);
    }
    if (b) await b.close().catch(() => undefined);
  }

  /** Close the session for good. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopBrowser();
  }
}
