// The desktop target: X11 on Linux. Capture with ImageMagick (`import -window root png:-`), act with
// xdotool (`mousemove X Y click [--repeat 2] 1|3`). X11 root captures are in screen pixels, so the
// mapping scale is 1.
//
// Elsewhere (not implemented; a clear UNSUPPORTED_PLATFORM error says what would be needed):
// - macOS: capture `screencapture -x -t png <file>` (Screen Recording permission), input via `cliclick`
//   or a Quartz CGEvent helper (Accessibility permission); Retina captures are in device pixels, so the
//   scale is the backing scale factor (2) while events take points.
// - Windows: capture with PowerShell + System.Drawing (Graphics.CopyFromScreen), input via user32
//   SetCursorPos + SendInput; the process must be per-monitor DPI aware or coordinates get scaled.
// - Wayland without XWayland: no general capture/input API for clients (portals ask the user each time).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../core/errors.ts';
import { intersect, regionToPixels } from '../geometry.ts';
import { crop, decodePng, encodePng, pngSize } from '../image.ts';
import type { Box, Capture, Point, PointerAction, VisionTarget } from '../types.ts';

/** The X display to use, or the error that says why the desktop cannot be used here. */
export function desktopDisplay(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, configured = ''): string {
  if (platform === 'darwin') {
    throw new AppError(
      501,
      'UNSUPPORTED_PLATFORM',
      'The desktop target works on Linux/X11 only. On macOS it would need screencapture (Screen Recording permission) and cliclick or a Quartz event helper (Accessibility permission); use --target browser meanwhile.',
      { platform },
    );
  }
  if (platform === 'win32') {
    throw new AppError(
      501,
      'UNSUPPORTED_PLATFORM',
      'The desktop target works on Linux/X11 only. On Windows it would need a GDI screen capture and SendInput (with per-monitor DPI awareness); use --target browser meanwhile.',
      { platform },
    );
  }
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') {
    throw new AppError(501, 'UNSUPPORTED_PLATFORM', `The desktop target is not supported on ${platform}; it needs X11.`, { platform });
  }
  const display = configured.trim() || env.DISPLAY?.trim() || '';
  if (!display) {
    const wayland = env.WAYLAND_DISPLAY ? ' This is a Wayland session: the desktop target needs XWayland (set DISPLAY, usually :0) and works on X11 windows only.' : '';
    throw new AppError(503, 'NO_DISPLAY', `No X display: DISPLAY is not set for the server and vision.display is empty.${wayland} Set vision.display (e.g. ":0"), or run under a desktop session or xvfb-run.`);
  }
  return display;
}

export function captureInvocation(display: string): { command: string; args: string[] } {
  return { command: 'import', args: ['-display', display, '-window', 'root', 'png:-'] };
}

/**
 * xdotool arguments for an action at a screen point (whole pixels). No `--sync`: the move and the click
 * go out in order on one connection anyway, and `mousemove --sync` to where the pointer already is
 * waits 15 s for a motion that never comes when a window is under it.
 */
export function xdotoolArgs(action: PointerAction, point: Point): string[] {
  const move = ['mousemove', String(Math.round(point.x)), String(Math.round(point.y))];
  switch (action) {
    case 'hover':
      return move;
    case 'click':
      return [...move, 'click', '1'];
    case 'right':
      return [...move, 'click', '3'];
    case 'double':
      return [...move, 'click', '--repeat', '2', '--delay', '80', '1'];
  }
}

const TOOL_PACKAGE: Record<string, string> = { import: 'imagemagick', xdotool: 'xdotool' };

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 16_384) stderr += d;
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') {
        reject(new AppError(503, 'DESKTOP_TOOL_MISSING', `The desktop target needs \`${command}\`, which is not installed (Debian/Ubuntu: apt-get install ${TOOL_PACKAGE[command] ?? command}).`));
      } else reject(new AppError(503, 'DESKTOP_FAILED', `Could not run ${command}: ${err.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr });
    });
  });
}

export interface DesktopOptions {
  mediaDir: string;
  /** Configured display ('' = $DISPLAY). */
  display?: () => string;
  keepScreenshots?: () => boolean;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export class DesktopTarget implements VisionTarget {
  readonly kind = 'desktop' as const;
  constructor(private readonly opts: DesktopOptions) {}

  private display(): { display: string; env: NodeJS.ProcessEnv } {
    const env = this.opts.env ?? process.env;
    const display = desktopDisplay(this.opts.platform ?? process.platform, env, this.opts.display?.() ?? '');
    return { display, env: { ...env, DISPLAY: display } };
  }

  async capture(opts: { region?: Box }): Promise<Capture> {
    const { display, env } = this.display();
    const inv = captureInvocation(display);
    const r = await run(inv.command, inv.args, env, this.opts.timeoutMs ?? 20_000);
    if (r.code !== 0 || r.stdout.length < 24) {
      throw new AppError(503, 'DESKTOP_CAPTURE_FAILED', `Capturing display ${display} failed: ${r.stderr.trim().split('\n')[0] || `exit code ${r.code}`}.`);
    }
    // import writes the smallest PNG it can (often 1-bit greyscale); re-encode as RGBA for the locators.
    const raster = decodePng(r.stdout);
    const size = pngSize(r.stdout);
    const screen: Box = { x: 0, y: 0, width: size.width, height: size.height };
    let screenshot: string | undefined;
    const full = encodePng(raster);
    if (this.opts.keepScreenshots?.() ?? true) {
      await mkdir(this.opts.mediaDir, { recursive: true });
      screenshot = `vision-desktop-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.png`;
      await writeFile(join(this.opts.mediaDir, screenshot), full);
    }
    const info = { display, screen: { width: size.width, height: size.height } };
    const base = { scale: 1, scroll: { x: 0, y: 0 }, info, ...(screenshot ? { screenshot } : {}) };
    if (!opts.region) return { png: full, width: size.width, height: size.height, origin: { x: 0, y: 0 }, bounds: screen, ...base };
    const bounds = intersect(opts.region, screen);
    const rect = bounds && regionToPixels(bounds, 1, size);
    if (!bounds || !rect) throw new AppError(400, 'INVALID_REGION', `The region lies outside the screen (${size.width}x${size.height} px).`, { screen: info.screen });
    return { png: encodePng(crop(raster, rect)), width: rect.width, height: rect.height, origin: { x: rect.x, y: rect.y }, bounds, ...base };
  }

  async perform(action: PointerAction, point: Point): Promise<void> {
    const { env, display } = this.display();
    const r = await run('xdotool', xdotoolArgs(action, point), env, this.opts.timeoutMs ?? 20_000);
    if (r.code !== 0) throw new AppError(503, 'DESKTOP_INPUT_FAILED', `xdotool on display ${display} failed: ${r.stderr.trim().split('\n')[0] || `exit code ${r.code}`}.`);
  }
}
