// The vision-click flow: capture (browser page or X11 desktop, whole or a region) → locate the target
// with the configured locator (OCR, OpenAI-compatible endpoint, provider CLI) → map the box from image
// pixels to the target's coordinates (DPR, region offset, model-side downscale) → check it → act.
//
// Nothing is clicked unless the target was found, its point lies inside what was captured, and its
// confidence reaches the threshold: otherwise TARGET_NOT_FOUND (404) or LOW_CONFIDENCE (422), with what
// was seen. Runs are serialized: one capture-and-click at a time, each bounded, so one that never ends does
// not hold the others.
import { deadline } from '../../../core/deadline.ts';
import { AppError } from '../../../core/errors.ts';
import { fmtBox } from './answer.ts';
import { boxToTarget, clickPoint, contains, type Mapping } from './geometry.ts';
import { decodePng, encodePng, fitWithin } from './image.ts';
import { CliLocator } from './locators/cli.ts';
import { OcrLocator } from './locators/ocr.ts';
import { OpenAiLocator } from './locators/openai.ts';
import { DEFAULT_VISION_SETTINGS, type CliProvider, type VisionSettings } from './settings.ts';
import { BrowserTarget, type BrowserActor } from './targets/browser.ts';
import { DesktopTarget } from './targets/desktop.ts';
import {
  VisionRequestSchema,
  type Capture,
  type LocateAnswer,
  type Locator,
  type LocatorKind,
  type TargetKind,
  type VisionRequest,
  type VisionResult,
  type VisionTarget,
} from './types.ts';

export interface VisionClickDeps {
  /** The current `vision` settings section. */
  settings: () => VisionSettings;
  /** <home>/media: where the browser server writes screenshots and where desktop captures are kept. */
  mediaDir: string;
  /** Client of the browser server (a BrowserClient). Without it the browser target answers 503. */
  browser?: BrowserActor;
  /** Environment of CLI locator runs (process env plus the agent's env settings). */
  env?: () => NodeJS.ProcessEnv;
  /** Executable path of a provider CLI when it is not the usual command (settings.agent.executables). */
  executable?: (provider: CliProvider) => string | undefined;
  fetch?: typeof fetch;
  /** Replace a target or locator (tests, other platforms). */
  targets?: Partial<Record<TargetKind, VisionTarget>>;
  locators?: Partial<Record<LocatorKind, Locator>>;
  platform?: NodeJS.Platform;
  processEnv?: NodeJS.ProcessEnv;
  /** What a run may take besides its locator's bound (default CAPTURE_AND_ACT_MS; tests make it short). */
  captureAndActMs?: number;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;
/** What a run may take besides its locator's own bound (vision.timeoutSec): the capture and the action. */
const CAPTURE_AND_ACT_MS = 60_000;

export class VisionClickService {
  private readonly targets: Partial<Record<TargetKind, VisionTarget>>;
  private readonly locators: Partial<Record<LocatorKind, Locator>>;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: VisionClickDeps) {
    const settings = () => ({ ...DEFAULT_VISION_SETTINGS, ...deps.settings() });
    this.targets = {
      ...(deps.browser ? { browser: new BrowserTarget(deps.browser, deps.mediaDir, () => settings().keepScreenshots) } : {}),
      desktop: new DesktopTarget({
        mediaDir: deps.mediaDir,
        display: () => settings().display,
        keepScreenshots: () => settings().keepScreenshots,
        platform: deps.platform,
        env: deps.processEnv,
      }),
      ...deps.targets,
    };
    this.locators = {
      ocr: new OcrLocator(),
      openai: new OpenAiLocator(() => {
        const s = settings();
        return { baseUrl: s.baseUrl, model: s.model, apiKey: s.apiKey, timeoutMs: s.timeoutSec * 1000 };
      }, deps.fetch),
      cli: new CliLocator(() => {
        const s = settings();
        return {
          provider: s.cliProvider,
          model: s.cliModel,
          executable: deps.executable?.(s.cliProvider),
          timeoutMs: s.timeoutSec * 1000,
          env: deps.env?.() ?? process.env,
        };
      }),
      ...deps.locators,
    };
  }

  /** Validate (400 on bad input) and run one request; one at a time. */
  run(input: VisionRequest | unknown): Promise<VisionResult> {
    const parsed = VisionRequestSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
      const field = [...issue.path, ...(unknownKey ? [unknownKey] : [])].map(String).join('.') || 'request';
      return Promise.reject(new AppError(400, 'INVALID_REQUEST', unknownKey ? `unknown field '${field}'` : `${field}: ${issue.message}`, { field }));
    }
    // a run that never ends (a capture or a locator that does not answer) may not hold the ones behind it
    const bounded = () => {
      const ms = { ...DEFAULT_VISION_SETTINGS, ...this.deps.settings() }.timeoutSec * 1000 + (this.deps.captureAndActMs ?? CAPTURE_AND_ACT_MS);
      return deadline(this.runOne(parsed.data), ms, () => new AppError(504, 'UPSTREAM_TIMEOUT', `vision-click did not finish within ${ms / 1000} s: the capture, the locator or the action did not answer. Nothing more was done; try again.`));
    };
    const next = this.chain.then(bounded, bounded);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private target(kind: TargetKind): VisionTarget {
    const t = this.targets[kind];
    if (!t) throw new AppError(503, 'TARGET_UNAVAILABLE', `The ${kind} target is not available in this server (no browser client).`);
    return t;
  }

  private locator(kind: LocatorKind): Locator {
    const l = this.locators[kind];
    if (!l) throw new AppError(503, 'LOCATOR_UNAVAILABLE', `The ${kind} locator is not available.`);
    return l;
  }

  private async runOne(req: VisionRequest): Promise<VisionResult> {
    const started = Date.now();
    const s = { ...DEFAULT_VISION_SETTINGS, ...this.deps.settings() };
    const targetKind = req.target ?? s.target;
    const locatorKind = req.locator ?? s.locator;
    const minConfidence = req.minConfidence ?? s.minConfidence;
    const target = this.target(targetKind);
    const locator = this.locator(locatorKind);

    const capture = await target.capture({ ...(req.region ? { region: req.region } : {}), ...(req.tab ? { tab: req.tab } : {}) });
    // Models get a bounded image (most resize internally anyway); OCR reads the full resolution.
    let image = { png: capture.png, width: capture.width, height: capture.height };
    let factor = 1;
    if (locatorKind !== 'ocr' && s.maxImageSide > 0 && Math.max(capture.width, capture.height) > s.maxImageSide) {
      const fitted = fitWithin(decodePng(capture.png), s.maxImageSide);
      factor = fitted.factor;
      image = { png: encodePng(fitted.raster), width: fitted.raster.width, height: fitted.raster.height };
    }
    const mapping: Mapping = { scale: capture.scale * factor, origin: capture.origin, scroll: capture.scroll };
    const mappingOut: VisionResult['mapping'] = {
      scale: round3(mapping.scale),
      origin: capture.origin,
      scroll: capture.scroll,
      image: { width: capture.width, height: capture.height },
      ...(factor !== 1 ? { sent: { width: image.width, height: image.height } } : {}),
    };
    const common = {
      target: targetKind,
      locator: locatorKind,
      ...(capture.screenshot ? { screenshot: capture.screenshot } : {}),
    };

    if (req.action === 'describe') {
      const description = await locator.describe({ ...image, scale: capture.scale * factor, mapping, ...(req.description ? { focus: req.description } : {}) });
      return { action: 'describe', ...common, acted: false, description, mapping: mappingOut, ms: Date.now() - started };
    }

    const description = req.description!;
    const answer = await locator.locate({ ...image, description, scale: capture.scale * factor });
    if (!answer.found) throw notFound(description, answer, common, capture);

    const box = boxToTarget(answer.box, mapping);
    const point = clickPoint(answer.box, mapping);
    if (!contains(capture.bounds, point)) {
      throw notFound(description, { ...answer, found: false, reason: `its point (${point.x}, ${point.y}) lies outside the captured area (${fmtBox(capture.bounds)})` }, common, capture);
    }
    const confidence = answer.confidence;
    if (confidence === null || confidence < minConfidence) {
      const alt = answer.alternatives ? ` ${answer.alternatives + 1} places match about equally well; narrow it down with --region or more words.` : '';
      throw new AppError(
        422,
        'LOW_CONFIDENCE',
        `Found ${answer.label ? `"${answer.label}"` : 'a candidate'} for "${description}" at (${point.x}, ${point.y}) with confidence ${confidence === null ? 'unknown (the model gave none)' : confidence.toFixed(2)}, below the minimum ${minConfidence}; nothing was clicked.${alt}`,
        {
          found: true,
          acted: false,
          ...common,
          confidence,
          minConfidence,
          point,
          box,
          ...(answer.label ? { label: answer.label } : {}),
          ...(answer.seen ? { seen: answer.seen } : {}),
          ...(answer.alternatives ? { alternatives: answer.alternatives } : {}),
        },
      );
    }
    const tab = req.tab ?? capture.tab;
    if (!req.dryRun) await target.perform(req.action, point, tab ? { tab } : {});
    return {
      action: req.action,
      ...common,
      found: true,
      acted: !req.dryRun,
      point,
      box,
      confidence,
      ...(answer.label ? { label: answer.label } : {}),
      mapping: mappingOut,
      imageBox: answer.box,
      ...(answer.alternatives ? { alternatives: answer.alternatives } : {}),
      ms: Date.now() - started,
    };
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.locators).map((l) => l?.close?.().catch(() => undefined)));
  }
}

function notFound(description: string, answer: Extract<LocateAnswer, { found: false }>, common: Record<string, unknown>, capture: Capture): AppError {
  const seen = answer.seen ?? answer.label;
  return new AppError(
    404,
    'TARGET_NOT_FOUND',
    `"${description}" was not found${answer.reason ? `: ${answer.reason}` : ''}.${seen ? ` Seen: ${seen}.` : ''} Nothing was clicked.`,
    {
      found: false,
      acted: false,
      ...common,
      confidence: answer.confidence,
      ...(seen ? { seen } : {}),
      ...(answer.reason ? { reason: answer.reason } : {}),
      image: { width: capture.width, height: capture.height },
    },
  );
}

export function createVisionClickService(deps: VisionClickDeps): VisionClickService {
  return new VisionClickService(deps);
}
