// Fixed-capacity ring buffer: the newest `capacity` items, oldest first. Used for console and network logs.
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;
  /** Items ever pushed, including those since overwritten. */
  total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    const end = (this.start + this.count) % this.capacity;
    this.items[end] = item;
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity;
    this.total++;
  }

  get size(): number {
    return this.count;
  }

  /** The last `limit` items (all by default), oldest first. */
  toArray(limit = this.count): T[] {
    const n = Math.max(0, Math.min(limit, this.count));
    const out: T[] = [];
    for (let i = this.count - n; i < this.count; i++) out.push(this.items[(this.start + i) % this.capacity] as T);
    return out;
  }

  clear(): void {
    this.items.fill(undefined);
    this.start = 0;
    this.count = 0;
  }
}
