// OCR runs in a child process that ends when idle, so the server's memory goes back to its idle size
// after a vision-click (Tesseract keeps hundreds of MB for as long as its process lives).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { OcrEngine } from '../../../../src/modules/automation/vision-click/locators/ocr.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function textPng(text: string): Buffer | undefined {
  const made = spawnSync('convert', ['-size', '420x90', 'xc:white', '-font', 'DejaVu-Sans', '-fill', 'black', '-pointsize', '36', '-annotate', '+20+60', text, 'png:-']);
  return made.status === 0 ? made.stdout : undefined;
}

const png = textPng('Launch order');

test('OCR reads in its own process, which is gone after the idle time; the server barely grows', { skip: png ? false : 'ImageMagick (convert) is not installed', timeout: 120_000 }, async () => {
  const engine = new OcrEngine({ idleMs: 800 });
  try {
    const before = process.memoryUsage.rss();
    const lines = await engine.recognize(png!);
    assert.match(lines.map((l) => l.text).join(' | '), /Launch order/);
    const pid = engine.pid!;
    assert.ok(pid && pid !== process.pid && alive(pid), 'a separate process did the work');
    // a second job reuses the warm process
    await engine.recognize(png!);
    assert.equal(engine.pid, pid);
    const grown = (process.memoryUsage.rss() - before) / 1024 / 1024;
    assert.ok(grown < 60, `this process grew ${grown.toFixed(0)} MB (Tesseract in-process adds ~200 MB)`);
    for (const start = Date.now(); alive(pid); await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() - start < 10_000, 'the idle OCR process ends');
    }
    assert.equal(engine.pid, undefined);
    // and starts again on demand
    assert.match((await engine.recognize(png!)).map((l) => l.text).join(' '), /Launch/);
  } finally {
    await engine.close();
  }
});
