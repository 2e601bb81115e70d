/** A fixed number of listener slots (spec §8: at most 256 active SSE listeners). */
export class Slots {
  private used = 0;

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Takes a slot; returns a release function that is safe to call more than once, or null when full. */
  acquire(): (() => void) | null {
    if (this.used >= this.capacity) return null;
    this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
    };
  }
}

export const MAX_SSE_LISTENERS = 256;
export const MAX_WS_LISTENERS = 256;
