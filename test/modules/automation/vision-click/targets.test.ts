import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import type { Action, ActionResult } from '../../../../src/modules/automation/browser/types.ts';
import { ActionSchema } from '../../../../src/modules/automation/browser/types.ts';
import { AppError } from '../../../../src/core/errors.ts';
import { encodePng } from '../../../../src/modules/automation/vision-click/image.ts';
import { BrowserTarget, browserScale, mouseAction } from '../../../../src/modules/automation/vision-click/targets/browser.ts';
import { captureInvocation, desktopDisplay, xdotoolArgs } from '../../../../src/modules/automation/vision-click/targets/desktop.ts';

test('desktopDisplay: configured display, else $DISPLAY; clear errors elsewhere', () => {
  assert.equal(desktopDisplay('linux', { DISPLAY: ':0' }), ':0');
  assert.equal(desktopDisplay('linux', { DISPLAY: ':0' }, ':7'), ':7');
  const err = (fn: () => unknown, status: number, code: string) =>
    assert.throws(fn, (e: unknown) => e instanceof AppError && e.status === status && e.code === code);
  err(() => desktopDisplay('linux', {}), 503, 'NO_DISPLAY');
  err(() => desktopDisplay('linux', { DISPLAY: '  ' }), 503, 'NO_DISPLAY');
  err(() => desktopDisplay('darwin', { DISPLAY: ':0' }), 501, 'UNSUPPORTED_PLATFORM');
  err(() => desktopDisplay('win32', {}), 501, 'UNSUPPORTED_PLATFORM');
  err(() => desktopDisplay('aix', { DISPLAY: ':0' }), 501, 'UNSUPPORTED_PLATFORM');
});

test('xdotool and import invocations', () => {
  assert.deepEqual(xdotoolArgs('click', { x: 10.4, y: 20.6 }), ['mousemove', '10', '21', 'click', '1']);
  assert.deepEqual(xdotoolArgs('right', { x: 1, y: 2 }), ['mousemove', '1', '2', 'click', '3']);
  assert.deepEqual(xdotoolArgs('double', { x: 1, y: 2 }), ['mousemove', '1', '2', 'click', '--repeat', '2', '--delay', '80', '1']);
  assert.deepEqual(xdotoolArgs('hover', { x: 1, y: 2 }), ['mousemove', '1', '2']);
  assert.deepEqual(captureInvocation(':5'), { command: 'import', args: ['-display', ':5', '-window', 'root', 'png:-'] });
});

test('browser mouse actions are valid browser-server actions', () => {
  const p = { x: 10.5, y: 20 };
  assert.deepEqual(mouseAction('click', p), { action: 'mouse', x: 10.5, y: 20, button: 'left' });
  assert.deepEqual(mouseAction('double', p, 't2'), { action: 'mouse', x: 10.5, y: 20, tab: 't2', button: 'left', clickCount: 2 });
  assert.deepEqual(mouseAction('right', p), { action: 'mouse', x: 10.5, y: 20, button: 'right' });
  assert.deepEqual(mouseAction('hover', p), { action: 'mouse', x: 10.5, y: 20, move: true });
  for (const a of ['click', 'double', 'right', 'hover'] as const) assert.ok(ActionSchema.safeParse(mouseAction(a, p)).success, a);
  assert.ok(!ActionSchema.safeParse({ action: 'mouse', x: 1, y: 1, move: true, button: 'left' }).success);
  assert.ok(!ActionSchema.safeParse({ action: 'mouse', x: -1, y: 1 }).success);
  assert.ok(!ActionSchema.safeParse({ action: 'mouse', x: 1, y: 1, clickCount: 4 }).success);
});

test('browserScale: the DPR, unless the image width says otherwise', () => {
  assert.equal(browserScale(2, 2560, 1280), 2);
  assert.equal(browserScale(1, 1280, 1280), 1);
  assert.equal(browserScale(1, 1600, 1280), 1.25, 'zoomed page');
  assert.equal(browserScale(0, 1280, 1280), 1);
});

test('BrowserTarget: reads the metrics and the media file, crops a region at DPR 2, can drop the file', async () => {
  const media = mkdtempSync(join(tmpdir(), 'svc-vision-media-'));
  try {
    const W = 200;
    const H = 100;
    const data = Buffer.alloc(W * 2 * H * 2 * 4, 255);
    data.set([1, 2, 3, 255], ((20 * 2) * W * 2 + 30 * 2) * 4); // device pixel of CSS (30,20)
    writeFileSync(join(media, 'browser-x.png'), encodePng({ width: W * 2, height: H * 2, data }));
    const acts: Action[] = [];
    let filename = 'browser-x.png';
    const client = {
      async act(a: Action): Promise<ActionResult> {
        acts.push(a);
        if (a.action === 'eval') return { tab: 't1', result: { dpr: 2, width: W, height: H, scrollX: 0, scrollY: 40 } };
        if (a.action === 'screenshot') return { tab: 't1', filename, url: `/media/${filename}`, bytes: 1, fullPage: false };
        return { tab: 't1', x: 0, y: 0, button: 'left', clickCount: 1, url: '' } as ActionResult;
      },
    };
    let keep = true;
    const t = new BrowserTarget(client, media, () => keep);
    const whole = await t.capture({});
    assert.deepEqual([whole.width, whole.height, whole.scale], [400, 200, 2]);
    assert.deepEqual(whole.scroll, { x: 0, y: 0 }, 'viewport capture: no scroll correction');
    assert.deepEqual(whole.bounds, { x: 0, y: 0, width: W, height: H });
    assert.equal(whole.screenshot, 'browser-x.png');
    assert.equal(whole.tab, 't1');
    const r = await t.capture({ region: { x: 30, y: 20, width: 500, height: 30 }, tab: 't1' });
    assert.deepEqual([r.width, r.height], [340, 60], 'cut to the viewport, in device pixels');
    assert.deepEqual(r.origin, { x: 30, y: 20 });
    assert.deepEqual(r.bounds, { x: 30, y: 20, width: 170, height: 30 });
    const img = PNG.sync.read(r.png);
    assert.deepEqual([...img.data.subarray(0, 4)], [1, 2, 3, 255], "the region's (0,0) is the region's top-left");
    assert.deepEqual(acts.filter((a) => a.action !== 'eval').map((a) => (a as { tab?: string }).tab), [undefined, 't1']);
    await assert.rejects(t.capture({ region: { x: 300, y: 0, width: 10, height: 10 } }), (e: unknown) => e instanceof AppError && e.code === 'INVALID_REGION');
    keep = false;
    const gone = await t.capture({});
    assert.equal(gone.screenshot, undefined);
    assert.ok(!existsSync(join(media, 'browser-x.png')), 'deleted when screenshots are not kept');
    filename = '../etc/passwd.png';
    await assert.rejects(t.capture({}), (e: unknown) => e instanceof AppError && e.code === 'BAD_SCREENSHOT');
    await t.perform('right', { x: 5, y: 6 }, { tab: 't1' });
    assert.deepEqual(acts.at(-1), { action: 'mouse', x: 5, y: 6, tab: 't1', button: 'right' });
  } finally {
    rmSync(media, { recursive: true, force: true });
  }
});
