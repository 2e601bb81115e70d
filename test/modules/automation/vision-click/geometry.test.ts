import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boxToTarget,
  clampBox,
  clickPoint,
  contains,
  imageToTarget,
  intersect,
  parseRegion,
  regionToPixels,
  targetToImage,
  type Mapping,
} from '../../../../src/modules/automation/vision-click/geometry.ts';

test('DPR: device pixels are divided by the ratio', () => {
  assert.deepEqual(imageToTarget({ x: 400, y: 200 }, { scale: 2, origin: { x: 0, y: 0 } }), { x: 200, y: 100 });
  assert.deepEqual(imageToTarget({ x: 301, y: 99 }, { scale: 2, origin: { x: 0, y: 0 } }), { x: 150.5, y: 49.5 });
  assert.deepEqual(imageToTarget({ x: 150, y: 75 }, { scale: 1.5, origin: { x: 0, y: 0 } }), { x: 100, y: 50 });
  assert.deepEqual(imageToTarget({ x: 640, y: 360 }, { scale: 1, origin: { x: 0, y: 0 } }), { x: 640, y: 360 });
});

test("region: a region capture's (0,0) is the region's top-left", () => {
  assert.deepEqual(imageToTarget({ x: 100, y: 50 }, { scale: 2, origin: { x: 300, y: 120 } }), { x: 350, y: 145 });
  assert.deepEqual(imageToTarget({ x: 0, y: 0 }, { scale: 1, origin: { x: 90, y: 120 } }), { x: 90, y: 120 });
});

test('scroll: a full-page (document) capture subtracts the scroll offset to give viewport coordinates', () => {
  const m: Mapping = { scale: 2, origin: { x: 0, y: 0 }, scroll: { x: 0, y: 800 } };
  assert.deepEqual(imageToTarget({ x: 200, y: 2000 }, m), { x: 100, y: 200 });
  assert.deepEqual(imageToTarget({ x: 20, y: 40 }, { scale: 1, origin: { x: 10, y: 10 }, scroll: { x: 5, y: 30 } }), { x: 25, y: 20 });
});

test('targetToImage inverts imageToTarget; boxes and click points map the same way', () => {
  const m: Mapping = { scale: 2, origin: { x: 480, y: 380 }, scroll: { x: 0, y: 16 } };
  for (const p of [{ x: 0, y: 0 }, { x: 123, y: 456 }, { x: 599, y: 239 }]) {
    assert.deepEqual(targetToImage(imageToTarget(p, m), m), p);
  }
  assert.deepEqual(boxToTarget({ x: 100, y: 40, width: 60, height: 20 }, m), { x: 530, y: 384, width: 30, height: 10 });
  assert.deepEqual(clickPoint({ x: 100, y: 40, width: 60, height: 20 }, m), { x: 545, y: 389 });
  // A model sent a 0.75x copy of a DPR-2 capture: 1.5 image px per CSS px.
  assert.deepEqual(clickPoint({ x: 300, y: 150, width: 30, height: 30 }, { scale: 1.5, origin: { x: 0, y: 0 } }), { x: 210, y: 110 });
  assert.throws(() => imageToTarget({ x: 1, y: 1 }, { scale: 0, origin: { x: 0, y: 0 } }), /scale/);
});

test('regionToPixels covers the region in image pixels, cut to the image', () => {
  assert.deepEqual(regionToPixels({ x: 10, y: 20, width: 100, height: 50 }, 2, { width: 2560, height: 1314 }), { x: 20, y: 40, width: 200, height: 100 });
  assert.deepEqual(regionToPixels({ x: 10.25, y: 0, width: 10, height: 10 }, 2, { width: 100, height: 100 }), { x: 20, y: 0, width: 21, height: 20 });
  assert.deepEqual(regionToPixels({ x: 90, y: 90, width: 50, height: 50 }, 1, { width: 100, height: 100 }), { x: 90, y: 90, width: 10, height: 10 });
  assert.equal(regionToPixels({ x: 200, y: 0, width: 10, height: 10 }, 1, { width: 100, height: 100 }), null);
});

test('contains, intersect, clampBox', () => {
  const b = { x: 10, y: 10, width: 20, height: 20 };
  assert.ok(contains(b, { x: 10, y: 10 }));
  assert.ok(!contains(b, { x: 30, y: 15 }));
  assert.deepEqual(intersect(b, { x: 20, y: 0, width: 100, height: 15 }), { x: 20, y: 10, width: 10, height: 5 });
  assert.equal(intersect(b, { x: 40, y: 40, width: 1, height: 1 }), null);
  assert.deepEqual(clampBox({ x: -5, y: 90, width: 20, height: 20 }, { width: 100, height: 100 }), { x: 0, y: 90, width: 15, height: 10 });
});

test('parseRegion reads x,y,w,h and refuses anything else', () => {
  assert.deepEqual(parseRegion('0,0,400,300'), { x: 0, y: 0, width: 400, height: 300 });
  assert.deepEqual(parseRegion(' 10, 20 ,30,40.5 '), { x: 10, y: 20, width: 30, height: 40.5 });
  for (const bad of ['1,2,3', '1,2,3,4,5', 'a,b,c,d', '-1,0,10,10', '0,0,0,10', '', '1;2;3;4']) {
    assert.throws(() => parseRegion(bad), /region/, bad);
  }
});
