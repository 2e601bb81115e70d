// Small helpers shared by the benchmarks: percentiles and timing.
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(samples: number[], digits = 3): { n: number; p50: number; p99: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Number(x.toFixed(digits));
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export const ratio = (value: number, baseline: number) => Number((value / baseline).toFixed(2));

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across local processes. */
export const nowMs = () => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the module at `url` is the script node was started with (so benches run alone or from run.ts). */
export const isMain = (url: string) => {
  const entry = process.argv[1];
  return entry !== undefined && new URL(url).pathname === new URL(entry, `file://${process.cwd()}/`).pathname;
};
