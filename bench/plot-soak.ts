// Draws the soak's live memory (JS heap and array buffers; the heap alone for outputs that lack them) against
// messages, from saved outputs of bench/soak.ts (docs/soak/ keeps those of the figures in docs/performance.md):
//   node --import tsx bench/plot-soak.ts "before the fix=docs/soak/before.json" "after=docs/soak/after.json" > docs/soak/heap.svg
// Each argument is label=file; every run in a file becomes one line, named "<label>, <connection>".
import { readFileSync } from 'node:fs';
import { lineChart, type Series } from './support/svg-plot.ts';

interface SoakOutput {
  runs: { connection: string; checkpoints: { messages: number; heapMb: number; arrayBuffersMb?: number }[] }[];
}

const series: Series[] = process.argv.slice(2).flatMap((argument) => {
  const at = argument.lastIndexOf('=');
  const label = argument.slice(0, at);
  const output = JSON.parse(readFileSync(argument.slice(at + 1), 'utf8')) as SoakOutput;
  return output.runs.map((run) => ({ name: `${label}, ${run.connection}`, points: run.checkpoints.map((c) => ({ x: c.messages, y: c.heapMb + (c.arrayBuffersMb ?? 0) })) }));
});
if (series.length === 0) {
  console.error('usage: plot-soak.ts <label>=<soak output.json> ...');
  process.exit(2);
}
process.stdout.write(lineChart({ title: 'svc serve: live memory after a full GC, against messages sent', xLabel: 'messages', yLabel: 'JS heap + array buffers (MB)', series }));
