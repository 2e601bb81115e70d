// The offline locator: OCR of the screenshot with tesseract.js and the English data that ships in the
// @tesseract.js-data/eng package (read from node_modules, never downloaded, nothing cached to disk), then
// fuzzy text matching (text-match.ts). It finds targets by their visible text; icons and shapes need a
// model locator. One worker is kept warm between calls and ended after a minute of idleness.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker } from 'tesseract.js';
import { AppError } from '../../../../core/errors.ts';
import { boxToTarget, type Mapping } from '../geometry.ts';
import { decodePng, ocrPrepass } from '../image.ts';
import type { DescribeInput, LocateAnswer, LocateInput, Locator } from '../types.ts';
import { locateText, type OcrLine } from './text-match.ts';

const require = createRequire(import.meta.url);

/** Directory holding eng.traineddata.gz inside the installed @tesseract.js-data/eng package. */
export function englishDataDir(): string {
  let dir: string;
  try {
    dir = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0');
  } catch {
    throw new AppError(503, 'OCR_UNAVAILABLE', 'The OCR language data package @tesseract.js-data/eng is not installed.');
  }
  if (!existsSync(join(dir, 'eng.traineddata.gz'))) {
    throw new AppError(503, 'OCR_UNAVAILABLE', `The English OCR data is missing (${join(dir, 'eng.traineddata.gz')}).`);
  }
  return dir;
}

export interface OcrOptions {
  /** End the worker after this long without a job (ms, default 60000; 0 keeps it). */
  idleMs?: number;
}

interface RawWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}
interface RawLine extends RawWord {
  words: RawWord[];
}

/** Upscale small text (DPR-1 screenshots) before OCR, unless the image is already large. */
export function ocrUpscale(width: number, height: number, scale = 1): number {
  if (scale >= 1.5) return 1;
  return Math.max(width, height) * 2 <= 4096 ? 2 : 1;
}

export class OcrEngine {
  private worker: Promise<Worker> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private busy = 0;

  constructor(private readonly opts: OcrOptions = {}) {}

  private getWorker(): Promise<Worker> {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    this.worker ??= (async () => {
      const langPath = englishDataDir();
      const { createWorker, OEM, PSM } = await import('tesseract.js');
      try {
        const w = await createWorker('eng', OEM.LSTM_ONLY, {
          langPath,
          cachePath: langPath,
          cacheMethod: 'none',
          gzip: true,
          errorHandler: () => undefined,
        });
        await w.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT, user_defined_dpi: '144' });
        return w;
      } catch (err) {
        throw new AppError(503, 'OCR_UNAVAILABLE', `Could not start the OCR engine: ${String((err as Error)?.message ?? err)}.`);
      }
    })();
    this.worker.catch(() => {
      this.worker = null;
    });
    return this.worker;
  }

  private scheduleIdle(): void {
    const idle = this.opts.idleMs ?? 60_000;
    if (!idle || this.busy > 0) return;
    this.idleTimer = setTimeout(() => void this.close(), idle);
    this.idleTimer.unref();
  }

  /** Lines and words of a PNG, in the PNG's pixels. */
  async recognize(png: Buffer, scale = 1): Promise<OcrLine[]> {
    const raster = decodePng(png);
    const up = ocrUpscale(raster.width, raster.height, scale);
    const prepared = ocrPrepass(raster, up);
    this.busy++;
    try {
      const worker = await this.getWorker();
      const { data } = await worker.recognize(prepared.png, {}, { blocks: true, text: false });
      const lines: OcrLine[] = [];
      const toBox = (b: RawWord['bbox']) => ({ x: b.x0 / up, y: b.y0 / up, width: (b.x1 - b.x0) / up, height: (b.y1 - b.y0) / up });
      for (const block of data.blocks ?? []) {
        for (const para of block.paragraphs) {
          for (const line of para.lines as unknown as RawLine[]) {
            const words = line.words
              .filter((w) => w.text.trim())
              .map((w) => ({ text: w.text.trim(), confidence: w.confidence, box: toBox(w.bbox) }));
            if (!words.length) continue;
            lines.push({ text: words.map((w) => w.text).join(' '), confidence: line.confidence, box: toBox(line.bbox), words });
          }
        }
      }
      return lines;
    } finally {
      this.busy--;
      this.scheduleIdle();
    }
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const w = this.worker;
    this.worker = null;
    if (w) await (await w.catch(() => null))?.terminate().catch(() => undefined);
  }
}

export class OcrLocator implements Locator {
  readonly kind = 'ocr' as const;
  constructor(private readonly engine: OcrEngine = new OcrEngine()) {}

  async locate(input: LocateInput): Promise<LocateAnswer> {
    const lines = await this.engine.recognize(input.png, input.scale);
    return locateText(input.description, lines);
  }

  /** The text OCR reads, line by line, with where each line is (target coordinates when a mapping is given). */
  async describe(input: DescribeInput): Promise<string> {
    const lines = await this.engine.recognize(input.png, input.scale);
    return describeLines(lines, input.mapping, input.focus);
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}

export function describeLines(lines: OcrLine[], mapping?: Mapping, focus?: string): string {
  const readable = lines.filter((l) => l.confidence >= 40 && /[\p{L}\p{N}]{2,}/u.test(l.text));
  if (!readable.length) return 'OCR found no readable text on screen (the OCR locator reads text only; use a model locator to describe images and icons).';
  const shown = focus ? readable.filter((l) => locateText(focus, [l]).found) : readable;
  const list = (shown.length ? shown : readable).slice(0, 60).map((l) => {
    const b = mapping ? boxToTarget(l.box, mapping) : l.box;
    return `- "${l.text}" at ${Math.round(b.x)},${Math.round(b.y)} (${Math.round(b.width)}x${Math.round(b.height)})`;
  });
  return `Visible text (OCR, no model; positions x,y (width x height)):\n${list.join('\n')}`;
}
