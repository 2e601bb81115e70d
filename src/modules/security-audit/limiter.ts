// Keeps a flood of refusals (a port scan, a wrong token in a loop) from filling the disk: per key at
// most `perKey` entries a window, and at most `total` for all keys together; what is dropped is counted
// and the count rides on the next entry of that key. Pure apart from the clock it is given.

export interface LimiterOptions {
  windowMs: number;
  perKey: number;
  total: number;
  now?: () => number;
}

export class FloodLimiter {
  private windowStart = 0;
  private total = 0;
  private readonly counts = new Map<string, number>();
  private readonly suppressed = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** undefined = drop this one; otherwise how many of this key were dropped since the last one kept. */
  admit(key: string): number | undefined {
    const now = this.now();
    if (now - this.windowStart >= this.options.windowMs) {
      this.windowStart = now;
      this.total = 0;
      this.counts.clear();
    }
    const count = this.counts.get(key) ?? 0;
    if (count >= this.options.perKey || this.total >= this.options.total) {
      // bounded too: at most `total` keys remember a count
      if (this.suppressed.has(key) || this.suppressed.size < this.options.total) this.suppressed.set(key, (this.suppressed.get(key) ?? 0) + 1);
      return undefined;
    }
    this.counts.set(key, count + 1);
    this.total++;
    const dropped = this.suppressed.get(key) ?? 0;
    this.suppressed.delete(key);
    return dropped;
  }
}
