// The offline locator: OCR of the screenshot with tesseract.js and the English data that ships in the
// @tesseract.js-data/eng package (read from node_modules, never downloaded, nothing cached to disk), then
// word matching (text-match.ts). It finds targets by their visible text; icons and shapes need a model
// locator. OCR runs in a child process kept warm between calls and ended after 30 s of idleness, so its
// memory is the system's again once it is done.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker } from 'tesseract.js';
import { AppError, isErrorCode } from '../../../../core/errors.ts';
import { SVC_BIN } from '../../../../core/version.ts';
import { boxToTarget, type Mapping } from '../geometry.ts';
import { decodePng, ocrImage } from '../image.ts';
import type { DescribeInput, LocateAnswer, LocateInput, Locator } from '../types.ts';
import { locateText, type OcrLine } from './text-match.ts';

const require = createRequire(import.meta.url);

/**
 * Directory holding eng.traineddata.gz inside the installed @tesseract.js-data/eng package: the LSTM-only
 * data (`4.0.0_best_int`, 3 MB), which is all the LSTM engine reads. The package's `4.0.0` data carries the
 * same integer LSTM model plus the legacy engine's (11 MB): the engine started in 0.58 s and held ~210 MB
 * with it, 0.42 s and ~110 MB with this, and read the same text.
 */
export function englishDataDir(): string {
  let dir: string;
  try {
    dir = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  } catch {
    throw new AppError(503, 'OCR_UNAVAILABLE', 'The OCR language data package @tesseract.js-data/eng is not installed.');
  }
  if (!existsSync(join(dir, 'eng.traineddata.gz'))) {
    throw new AppError(503, 'OCR_UNAVAILABLE', `The English OCR data is missing (${join(dir, 'eng.traineddata.gz')}).`);
  }
  return dir;
}

export interface OcrOptions {
  /** End the OCR process after this long without a job (ms, default 30000). */
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

/**
 * Tesseract in this process: what the OCR process (ocr-process.ts) runs. Its memory (the WASM engine
 * and the language data, ~110 MB at rest and more while it reads) is never returned to the system while the process lives,
 * which is why the server does not run it itself.
 */
export class Recognizer {
  private worker: Promise<Worker> | null = null;

  private getWorker(): Promise<Worker> {
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

  /** Lines and words of a PNG of `scale` pixels per CSS pixel, in the PNG's pixels. */
  async recognize(png: Buffer, scale = 1): Promise<OcrLine[]> {
    const prepared = ocrImage(decodePng(png), scale);
    const worker = await this.getWorker();
    const { data } = await worker.recognize(prepared.png, {}, { blocks: true, text: false });
    const lines: OcrLine[] = [];
    const k = prepared.perPixel;
    const toBox = (b: RawWord['bbox']) => ({ x: b.x0 / k, y: b.y0 / k, width: (b.x1 - b.x0) / k, height: (b.y1 - b.y0) / k });
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
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await (await w.catch(() => null))?.terminate().catch(() => undefined);
  }
}

interface OcrReply {
  id: number;
  lines?: OcrLine[];
  error?: { status: number; code: string; message: string };
}

/**
 * OCR in a child process (`svc __ocr-process`), started on the first job and ended after idleMs
 * without one: all the memory OCR takes goes with it, so the server returns to its idle size.
 */
export class OcrEngine {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, { resolve(lines: OcrLine[]): void; reject(err: Error): void }>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: OcrOptions = {}) {}

  /** The OCR process's pid while it runs (for tests and `svc status`). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): ChildProcess {
    const child = fork(SVC_BIN, ['__ocr-process'], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('message', (reply: OcrReply) => {
      const job = this.pending.get(reply.id);
      if (!job) return;
      this.pending.delete(reply.id);
      if (reply.lines) job.resolve(reply.lines);
      else job.reject(new AppError(reply.error?.status ?? 503, isErrorCode(reply.error?.code) ? reply.error.code : 'OCR_UNAVAILABLE', reply.error?.message ?? 'OCR failed.'));
      this.scheduleIdle();
    });
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      const why = new AppError(503, 'OCR_UNAVAILABLE', `The OCR process ended (${signal ?? `exit ${code}`}) before it answered. Try again.`);
      for (const job of this.pending.values()) job.reject(why);
      this.pending.clear();
    });
    return child;
  }

  private scheduleIdle(): void {
    if (this.pending.size > 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.opts.idleMs ?? 30_000);
    this.idleTimer.unref();
  }

  /** Lines and words of a PNG, in the PNG's pixels. */
  recognize(png: Buffer, scale = 1): Promise<OcrLine[]> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const child = (this.child ??= this.start());
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.send({ id, png, scale });
    });
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
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
