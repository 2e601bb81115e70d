// The web-ai driver, on the browser server: asks a web chat assistant in the controlled browser (the user's
// own profile) and reads its answer back, for any site a profile describes. One tab per vendor, reused
// across prompts; one session per prompt sent, kept in memory while the server runs. Nothing is retried
// blindly: a page that is not ready says why (login wall, captcha, or which part of the profile it lacks).
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { AppError } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { fromPlaywright, type BrowserSession, type Tab } from '../browser/index.ts';
import { BUILTIN_PROFILES } from './builtins.ts';
import { toBlock } from './code.ts';
import { advance, type Progress } from './completion.ts';
import { webAiErrors } from './errors.ts';
import { detect, firstVisible, isVisible, lookAt, moreChecks, readAnswers, readBlocks, locatorOf, type Detection } from './page.ts';
import { belongsTo, describeFinder, describeSpec, resolveProfiles, type ResolvedProfile } from './profiles.ts';
import { DEFAULT_ANSWER_TIMEOUT_MS } from './limits.ts';
import type {
  Answer,
  AnswerState,
  CodeBody,
  CodeResult,
  ExtractBody,
  ExtractResult,
  PollQuery,
  Profiles,
  QueryBody,
  SendBody,
  SendResult,
  SessionInfo,
  Sessions,
  Status,
  StopBody,
  StopResult,
  WebAiApi,
} from './types.ts';

export interface WebAiDriverOptions {
  /** The user's profile file (read on every request, so edits apply at once). */
  profilesFile: string;
  /** How often a waiting poll looks at the page (ms, default 250). */
  intervalMs?: number;
  /** Sessions kept (oldest forgotten first; default 100). */
  maxSessions?: number;
}

interface Session extends Progress {
  id: string;
  profile: ResolvedProfile;
  tab: Tab;
  /** Assistant messages on the page before the prompt was sent: the answer is what comes after. */
  baseline: number;
  prompt: string;
  startedAt: number;
  updatedAt: number;
  state: AnswerState;
}

const NAV_TIMEOUT_MS = 30_000;
const ACTION_TIMEOUT_MS = 15_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const oneLine = (s: string, n: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/** Playwright's failures as AppErrors: a closed browser, a page that navigated while it was read. */
async function onPage<T>(what: string, fn: () => Promise<T>, timeoutMs?: number): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw fromPlaywright(err, { what, ...(timeoutMs ? { timeoutMs } : {}) });
  }
}

export class WebAiDriver implements WebAiApi {
  private readonly sessionsById = new Map<string, Session>();
  private readonly vendorTabs = new Map<string, string>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly intervalMs: number;

  constructor(
    private readonly browser: BrowserSession,
    private readonly opts: WebAiDriverOptions,
  ) {
    this.intervalMs = opts.intervalMs ?? 250;
  }

  // ---- profiles ------------------------------------------------------------------------------------

  private loadProfiles(): Map<string, ResolvedProfile> {
    const name = this.opts.profilesFile;
    if (!existsSync(name)) return resolveProfiles(BUILTIN_PROFILES);
    let content: unknown;
    try {
      content = JSON.parse(readFileSync(name, 'utf8'));
    } catch (err) {
      throw new AppError(400, 'WEB_AI_PROFILE_INVALID', `${name} is not valid JSON (${(err as Error).message}). Fix it, or move it away to use the built-in profiles.`, { file: name });
    }
    return resolveProfiles(BUILTIN_PROFILES, { name, content });
  }

  private profile(vendor: string): ResolvedProfile {
    const all = this.loadProfiles();
    const p = all.get(vendor);
    if (!p) throw webAiErrors.unknownVendor(vendor, [...all.keys()]);
    return p;
  }

  async profiles(): Promise<Profiles> {
    const all = [...this.loadProfiles().values()];
    return { file: this.opts.profilesFile, profiles: all.map((p) => ({ id: p.id, label: p.label, ...(p.url ? { url: p.url } : {}), source: p.source })) };
  }

  // ---- tabs ----------------------------------------------------------------------------------------

  /**
   * The vendor's tab: the one used last, else an open tab on its site. With `open`, a missing tab is opened
   * (and one that wandered off the site is brought back); without, only a tab on the site now will do.
   */
  private async vendorTab(p: ResolvedProfile, opts: { newChat?: boolean; open: boolean }): Promise<Tab> {
    await this.browser.ensure();
    const tabs = this.browser.visibleTabs().filter((t) => !t.page.isClosed());
    const onSite = (t: Tab) => belongsTo(t.page.url(), p);
    const known = tabs.find((t) => t.id === this.vendorTabs.get(p.id));
    let tab = opts.open ? (known ?? tabs.find(onSite)) : [known, ...tabs].find((t) => t && onSite(t));
    if (!tab && !opts.open) throw webAiErrors.noTab(p.label);
    const go = !tab || opts.newChat || !onSite(tab);
    if (go && !p.url) throw webAiErrors.noUrl(p.id, this.opts.profilesFile);
    tab ??= this.browser.register(await (await this.browser.context()).newPage());
    if (go) await this.navigate(tab.page, p.url!);
    this.vendorTabs.set(p.id, tab.id);
    return tab;
  }

  private async navigate(page: Page, url: string): Promise<void> {
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: NAV_TIMEOUT_MS });
    } catch (err) {
      throw fromPlaywright(err, { what: `opening ${url}`, url, timeoutMs: NAV_TIMEOUT_MS });
    }
  }

  /** Run one vendor's page work at a time (two prompts typed into one composer would mix). */
  private exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private refuseUnlessReady(p: ResolvedProfile, page: Page, d: Detection): void {
    const seen = (check: string) => d.checks.find((c) => c.check === check)?.detail ?? check;
    if (d.state === 'captcha') throw webAiErrors.captcha(p.label, page.url(), seen('captcha'));
    if (d.state === 'needs_login') throw webAiErrors.needsLogin(p.label, page.url(), seen('login'));
    if (d.state === 'unknown_layout') {
      throw webAiErrors.layoutUnknown(p.id, p.label, page.url(), d.checks.filter((c) => c.check === 'composer'), this.opts.profilesFile);
    }
  }

  // ---- sending -------------------------------------------------------------------------------------

  async send(body: SendBody): Promise<SendResult> {
    const p = this.profile(body.vendor);
    const files = body.files ?? [];
    if (files.some((f) => !isAbsolute(f))) throw webAiErrors.absoluteFilesOnly();
    if (files.length && !p.attach) throw webAiErrors.noAttach(p.id);
    return this.exclusive(p.id, () => onPage(`sending to ${p.label}`, async () => {
      const tab = await this.vendorTab(p, { newChat: body.newChat, open: true });
      const page = tab.page;
      const d = await detect(page, p, p.readyTimeoutMs, this.intervalMs);
      this.refuseUnlessReady(p, page, d);
      if (await isVisible(page, p.stop, `profiles.${p.id}.stop`)) throw webAiErrors.busy(p.label, this.latest((s) => s.tab === tab && s.state === 'streaming')?.id);
      const baseline = (await readAnswers(page, p)).length;
      if (files.length) await this.attach(page, p, files);
      const composer = d.composer!;
      const where = `${p.label}'s composer`;
      try {
        await composer.fill(body.prompt, { timeout: ACTION_TIMEOUT_MS });
      } catch (err) {
        throw fromPlaywright(err, { what: `typing into ${where}`, timeoutMs: ACTION_TIMEOUT_MS });
      }
      const typed = await composerText(composer);
      const head = oneLine(body.prompt, 40).replace(/\u2026$/, ''); // the ellipsis oneLine cut it with
      if (!oneLine(typed, 100_000).includes(head)) throw webAiErrors.sendFailed(p.label, `after typing, the composer shows "${oneLine(typed, 60)}"`);
      await this.submit(page, p, composer);
      await this.waitSent(page, p, composer, baseline);
      const now = Date.now();
      const s: Session = { id: newId('wa'), profile: p, tab, baseline, prompt: body.prompt, startedAt: now, updatedAt: now, state: 'streaming', text: '', changedAt: now, complete: false };
      this.remember(s);
      return { sessionId: s.id, vendor: p.id, tab: tab.id, url: page.url() };
    }));
  }

  private async attach(page: Page, p: ResolvedProfile, files: string[]): Promise<void> {
    const a = p.attach!;
    const what = `attaching ${files.length} file${files.length === 1 ? '' : 's'} to ${p.label}`;
    try {
      if (a.input) {
        for (const spec of Array.isArray(a.input) ? a.input : [a.input]) {
          const input = locatorOf(page, spec);
          if ((await input.count()) > 0) {
            await input.first().setInputFiles(files, { timeout: ACTION_TIMEOUT_MS });
            return;
          }
        }
        if (!a.open) throw webAiErrors.sendFailed(p.label, `no file input for attaching (tried ${describeFinder(a.input).join(', ')})`);
      }
      const steps = a.open!;
      for (const [i, spec] of steps.entries()) {
        const hit = await firstVisible(page, spec, `profiles.${p.id}.attach.open`);
        if (!hit) throw webAiErrors.sendFailed(p.label, `could not attach: ${describeSpec(spec)} was not found`);
        if (i < steps.length - 1) {
          await hit.locator.click({ timeout: ACTION_TIMEOUT_MS });
          continue;
        }
        const [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: ACTION_TIMEOUT_MS }), hit.locator.click({ timeout: ACTION_TIMEOUT_MS })]);
        await chooser.setFiles(files);
      }
    } catch (err) {
      throw fromPlaywright(err, { what, timeoutMs: ACTION_TIMEOUT_MS });
    }
  }

  private async submit(page: Page, p: ResolvedProfile, composer: Locator): Promise<void> {
    const send = p.send ? await firstVisible(page, p.send, `profiles.${p.id}.send`) : null;
    try {
      // click waits for the button to be enabled: sites disable it while an attachment uploads
      if (send) await send.locator.click({ timeout: p.sendTimeoutMs });
      else await composer.press('Enter', { timeout: ACTION_TIMEOUT_MS });
    } catch (err) {
      throw fromPlaywright(err, { what: `sending to ${p.label} (${send ? describeSpec(send.spec) : 'Enter'})`, timeoutMs: p.sendTimeoutMs });
    }
  }

  /** Sent shows as: the composer empties, the stop button appears, or a new assistant message appears. */
  private async waitSent(page: Page, p: ResolvedProfile, composer: Locator, baseline: number): Promise<void> {
    const deadline = Date.now() + p.sendTimeoutMs;
    for (;;) {
      const cleared = (await composerText(composer)).trim() === '';
      if (cleared || (await isVisible(page, p.stop, `profiles.${p.id}.stop`)) || (await readAnswers(page, p)).length > baseline) return;
      if (Date.now() >= deadline) break;
      await sleep(this.intervalMs);
    }
    // A login prompt or a captcha that appeared on sending says more than "nothing happened".
    const d = await lookAt(page, p);
    this.refuseUnlessReady(p, page, { ...d, state: d.state === 'unknown_layout' ? 'ready' : d.state });
    throw webAiErrors.sendFailed(p.label, `nothing changed within ${p.sendTimeoutMs} ms of sending (the composer kept its text, no stop button, no new message)`);
  }

  // ---- reading answers -----------------------------------------------------------------------------

  private remember(s: Session): void {
    this.sessionsById.set(s.id, s);
    const max = this.opts.maxSessions ?? 100;
    for (const id of this.sessionsById.keys()) {
      if (this.sessionsById.size <= max) break;
      this.sessionsById.delete(id);
    }
  }

  private session(id: string): Session {
    const s = this.sessionsById.get(id);
    if (!s) throw webAiErrors.sessionNotFound(id);
    return s;
  }

  private latest(pred: (s: Session) => boolean = () => true): Session | undefined {
    return [...this.sessionsById.values()].reverse().find(pred);
  }

  /** Look at a streaming session's page once and advance its progress. */
  private async observe(s: Session): Promise<void> {
    if (s.state !== 'streaming') return;
    const page = s.tab.page;
    if (page.isClosed() || !belongsTo(page.url(), s.profile)) throw webAiErrors.sessionLost(s.id);
    const [texts, stopVisible] = await onPage(`reading ${s.profile.label}'s answer`, async () => [
      await readAnswers(page, s.profile),
      await isVisible(page, s.profile.stop, `profiles.${s.profile.id}.stop`),
    ] as const);
    const now = Date.now();
    const next = advance(s, s.baseline, { count: texts.length, texts: texts.slice(s.baseline), stopVisible }, now, s.profile.stableMs);
    if (next.text !== s.text) s.updatedAt = now;
    Object.assign(s, next);
    if (next.complete) s.state = 'complete';
  }

  private answerOf(s: Session): Answer {
    return {
      sessionId: s.id,
      vendor: s.profile.id,
      tab: s.tab.id,
      state: s.state,
      complete: s.state === 'complete',
      text: s.text,
      chars: s.text.length,
      elapsedMs: Date.now() - s.startedAt,
    };
  }

  /** Wait up to timeoutMs for the answer to complete; the answer as it is then. */
  private async waitFor(s: Session, timeoutMs: number): Promise<Answer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.observe(s);
      const left = deadline - Date.now();
      if (s.state !== 'streaming' || left <= 0) return this.answerOf(s);
      await sleep(Math.min(this.intervalMs, left));
    }
  }

  poll(q: PollQuery): Promise<Answer> {
    return this.waitFor(this.session(q.sessionId), q.timeout ?? 0);
  }

  async query(body: QueryBody): Promise<Answer> {
    const { timeout, ...send } = body;
    const sent = await this.send(send);
    const ms = timeout ?? DEFAULT_ANSWER_TIMEOUT_MS;
    const answer = await this.waitFor(this.session(sent.sessionId), ms);
    if (!answer.complete) throw webAiErrors.timeout(this.session(sent.sessionId).profile.label, ms, answer.sessionId, answer.chars);
    return answer;
  }

  async code(body: CodeBody): Promise<CodeResult> {
    const { saveTo, overwrite: _overwrite, ...query } = body;
    if (saveTo) throw webAiErrors.saveOnCore();
    const answer = await this.query(query);
    const { blocks } = await this.extract({ sessionId: answer.sessionId });
    return { ...answer, blocks };
  }

  async extract(body: ExtractBody): Promise<ExtractResult> {
    if (body.saveTo) throw webAiErrors.saveOnCore();
    let page: Page;
    let p: ResolvedProfile;
    let tab: Tab;
    let from = -1;
    let to: number | undefined;
    const s = body.sessionId ? this.session(body.sessionId) : !body.tab && !body.vendor ? this.latest() : undefined;
    if (s) {
      await this.observe(s);
      ({ tab, profile: p } = s);
      page = tab.page;
      if (page.isClosed()) throw webAiErrors.sessionLost(s.id);
      from = s.baseline;
      to = s.end;
    } else if (body.tab) {
      tab = await this.browser.anyTab(body.tab);
      page = tab.page;
      p = body.vendor ? this.profile(body.vendor) : this.profileFor(page.url());
    } else if (body.vendor) {
      p = this.profile(body.vendor);
      tab = await this.vendorTab(p, { open: false });
      page = tab.page;
    } else {
      tab = await this.browser.tab();
      page = tab.page;
      p = this.profileFor(page.url());
    }
    const raw = await onPage(`reading ${p.label}'s code blocks`, async () => {
      const count = (await readAnswers(page, p)).length;
      if (count === 0 || (s && count <= s.baseline)) throw webAiErrors.noAnswer(p.label, describeFinder(p.answer));
      return readBlocks(page, p, from, to);
    });
    return { vendor: p.id, tab: tab.id, ...(s ? { sessionId: s.id } : {}), blocks: raw.map(toBlock) };
  }

  /** The profile whose site a page is on, else the generic one. */
  private profileFor(url: string): ResolvedProfile {
    const all = this.loadProfiles();
    return [...all.values()].find((p) => p.id !== 'generic' && belongsTo(url, p)) ?? all.get('generic')!;
  }

  async stop(body: StopBody): Promise<StopResult> {
    const s = body.sessionId ? this.session(body.sessionId) : this.latest((x) => x.state === 'streaming' && (!body.vendor || x.profile.id === body.vendor));
    if (!s && !body.vendor) throw new AppError(404, 'WEB_AI_SESSION_NOT_FOUND', 'No web-ai answer is being written. Name the vendor or the session to stop.');
    const p = s?.profile ?? this.profile(body.vendor!);
    const tab = s?.tab ?? (await this.vendorTab(p, { open: false }));
    const page = tab.page;
    if (page.isClosed()) throw webAiErrors.sessionLost(s!.id);
    const stop = await onPage(`stopping ${p.label}'s answer`, async () => {
      const hit = p.stop ? await firstVisible(page, p.stop, `profiles.${p.id}.stop`) : null;
      await hit?.locator.click({ timeout: ACTION_TIMEOUT_MS });
      await hit?.locator.waitFor({ state: 'hidden', timeout: ACTION_TIMEOUT_MS });
      return hit;
    }, ACTION_TIMEOUT_MS);
    if (s?.state === 'streaming') {
      await this.observe(s);
      // cut short, however stable its text has become since
      if (stop) Object.assign(s, { state: 'stopped', complete: false });
    }
    return { vendor: p.id, tab: tab.id, ...(s ? { sessionId: s.id } : {}), stopped: !!stop };
  }

  async status(vendor: string): Promise<Status> {
    const p = this.profile(vendor);
    return this.exclusive(p.id, () => onPage(`checking ${p.label}'s page`, async () => {
      const tab = await this.vendorTab(p, { open: true });
      const page = tab.page;
      const d = await detect(page, p, Math.min(p.readyTimeoutMs, 10_000), this.intervalMs);
      const more = await moreChecks(page, p);
      return {
        vendor: p.id,
        label: p.label,
        tab: tab.id,
        url: page.url(),
        title: await page.title(),
        state: d.state,
        writing: more.some((c) => c.check === 'stop' && c.found),
        checks: [...d.checks, ...more],
      };
    }));
  }

  async sessions(): Promise<Sessions> {
    const list: SessionInfo[] = [...this.sessionsById.values()].reverse().map((s) => ({
      sessionId: s.id,
      vendor: s.profile.id,
      tab: s.tab.id,
      state: s.state,
      prompt: oneLine(s.prompt, 120),
      chars: s.text.length,
      startedAt: s.startedAt,
      updatedAt: s.updatedAt,
    }));
    return { sessions: list };
  }
}

/** What a composer holds: a textarea's value, an editor's text. */
async function composerText(composer: Locator): Promise<string> {
  return composer
    .evaluate((el) => ('value' in el && typeof (el as HTMLTextAreaElement).value === 'string' ? (el as HTMLTextAreaElement).value : (el as HTMLElement).innerText) ?? '', undefined, { timeout: ACTION_TIMEOUT_MS })
    .catch(() => '');
}
