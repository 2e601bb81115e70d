// The OCR process (`svc __ocr-process`, started by OcrEngine over IPC): recognizes the PNGs it is
// sent, one reply per job, until its parent ends it or goes away.
import { AppError } from '../../../../core/errors.ts';
import { Recognizer } from './ocr.ts';

export async function runOcrProcess(): Promise<void> {
  if (!process.send) throw new Error('the OCR process is started by svc itself, over IPC');
  const recognizer = new Recognizer();
  // Jobs run one at a time: Tesseract has one engine here.
  let chain = Promise.resolve();
  process.on('message', (job: { id: number; png: Buffer; scale: number }) => {
    chain = chain.then(async () => {
      try {
        process.send!({ id: job.id, lines: await recognizer.recognize(Buffer.from(job.png), job.scale) });
      } catch (err) {
        const e = err instanceof AppError ? err : new AppError(503, 'OCR_UNAVAILABLE', `OCR failed: ${(err as Error).message}`);
        process.send!({ id: job.id, error: { status: e.status, code: e.code, message: e.message } });
      }
    });
  });
  process.on('disconnect', () => void recognizer.close().finally(() => process.exit(0)));
  process.on('SIGTERM', () => void recognizer.close().finally(() => process.exit(0)));
}
