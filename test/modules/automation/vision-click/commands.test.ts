import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moduleServer } from '../../../support/kit.ts';
import { AppError } from '../../../../src/core/errors.ts';
import { requestFromBody, visionClickRoutes, VisionClickBody } from '../../../../src/modules/automation/vision-click/vision-click.routes.ts';
import {
  parseVisionClickCommand,
  renderVisionResult,
  runVisionClickCommand,
  visionClickCommand,
  VISION_CLICK_HELP,
} from '../../../../src/modules/automation/vision-click/commands.ts';
import type { VisionRequest, VisionResult } from '../../../../src/modules/automation/vision-click/types.ts';

const req = (text: string): VisionRequest => {
  const p = parseVisionClickCommand(text);
  assert.equal(p.help, false, text);
  return (p as { request: VisionRequest }).request;
};

function bad(text: string, pattern: RegExp): void {
  assert.throws(
    () => parseVisionClickCommand(text),
    (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'INVALID_COMMAND_ARGS' && pattern.test(e.message) && /Usage: \/vision-click/.test(e.message),
    text,
  );
}

test('click is the default action; the description is the quoted argument or the words', () => {
  assert.deepEqual(req('/vision-click "Sign in"'), { action: 'click', description: 'Sign in' });
  assert.deepEqual(req('vision-click "Sign in"'), { action: 'click', description: 'Sign in' });
  assert.deepEqual(req('"Sign in"'), { action: 'click', description: 'Sign in' });
  assert.deepEqual(req('the blue Launch button'), { action: 'click', description: 'the blue Launch button' });
  // Quotes inside a longer description stay (exact text for OCR).
  assert.deepEqual(req('the "Save" button'), { action: 'click', description: 'the "Save" button' });
  assert.deepEqual(req(`'the "Save" button'`), { action: 'click', description: 'the "Save" button' });
  // After --, words that look like flags are part of the description.
  assert.deepEqual(req('-- --double'), { action: 'click', description: '--double' });
  assert.deepEqual(req('"--right"'), { action: 'click', description: '--right' });
});

test('every flag', () => {
  assert.equal(req('--double "OK"').action, 'double');
  assert.equal(req('--right "OK"').action, 'right');
  assert.equal(req('"OK" --hover').action, 'hover');
  assert.deepEqual(req('--describe'), { action: 'describe' });
  assert.deepEqual(req('--describe "the toolbar"'), { action: 'describe', description: 'the toolbar' });
  assert.equal(req('--target desktop "OK"').target, 'desktop');
  assert.equal(req('--target=browser "OK"').target, 'browser');
  assert.equal(req('--desktop "OK"').target, 'desktop');
  assert.equal(req('--browser "OK"').target, 'browser');
  assert.deepEqual(req('--region 10,20,300,200 "OK"').region, { x: 10, y: 20, width: 300, height: 200 });
  assert.deepEqual(req('--region "10, 20, 300, 200" "OK"').region, { x: 10, y: 20, width: 300, height: 200 });
  assert.equal(req('--locator openai "OK"').locator, 'openai');
  assert.equal(req('--locator=cli "OK"').locator, 'cli');
  assert.equal(req('--locator ocr "OK"').locator, 'ocr');
  assert.equal(req('--min-confidence 0.8 "OK"').minConfidence, 0.8);
  assert.equal(req('--min-confidence=1 "OK"').minConfidence, 1);
  assert.equal(req('--min-confidence 0 "OK"').minConfidence, 0);
  assert.equal(req('--tab t3 "OK"').tab, 't3');
  assert.equal(req('--dry-run "OK"').dryRun, true);
  assert.deepEqual(req('--right --desktop --region 0,0,100,100 --locator cli --min-confidence .7 --dry-run "File menu"'), {
    action: 'right',
    description: 'File menu',
    target: 'desktop',
    region: { x: 0, y: 0, width: 100, height: 100 },
    locator: 'cli',
    minConfidence: 0.7,
    dryRun: true,
  });
});

test('help: --help, or a lone unquoted help (svc vision-click help); a quoted "help" is a target', () => {
  assert.deepEqual(parseVisionClickCommand('--help'), { help: true });
  assert.deepEqual(parseVisionClickCommand('/vision-click help'), { help: true });
  assert.deepEqual(req('"help"'), { action: 'click', description: 'help' });
  assert.match(VISION_CLICK_HELP, /--min-confidence/);
});

test('bad input is a clear 400 with the usage', () => {
  bad('', /say what to find/);
  bad('--double', /say what to find/);
  bad('--bogus "OK"', /unknown option --bogus/);
  bad('--double --right "OK"', /--double and --right cannot be combined/);
  bad('--hover --describe', /cannot be combined/);
  bad('--target mars "OK"', /--target must be browser or desktop, not 'mars'/);
  bad('--browser --desktop "OK"', /choose one target/);
  bad('--target browser --desktop "OK"', /choose one target/);
  bad('--locator gpt "OK"', /--locator must be one of ocr, openai, cli/);
  bad('--region 1,2,3 "OK"', /region must be four/);
  bad('--region 0,0,0,5 "OK"', /width and height/);
  bad('--region', /--region needs a value/);
  bad('--min-confidence 1.5 "OK"', /from 0 to 1/);
  bad('--min-confidence high "OK"', /from 0 to 1/);
  bad('--tab 3 "OK"', /tab id like t1/);
  bad('--desktop --tab t1 "OK"', /browser target only/);
  bad('--describe --dry-run', /--dry-run applies to actions/);
  bad('--double=yes "OK"', /takes no value/);
  bad('"unterminated', /unterminated double quote/);
  bad(`"${'x'.repeat(2001)}"`, /longer than 2000/);
});

const result = (over: Partial<VisionResult> = {}): VisionResult => ({
  action: 'click',
  target: 'browser',
  locator: 'ocr',
  found: true,
  acted: true,
  point: { x: 395, y: 284 },
  box: { x: 320, y: 260, width: 150, height: 48 },
  confidence: 0.98,
  label: 'Launch',
  screenshot: 'browser-1.png',
  mapping: { scale: 1, origin: { x: 0, y: 0 }, scroll: { x: 0, y: 0 }, image: { width: 1280, height: 657 } },
  ms: 10,
  ...over,
});

test('results render for people', () => {
  assert.equal(renderVisionResult(result()), 'Clicked "Launch" at (395, 284) on the page (viewport CSS px), confidence 0.98 via ocr.\nScreenshot: /media/browser-1.png');
  assert.match(renderVisionResult(result({ action: 'right', target: 'desktop', screenshot: undefined })), /^Right-clicked "Launch" at \(395, 284\) on the screen, confidence 0\.98 via ocr\.$/);
  assert.match(renderVisionResult(result({ action: 'hover' })), /^Moved the pointer to "Launch"/);
  assert.match(renderVisionResult(result({ acted: false })), /^Found "Launch" .* not acted on \(--dry-run\)/);
  assert.match(renderVisionResult(result({ action: 'describe', description: 'A page.', acted: false })), /^A page\.\n\(browser, ocr\)/);
});

test('runVisionClickCommand and the SlashCommand hand the parsed request to the service', async () => {
  const seen: VisionRequest[] = [];
  const service = { run: async (r: VisionRequest) => (seen.push(r), result({ action: r.action })) };
  const out = await runVisionClickCommand('--double "Launch"', { service });
  assert.deepEqual(seen, [{ action: 'double', description: 'Launch' }]);
  assert.match(out.text, /^Double-clicked "Launch"/);
  assert.equal(out.data?.action, 'double');
  const cmd = visionClickCommand({ service });
  assert.equal(cmd.name, 'vision-click');
  assert.match(cmd.usage, /^\/vision-click /);
  assert.match(String(await cmd.run('help', {} as never)), /Usage:/);
  assert.equal(seen.length, 1, 'help runs nothing');
});

test('HTTP body → request: fields mirror the flags; contradictions are 400', () => {
  const body = (b: unknown) => requestFromBody(VisionClickBody.parse(b));
  assert.deepEqual(body({ description: 'OK' }), { action: 'click', description: 'OK' });
  assert.deepEqual(body({ description: 'OK', right: true, region: '1,2,3,4', target: 'desktop', locator: 'cli', minConfidence: 0.9, dryRun: true }), {
    action: 'right',
    description: 'OK',
    target: 'desktop',
    region: { x: 1, y: 2, width: 3, height: 4 },
    locator: 'cli',
    minConfidence: 0.9,
    dryRun: true,
  });
  assert.deepEqual(body({ action: 'hover', description: 'OK', region: { x: 1, y: 2, width: 3, height: 4 } }).region, { x: 1, y: 2, width: 3, height: 4 });
  assert.deepEqual(body({ describe: true }), { action: 'describe' });
  assert.deepEqual(body({ command: '/vision-click --hover "OK"' }), { action: 'hover', description: 'OK' });
  const is400 = (b: unknown, code: string) =>
    assert.throws(() => body(b), (e: unknown) => e instanceof AppError && e.status === 400 && e.code === code, JSON.stringify(b));
  is400({ description: 'OK', double: true, hover: true }, 'INVALID_REQUEST');
  is400({ description: 'OK', action: 'click', right: true }, 'INVALID_REQUEST');
  is400({ command: '/vision-click "OK"', description: 'OK' }, 'INVALID_REQUEST');
  is400({ command: '--nope' }, 'INVALID_COMMAND_ARGS');
  is400({ description: 'OK', region: 'left half' }, 'INVALID_REGION');
  is400({}, 'VALIDATION_FAILED');
});

test('POST /api/vision-click: schema errors are 400 naming the field; service errors keep their status', async () => {
  const calls: VisionRequest[] = [];
  const app = await moduleServer((a) =>
    a.register(visionClickRoutes, {
      service: {
        run: async (r: VisionRequest) => {
          calls.push(r);
          if (r.description === 'missing') throw new AppError(404, 'TARGET_NOT_FOUND', 'not found', { seen: 'Launch', found: false });
          return result();
        },
      },
    }),
  );
  try {
    const ok = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { description: 'Launch' } });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(Object.keys(ok.json()).slice(0, 6), ['action', 'target', 'locator', 'found', 'acted', 'point']);
    const nf = await app.inject({ method: 'POST', url: '/api/vision-click', payload: { description: 'missing' } });
    assert.equal(nf.statusCode, 404);
    assert.deepEqual(nf.json(), { error: 'TARGET_NOT_FOUND', message: 'not found', seen: 'Launch', found: false });
    for (const [payload, field] of [
      [{ description: 'x', target: 'mars' }, 'target'],
      [{ description: 'x', minConfidence: 'high' }, 'minConfidence'],
      [{ description: 'x', extra: 1 }, 'extra'],
      [{ description: 'x', tab: 'first' }, 'tab'],
      [{ description: 'x', region: { x: 1, y: 1, width: 0, height: 1 } }, 'region'],
    ] as const) {
      const r = await app.inject({ method: 'POST', url: '/api/vision-click', payload });
      assert.equal(r.statusCode, 400, JSON.stringify(payload));
      assert.equal(r.json().error, 'VALIDATION_FAILED');
      assert.match(r.json().field, new RegExp(`^${field}`));
    }
    const text = await app.inject({ method: 'POST', url: '/api/vision-click', payload: 'description=x', headers: { 'content-type': 'text/plain' } });
    assert.ok(text.statusCode >= 400 && text.statusCode < 500);
    assert.equal(calls.length, 2, 'bad requests never reach the service');
  } finally {
    await app.close();
  }
});

test('a flag named like an inherited property is an unknown flag, not an action', () => {
  bad('/vision-click --constructor "Submit"', /constructor/);
  bad('/vision-click --tostring "Submit"', /tostring/);
});
