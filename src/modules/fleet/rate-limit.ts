// A bound on failed join attempts: at most `max` in any `windowMs`, counted over every joiner (a guess at a
// code from many addresses is still a guess). Pure apart from the clock it is given.
export class FailureWindow {
  private failures: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Whether another attempt may be checked now. */
  open(now: number): boolean {
    this.failures = this.failures.filter((t) => now - t < this.windowMs);
    return this.failures.length < this.max;
  }

  fail(now: number): void {
    this.failures.push(now);
  }

  /** Milliseconds until an attempt may be checked again. */
  retryAfterMs(now: number): number {
    return this.open(now) ? 0 : this.windowMs - (now - this.failures[0]!);
  }
}
