import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildDescribePrompt,
  buildLocatePrompt,
  extractJsonObjects,
  parseDescribeAnswer,
  parseLocateAnswer,
  readBox,
  readConfidence,
} from '../../../../src/modules/automation/vision-click/answer.ts';
import { AppError } from '../../../../src/core/errors.ts';

const size = { width: 1000, height: 800 };
const found = (text: string) => {
  const a = parseLocateAnswer(text, size);
  assert.equal(a.found, true, JSON.stringify(a));
  return a as Extract<typeof a, { found: true }>;
};

test('strict JSON answer', () => {
  const a = found('{"found":true,"box":{"x":100,"y":200,"width":50,"height":20},"confidence":0.9,"label":"Save"}');
  assert.deepEqual(a.box, { x: 100, y: 200, width: 50, height: 20 });
  assert.equal(a.confidence, 0.9);
  assert.equal(a.label, 'Save');
  assert.equal(a.pointOnly, undefined);
});

test('code fences, prose around it, and an earlier JSON object that is not the answer', () => {
  const text = [
    'Let me think. The schema is {"type": "object"} and the braces in "a } string" must not confuse me.',
    '```json',
    '{"found": true, "box": {"x": 10, "y": 20, "width": 30, "height": 40}, "confidence": 0.8, "label": "OK {button}"}',
    '```',
    'Hope this helps!',
  ].join('\n');
  const a = found(text);
  assert.deepEqual(a.box, { x: 10, y: 20, width: 30, height: 40 });
  assert.equal(a.label, 'OK {button}');
  // The last answer-looking object wins (models correct themselves).
  const b = found('{"found":true,"box":[1,1,5,5],"confidence":0.2} Actually no: {"found":true,"box":[100,100,150,120],"confidence":0.9}');
  assert.deepEqual(b.box, { x: 100, y: 100, width: 50, height: 20 });
});

test('box shapes: corners array, [x,y,w,h], x1/y1/x2/y2, left/top/right/bottom, w/h, bbox_2d', () => {
  assert.deepEqual(found('{"found":true,"bbox_2d":[100,200,160,230],"confidence":1}').box, { x: 100, y: 200, width: 60, height: 30 });
  assert.deepEqual(found('{"found":true,"box":[100,200,60,30],"confidence":1}').box, { x: 100, y: 200, width: 60, height: 30 });
  assert.deepEqual(found('{"found":true,"box":{"x1":10,"y1":20,"x2":30,"y2":60},"confidence":1}').box, { x: 10, y: 20, width: 20, height: 40 });
  assert.deepEqual(found('{"found":true,"bounding_box":{"left":10,"top":20,"right":30,"bottom":60},"confidence":1}').box, { x: 10, y: 20, width: 20, height: 40 });
  assert.deepEqual(found('{"found":true,"box":{"x":"10","y":"20","w":5,"h":6},"confidence":1}').box, { x: 10, y: 20, width: 5, height: 6 });
  assert.equal(readBox([1, 2, 3]), undefined);
  assert.equal(readBox({ x: 1, y: 2, width: 0, height: 5 }), undefined);
});

test('fractions of the image are scaled to pixels', () => {
  const a = found('{"found":true,"box":{"x":0.1,"y":0.5,"width":0.05,"height":0.025},"confidence":0.7}');
  assert.deepEqual(a.box, { x: 100, y: 400, width: 50, height: 20 });
});

test('a point only (also top-level x,y, the old reference format) becomes a 1x1 box flagged pointOnly', () => {
  const a = found('{"found":true,"point":{"x":321,"y":123},"confidence":0.66}');
  assert.deepEqual(a.box, { x: 321, y: 123, width: 1, height: 1 });
  assert.equal(a.pointOnly, true);
  const b = found('{"found":true,"x":50,"y":60,"description":"the OK button"}');
  assert.deepEqual(b.box, { x: 50, y: 60, width: 1, height: 1 });
  assert.equal(b.confidence, null, 'no confidence given');
  assert.equal(b.label, 'the OK button');
});

test('confidence forms: 0..1, percent, strings, words; junk is null', () => {
  assert.equal(readConfidence(0.42), 0.42);
  assert.equal(readConfidence(87), 0.87);
  assert.equal(readConfidence('0.3'), 0.3);
  assert.equal(readConfidence('95%'), 0.95);
  assert.equal(readConfidence('high'), 0.9);
  assert.equal(readConfidence('low'), 0.3);
  assert.equal(readConfidence(-1), null);
  assert.equal(readConfidence(250), null);
  assert.equal(readConfidence('sure'), null);
  assert.equal(readConfidence(undefined), null);
});

test('not found, with what the model saw', () => {
  const a = parseLocateAnswer('{"found":false,"confidence":0.95,"label":"a login form with email and password"}', size);
  assert.equal(a.found, false);
  assert.equal(a.label, 'a login form with email and password');
  assert.equal(a.confidence, 0.95);
  assert.equal(parseLocateAnswer('{"found":"false"}', size).found, false);
});

test('a box outside the image is not found (never clamped into a click elsewhere); a box overlapping the edge is clamped', () => {
  const a = parseLocateAnswer('{"found":true,"box":{"x":1500,"y":10,"width":40,"height":20},"confidence":0.99}', size);
  assert.equal(a.found, false);
  assert.match(a.found ? '' : (a.reason ?? ''), /outside the 1000x800 image/);
  const b = found('{"found":true,"box":{"x":970,"y":785,"width":40,"height":20},"confidence":0.99}');
  assert.deepEqual(b.box, { x: 970, y: 785, width: 30, height: 15 });
  assert.equal(parseLocateAnswer('{"found":true,"box":{"x":980,"y":790,"width":40,"height":20},"confidence":0.99}', size).found, false, 'center on the far edge');
  const c = parseLocateAnswer('{"found":true,"label":"x","confidence":1}', size);
  assert.equal(c.found, false, 'found without a box is not found');
});

test('no JSON answer at all is 502 VISION_BAD_ANSWER quoting the model', () => {
  for (const text of ['The button is at the top right.', '{"type":"object"}', '', '{"found": tru']) {
    assert.throws(
      () => parseLocateAnswer(text, size),
      (e: unknown) => e instanceof AppError && e.code === 'VISION_BAD_ANSWER' && e.status === 502,
      text,
    );
  }
});

test('extractJsonObjects: balanced braces, strings with braces and escapes, skips invalid', () => {
  assert.deepEqual(extractJsonObjects('a {"x":"}\\"{"} b {bad} {"y":{"z":1}}'), [{ x: '}"{' }, { y: { z: 1 } }]);
  assert.deepEqual(extractJsonObjects('no json'), []);
});

test('describe answers: plain text, fenced text, or a JSON description', () => {
  assert.equal(parseDescribeAnswer('  A login page.  '), 'A login page.');
  assert.equal(parseDescribeAnswer('```\nA login page.\n```'), 'A login page.');
  assert.equal(parseDescribeAnswer('{"description":"A settings dialog."}'), 'A settings dialog.');
  assert.throws(() => parseDescribeAnswer('   '), (e: unknown) => e instanceof AppError && e.code === 'VISION_BAD_ANSWER');
});

test('prompts state the image size, the target and the strict JSON shape', () => {
  const p = buildLocatePrompt('the "Save" button', { width: 1280, height: 720 });
  assert.match(p, /1280x720 pixels/);
  assert.match(p, /"the \\"Save\\" button"/);
  assert.match(p, /"found":true,"box":\{"x":<left>,"y":<top>,"width":<width>,"height":<height>\},"confidence":<0\.\.1>,"label"/);
  assert.match(p, /Do not run tools/);
  assert.match(buildDescribePrompt({ width: 10, height: 20 }, 'the toolbar'), /10x20 screenshot[\s\S]*Focus on: the toolbar/);
});
