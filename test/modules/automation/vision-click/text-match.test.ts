import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  findMatches,
  locateText,
  queryFromDescription,
  seenText,
  wordMatchScore,
  type OcrLine,
  type OcrWord,
} from '../../../../src/modules/automation/vision-click/locators/text-match.ts';

/** A line of words laid out left to right, 10 px per character. */
function line(text: string, x: number, y: number, conf = 95): OcrLine {
  let cx = x;
  const words: OcrWord[] = text.split(' ').map((w) => {
    const word = { text: w, confidence: conf, box: { x: cx, y, width: w.length * 10, height: 14 } };
    cx += (w.length + 1) * 10;
    return word;
  });
  return { text, confidence: conf, box: { x, y, width: cx - x - 10, height: 14 }, words };
}

test('query: quoted text wins; else generic words (click, the, button…) go, but the whole description is tried too', () => {
  assert.deepEqual(queryFromDescription('click the "Sign in" button'), { text: 'sign in', exact: true, variants: ['sign in'] });
  assert.equal(queryFromDescription('the “Buy now” link').text, 'buy now');
  assert.equal(queryFromDescription("the 'Save' button").text, 'save');
  assert.equal(queryFromDescription("don't click").text, "don t");
  const q = queryFromDescription('the Launch button');
  assert.equal(q.text, 'launch');
  assert.equal(q.exact, false);
  assert.deepEqual(queryFromDescription('Press here').variants, ['here', 'press here']);
  assert.equal(queryFromDescription('Crème brûlée!').text, 'creme brulee');
});

test('the best span wins and its box is the union of its words', () => {
  const lines = [line('Welcome to mission control', 10, 10), line('Launch', 300, 250), line('Cancel order', 520, 400)];
  const a = locateText('"Cancel order"', lines);
  assert.equal(a.found, true);
  if (!a.found) return;
  assert.equal(a.label, 'Cancel order');
  assert.deepEqual(a.box, { x: 520, y: 400, width: 120, height: 14 });
  assert.ok(a.confidence! > 0.95);
  // One word of a line: its own box, not the line's.
  const b = locateText('Cancel', lines);
  assert.ok(b.found && b.box.width === 60 && b.label === 'Cancel');
  // Unquoted "Press here": "press" is generic, but the full text still matches exactly.
  const c = locateText('Press here', [line('Press here', 100, 100), line('Cancel', 200, 100)]);
  assert.ok(c.found && c.label === 'Press here', JSON.stringify(c));
});

test('OCR slips still match, with a lower confidence; low OCR confidence lowers it too', () => {
  const a = locateText('Submit', [line('Subrnit', 0, 0)]);
  assert.ok(a.found);
  const sharp = locateText('Submit', [line('Submit', 0, 0, 95)]);
  const blurry = locateText('Submit', [line('Submit', 0, 0, 30)]);
  assert.ok(sharp.found && blurry.found && a.found);
  assert.ok(a.confidence! < sharp.confidence!);
  assert.ok(blurry.confidence! < sharp.confidence!);
});

test('nothing alike: not found, with the text that was seen', () => {
  const a = locateText('Delete everything', [line('Welcome', 0, 0), line('Launch', 0, 50)]);
  assert.equal(a.found, false);
  assert.equal(a.seen, 'Welcome | Launch');
  assert.match(a.found ? '' : (a.reason ?? ''), /no text on screen resembles "delete everything"/);
  assert.equal(locateText('anything', []).seen, 'no readable text');
});

test('two places that match equally: ambiguous, confidence halved (below the default threshold), alternatives counted', () => {
  const lines = [line('Delete', 10, 10), line('Delete', 10, 200), line('Keep', 10, 400)];
  const a = locateText('Delete', lines);
  assert.ok(a.found);
  if (!a.found) return;
  assert.equal(a.alternatives, 1);
  assert.ok(a.confidence! < 0.5, String(a.confidence));
  assert.equal(a.box.y, 10, 'the first in reading order');
  assert.equal(findMatches(queryFromDescription('Delete'), lines).length, 2);
});

test('seenText is bounded', () => {
  const many = Array.from({ length: 100 }, (_, i) => line(`Row number ${i}`, 0, i * 20));
  const s = seenText(many, 100);
  assert.ok(s.length <= 104, String(s.length));
  assert.match(s, /…$/);
});

test('near-miss labels: one shared word is far below the 0.5 threshold; all words, in order, are needed', () => {
  const page = [line('Submit order', 100, 100)];
  for (const wrong of ['"Edit order"', '"Submit payment"', 'the Submit payment button', '"Order submit"']) {
    const a = locateText(wrong, page);
    assert.ok(!a.found || a.confidence! < 0.3, `${wrong}: ${JSON.stringify(a)}`);
  }
  const right = locateText('the "Submit order" button', page);
  assert.ok(right.found && right.confidence! > 0.9 && right.label === 'Submit order', JSON.stringify(right));
  // fuzzy within a word only: an OCR slip in one word of two still matches well
  const slip = locateText('"Submit order"', [line('Subrnit order', 100, 100)]);
  assert.ok(slip.found && slip.confidence! > 0.7, JSON.stringify(slip));
});

test('wordMatchScore: coverage squared times the mean word similarity, in order', () => {
  assert.equal(wordMatchScore(['submit', 'order'], ['submit', 'order']), 1);
  assert.equal(wordMatchScore(['submit', 'payment'], ['submit', 'order']), 0.25);
  assert.equal(wordMatchScore(['order', 'submit'], ['submit', 'order']), 0.25, 'order matters');
  assert.equal(wordMatchScore(['ok'], ['0k']), 0, 'short words must be equal');
  assert.equal(wordMatchScore(['save'], []), 0);
});
