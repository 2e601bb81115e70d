// Pure parsing of what a vision model answers, and the prompts that ask for it.
//
// Models are asked for strict JSON {"found", "box":{x,y,width,height}, "confidence":0..1, "label"}, but they
// wrap it in code fences, add prose before or after, think out loud with other JSON first, use other box
// shapes ([x1,y1,x2,y2], {x1,y1,x2,y2}, {left,top,right,bottom}, w/h), give a point only, fractions of the
// image, or percent / words for the confidence. parseLocateAnswer accepts all of those; a box whose
// center lies outside the image is "not found" (with the reason), never a click somewhere else.
import { AppError } from '../../../core/errors.ts';
import { clampBox, centerOf } from './geometry.ts';
import type { Box, LocateAnswer, Size } from './types.ts';

export const LOCATE_SYSTEM_PROMPT =
  'You locate user-interface elements in screenshots. You answer with exactly one JSON object and nothing else. ' +
  'Coordinates are integer pixels of the image you are given: (0,0) is its top-left corner, x grows to the right, y grows down.';

export const DESCRIBE_SYSTEM_PROMPT = 'You describe screenshots of user interfaces accurately and briefly.';

/** The user prompt of a locate call. The image size is stated so that models which resize keep our pixel space. */
export function buildLocatePrompt(description: string, size: Size): string {
  return [
    `The screenshot is ${size.width}x${size.height} pixels.`,
    `Find this element: ${JSON.stringify(description)}.`,
    'Answer with ONLY this JSON, no code fence and no other text:',
    '{"found":true,"box":{"x":<left>,"y":<top>,"width":<width>,"height":<height>},"confidence":<0..1>,"label":"<its visible text or a short name>"}',
    'box is the element\'s bounding box in pixels of this image. confidence is how sure you are that this box is the element asked for.',
    'If it is not visible, answer {"found":false,"confidence":<0..1>,"label":"<briefly, what you see instead>"}.',
    'Do not run tools or commands; just look at the image.',
  ].join('\n');
}

export function buildDescribePrompt(size: Size, focus?: string): string {
  return [
    `Describe what is visible in this ${size.width}x${size.height} screenshot:`,
    'the application or page, its main regions, and the interactive elements (buttons, links, fields, menus) with their visible text and where they are (e.g. top-left, center).',
    focus ? `Focus on: ${focus}.` : '',
    'Plain text, at most 200 words. Do not run tools or commands.',
  ]
    .filter(Boolean)
    .join('\n');
}

// ---- JSON extraction -------------------------------------------------------------------------------

/** Every top-level {...} in the text that parses as JSON, in order (strings and escapes respected). */
export function extractJsonObjects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('{', i);
    if (start < 0) break;
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let j = start; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (depth === 0) {
          end = j;
          break;
        }
      }
    }
    if (end < 0) break;
    const candidate = text.slice(start, end + 1);
    try {
      const v = JSON.parse(candidate) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        out.push(v as Record<string, unknown>);
        i = end + 1;
        continue;
      }
    } catch {
      /* not JSON from here: try the next brace */
    }
    i = start + 1;
  }
  return out;
}

// ---- field readers -----------------------------------------------------------------------------------

const num = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*%?\s*$/.test(v)) return Number.parseFloat(v);
  return undefined;
};

const pick = (o: Record<string, unknown>, ...keys: string[]): unknown => {
  for (const k of keys) if (o[k] !== undefined) return o[k];
  return undefined;
};

/** 0..1 from a number (1..100 read as percent), a numeric or percent string, or high/medium/low. */
export function readConfidence(v: unknown): number | null {
  if (typeof v === 'string') {
    const w = v.trim().toLowerCase();
    if (w === 'high' || w === 'very high') return 0.9;
    if (w === 'medium' || w === 'moderate') return 0.6;
    if (w === 'low' || w === 'very low') return 0.3;
  }
  const n = num(v);
  if (n === undefined || n < 0) return null;
  if (n <= 1) return n;
  if (n <= 100) return n / 100;
  return null;
}

function readFound(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const w = v.trim().toLowerCase();
    if (w === 'true' || w === 'yes') return true;
    if (w === 'false' || w === 'no') return false;
  }
  return undefined;
}

/**
 * A box from any of the shapes models use. Arrays are read as corners [x1,y1,x2,y2] (the usual bbox_2d
 * convention) when x2>x1 and y2>y1, else as [x,y,width,height].
 */
export function readBox(v: unknown): Box | undefined {
  if (Array.isArray(v)) {
    if (v.length !== 4) return undefined;
    const n = v.map(num);
    if (n.some((x) => x === undefined)) return undefined;
    const [a, b, c, d] = n as [number, number, number, number];
    if (c > a && d > b) return { x: a, y: b, width: c - a, height: d - b };
    if (c > 0 && d > 0) return { x: a, y: b, width: c, height: d };
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const x = num(pick(o, 'x', 'left', 'x1', 'xmin', 'x_min'));
  const y = num(pick(o, 'y', 'top', 'y1', 'ymin', 'y_min'));
  const w = num(pick(o, 'width', 'w'));
  const h = num(pick(o, 'height', 'h'));
  if (x !== undefined && y !== undefined && w !== undefined && h !== undefined) return w > 0 && h > 0 ? { x, y, width: w, height: h } : undefined;
  const r = num(pick(o, 'right', 'x2', 'xmax', 'x_max'));
  const b = num(pick(o, 'bottom', 'y2', 'ymax', 'y_max'));
  if (x !== undefined && y !== undefined && r !== undefined && b !== undefined && r > x && b > y) return { x, y, width: r - x, height: b - y };
  return undefined;
}

function readPoint(v: unknown): { x: number; y: number } | undefined {
  if (Array.isArray(v) && v.length === 2) {
    const [x, y] = v.map(num);
    return x !== undefined && y !== undefined ? { x, y } : undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const x = num(o.x);
  const y = num(o.y);
  return x !== undefined && y !== undefined ? { x, y } : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 500) : undefined);

/** An answer object: has found, or a box or a point. */
function isAnswer(o: Record<string, unknown>): boolean {
  return readFound(o.found) !== undefined || pick(o, 'box', 'bbox', 'bbox_2d', 'bounding_box', 'point', 'center') !== undefined;
}

function clipRaw(text: string): string {
  const t = text.trim();
  return t.length > 1000 ? `${t.slice(0, 1000)}…` : t;
}

/**
 * Parse a locate answer. The last JSON object that looks like an answer wins (models think first).
 * No such object → 502 VISION_BAD_ANSWER with the start of what the model said.
 */
export function parseLocateAnswer(text: string, size: Size): LocateAnswer {
  const objects = extractJsonObjects(text.replace(/```(?:json|JSON)?/g, ' '));
  const answer = [...objects].reverse().find(isAnswer);
  if (!answer) {
    throw new AppError(502, 'VISION_BAD_ANSWER', `The vision model did not answer with the JSON asked for. It said: ${JSON.stringify(clipRaw(text).slice(0, 300))}`);
  }
  const raw = clipRaw(text);
  const confidence = readConfidence(pick(answer, 'confidence', 'score', 'probability', 'certainty'));
  const label = str(pick(answer, 'label', 'text', 'name', 'description', 'element'));
  const seen = str(pick(answer, 'seen', 'visible', 'observed'));
  const found = readFound(answer.found);
  if (found === false) return { found: false, confidence, ...(label ? { label } : {}), ...(seen ? { seen } : {}), raw };

  let box = readBox(pick(answer, 'box', 'bbox', 'bbox_2d', 'bounding_box'));
  let pointOnly = false;
  if (!box) {
    const p = readPoint(pick(answer, 'point', 'center')) ?? readPoint(answer);
    if (p) {
      box = { x: p.x, y: p.y, width: 0, height: 0 };
      pointOnly = true;
    }
  }
  if (!box) {
    return { found: false, confidence, ...(label ? { label } : {}), reason: 'the answer named no usable box or point', raw };
  }
  // Fractions of the image (every value within 0..1 and not all whole numbers).
  const vals = [box.x, box.y, box.x + box.width, box.y + box.height];
  if (vals.every((v) => v >= 0 && v <= 1) && vals.some((v) => !Number.isInteger(v))) {
    box = { x: box.x * size.width, y: box.y * size.height, width: box.width * size.width, height: box.height * size.height };
  }
  const c = centerOf(box);
  if (!(c.x >= 0 && c.y >= 0 && c.x < size.width && c.y < size.height)) {
    return {
      found: false,
      confidence,
      ...(label ? { label } : {}),
      reason: `the box the model gave (${fmtBox(box)}) lies outside the ${size.width}x${size.height} image`,
      raw,
    };
  }
  if (pointOnly) {
    box = { x: c.x, y: c.y, width: 1, height: 1 };
  } else {
    box = clampBox(box, size) ?? box;
  }
  return { found: true, box, confidence, ...(label ? { label } : {}), ...(seen ? { seen } : {}), ...(pointOnly ? { pointOnly } : {}), raw };
}

/** A describe answer: the text itself (fences removed), or the `description` of a JSON answer. */
export function parseDescribeAnswer(text: string): string {
  const stripped = text.replace(/```[a-zA-Z]*\n?/g, '').trim();
  if (stripped.startsWith('{')) {
    const o = extractJsonObjects(stripped)[0];
    const d = o ? pick(o, 'description', 'text', 'answer') : undefined;
    if (typeof d === 'string' && d.trim()) return d.trim();
  }
  if (!stripped) throw new AppError(502, 'VISION_BAD_ANSWER', 'The vision model returned an empty description.');
  return stripped;
}

export function fmtBox(b: Box): string {
  const r = (v: number) => Math.round(v * 10) / 10;
  return `${r(b.x)},${r(b.y)} ${r(b.width)}x${r(b.height)}`;
}
