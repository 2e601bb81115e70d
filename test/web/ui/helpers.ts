// Shared by the browser UI tests: builds web/dist, drives the system Chromium (never a downloaded
// one) through playwright-core, and keeps screenshots in test-output/ui/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from '../../support/server.ts';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
/**
 * Debian's chromium-headless-shell when it is there: the same Blink and V8 as /usr/bin/chromium without the
 * browser's UI layers (Playwright's own choice for headless), at ~40 % less CPU per UI test file on the
 * 2-core machine (docs/testing.md). SVC_CHROMIUM names another.
 */
export const FULL_CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM = process.env.SVC_CHROMIUM ?? ['/usr/bin/chromium-headless-shell', FULL_CHROMIUM].find((p) => existsSync(p)) ?? FULL_CHROMIUM;
export const SHOTS = join(ROOT, 'test-output', 'ui');

/**
 * Builds the UI into web/dist (the real build script; atomic writes, safe in parallel). scripts/test.mjs
 * runs that same build once before it starts the files and says so in SVC_TEST_WEB_BUILT, so the files
 * it runs skip it (each build takes seconds, and some 25 files would repeat it).
 */
export function buildWeb(): void {
  if (process.env.SVC_TEST_WEB_BUILT === '1') return;
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')], { cwd: ROOT, stdio: 'pipe' });
}

/** `extraArgs`: more Chromium flags (e.g. a fake microphone); `executablePath`: FULL_CHROMIUM where the shell falls short. */
export async function launch(extraArgs: string[] = [], executablePath = CHROMIUM): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage', ...extraArgs],
  });
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions of the page (a CSP violation is one). */
  errors: string[];
}

export async function openPage(
  browser: Browser,
  server: Pick<TestServer, 'url'>,
  options: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; path?: string; beforeGoto?: (page: Page, context: BrowserContext) => Promise<void> } = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  await options.beforeGoto?.(page, context);
  await page.goto(`${server.url}${options.path ?? '/'}`);
  await page.waitForSelector('#app[data-ready]', { timeout: 15_000 });
  return { context, page, errors };
}

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * A screenshot in test-output/ui/ always, and the README's copy in docs/screenshots/ when
 * SVC_SCREENSHOTS=1 (so `npm test` does not rewrite committed files).
 */
export async function documentedShot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await shot(page, name);
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  const dir = join(ROOT, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: options.fullPage ?? false });
}

/** Errors other than expected network failures (a server restart, an aborted request). */
export const realErrors = (errors: string[]) =>
  errors.filter((e) => !/ERR_CONNECTION_REFUSED|ERR_FAILED|ERR_EMPTY_RESPONSE|net::|Failed to load resource|WebSocket connection/.test(e));

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a truthy value. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await check();
    if (last) return last;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}
