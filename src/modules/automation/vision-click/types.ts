// Shared types of the vision-click skill: the request (what the slash command and the HTTP body parse
// into), captures, locator answers, and the result.
import { z } from 'zod';
import { VISION_LOCATORS, VISION_TARGETS, type LocatorKind, type TargetKind } from './settings.ts';
import { lazySchema } from '../../../protocol/lazy-schema.ts';

export type { LocatorKind, TargetKind };

export const PointSchema = lazySchema(() => z.object({ x: z.number(), y: z.number() }));
export type Point = z.infer<typeof PointSchema>;

export const SizeSchema = lazySchema(() => z.object({ width: z.number(), height: z.number() }));
export type Size = z.infer<typeof SizeSchema>;

/** How image pixels map to the coordinates an action takes (see geometry.ts). */
export interface Mapping {
  scale: number;
  origin: Point;
  scroll?: Point;
}

export const VISION_ACTIONS = ['click', 'double', 'right', 'hover', 'describe'] as const;
export type VisionAction = (typeof VISION_ACTIONS)[number];
/** The actions that act on a point. */
export type PointerAction = Exclude<VisionAction, 'describe'>;

export const MAX_DESCRIPTION = 2000;

export const BoxSchema = lazySchema(() => z.strictObject({
  x: z.number().finite().min(0).max(100_000),
  y: z.number().finite().min(0).max(100_000),
  width: z.number().finite().gt(0).max(100_000),
  height: z.number().finite().gt(0).max(100_000),
}));
export type Box = z.infer<typeof BoxSchema>;
/** A box in a result: it may reach past the viewport's edges. */
const ResultBoxSchema = lazySchema(() => z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }));

/** A typed vision-click request (from `/vision-click …` or POST /api/vision-click). */
export const VisionRequestSchema = lazySchema(() => z
  .strictObject({
    action: z.enum(VISION_ACTIONS),
    /** What to find ("the blue Launch button", or quoted visible text). Optional only for describe (a focus). */
    description: z.string().trim().max(MAX_DESCRIPTION).optional(),
    target: z.enum(VISION_TARGETS).optional(),
    /** Capture only this rectangle: viewport CSS px (browser) or screen px (desktop). */
    region: BoxSchema.optional(),
    locator: z.enum(VISION_LOCATORS).optional(),
    minConfidence: z.number().min(0).max(1).optional(),
    /** Browser tab id (t1…); default the active tab. */
    tab: z.string().trim().regex(/^t\d{1,9}$/, 'a tab id looks like t1').optional(),
    /** Find and report, but do not act. */
    dryRun: z.boolean().optional(),
  })
  .refine((r) => r.action === 'describe' || !!r.description, { message: 'a description of the target is required', path: ['description'] })
  .refine((r) => !(r.target === 'desktop' && r.tab), { message: 'tab applies to the browser target only', path: ['tab'] }));

export type VisionRequest = z.infer<typeof VisionRequestSchema>;

/** A screenshot ready for a locator, and how its pixels map to the target's coordinates. */
export interface Capture {
  /** PNG of what was captured (the region only, when one was given). */
  png: Buffer;
  width: number;
  height: number;
  /** Image pixels per target coordinate unit: the device pixel ratio in the browser, 1 on X11. */
  scale: number;
  /** Target coordinates of the image's top-left pixel (the region's top-left; 0,0 for a whole capture). */
  origin: Point;
  /** Scroll offset to subtract when the image is in document coordinates (a full-page capture); else 0,0. */
  scroll: Point;
  /** Where a point may land, in target coordinates (the viewport or screen, cut to the region). */
  bounds: Box;
  /** Media file name of the screenshot, when kept. */
  screenshot?: string;
  /** Browser tab the capture came from (the action goes to the same tab). */
  tab?: string;
  /** Facts for the result: dpr, viewport or screen size, scroll. */
  info: Record<string, unknown>;
}

/** What a locator saw, in the pixels of the image it was given. */
export type LocateAnswer =
  | {
      found: true;
      box: Box;
      /** 0..1, or null when the model gave none (then it counts as 0). */
      confidence: number | null;
      label?: string;
      /** The model gave only a point; the box is that point. */
      pointOnly?: boolean;
      /** Other places that matched about as well (OCR). */
      alternatives?: number;
      /** What else was visible (for reports). */
      seen?: string;
      /** The locator's raw answer (model text), trimmed. */
      raw?: string;
    }
  | {
      found: false;
      confidence: number | null;
      label?: string;
      seen?: string;
      reason?: string;
      raw?: string;
    };

export interface LocateInput {
  png: Buffer;
  width: number;
  height: number;
  description: string;
  /** Image pixels per target unit (the OCR locator upscales DPR-1 captures). */
  scale?: number;
}

export interface DescribeInput {
  png: Buffer;
  width: number;
  height: number;
  /** Optional focus ("the toolbar"). */
  focus?: string;
  scale?: number;
  /** Image → target mapping, for locators that report positions (OCR). */
  mapping?: Mapping;
}

export interface Locator {
  readonly kind: LocatorKind;
  locate(input: LocateInput): Promise<LocateAnswer>;
  describe(input: DescribeInput): Promise<string>;
  close?(): Promise<void>;
}

/** A place to capture and act: the controlled browser page or the X11 desktop. */
export interface VisionTarget {
  readonly kind: TargetKind;
  capture(opts: { region?: Box; tab?: string }): Promise<Capture>;
  perform(action: PointerAction, point: Point, opts: { tab?: string }): Promise<void>;
}

export const VisionResultSchema = lazySchema(() => z.object({
  action: z.enum(VISION_ACTIONS),
  target: z.enum(VISION_TARGETS),
  locator: z.enum(VISION_LOCATORS),
  /** Whether the target was found (describe: absent). */
  found: z.boolean().optional(),
  /** Whether the action was performed (false for --dry-run and describe). */
  acted: z.boolean(),
  /** Where the action happened (or would have): viewport CSS px in the browser, screen px on the desktop. */
  point: PointSchema.optional(),
  /** The target's box in the same coordinates. */
  box: ResultBoxSchema.optional(),
  confidence: z.number().nullable().optional(),
  label: z.string().optional(),
  /** describe: what is visible. */
  description: z.string().optional(),
  /** Media file name of the screenshot (GET /media/<name>), when kept. */
  screenshot: z.string().optional(),
  /** How image pixels were mapped: image px per target unit, region origin, scroll, image size. */
  mapping: z.object({ scale: z.number(), origin: PointSchema, scroll: PointSchema, image: SizeSchema, sent: SizeSchema.optional() }),
  /** The box in the pixels of the image the locator saw. */
  imageBox: ResultBoxSchema.optional(),
  alternatives: z.number().optional(),
  ms: z.number(),
}));
export type VisionResult = z.infer<typeof VisionResultSchema>;
