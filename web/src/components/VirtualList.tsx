// A virtualized vertical list with rows of unknown, changing heights (chat messages that stream,
// images that load, code that wraps). Only the rows near the viewport are in the DOM; the others
// are accounted for by measured (or estimated) heights.
//
// Scroll position is kept by an anchor, not by the browser: before each render the list notes
// which row is at the top of the viewport and how far into it the viewport starts; after the
// render it puts that row back at the same place. So rows loaded above (older history), or rows
// above that grow when measured, never move what the user is reading. When the user is at the
// bottom, the list sticks to the bottom instead (a streaming answer stays in view).
import { Component, createRef, type ComponentChild } from 'preact';

export interface VirtualListProps<T> {
  items: T[];
  keyOf(item: T): string;
  /** A guess of the row's height before it has been measured. */
  estimate(item: T, width: number): number;
  renderItem(item: T): ComponentChild;
  /** Changing it forgets measurements and goes to the bottom (another session was loaded). */
  resetKey: unknown;
  /** Bring this row near the top of the viewport (seq: a new request each time). */
  focus?: { key: string; seq: number };
  /** False while the list does not reach the end (more rows load below): never stick to the bottom. */
  followEnd?: boolean;
  onNearTop?(): void;
  onNearBottom?(): void;
  onStickChange?(atBottom: boolean): void;
  /** Space above the first row and below the last, in px. */
  padTop?: number;
  padBottom?: number;
  label: string;
}

const OVERSCAN_PX = 800;
const NEAR_EDGE_PX = 1500;
const STICK_PX = 24;

export class VirtualList<T> extends Component<VirtualListProps<T>> {
  private scroller = createRef<HTMLDivElement>();
  private heights = new Map<string, number>();
  private estimates = new Map<string, number>();
  private keys: string[] = [];
  private offsets = new Float64Array(1);
  private stick = true;
  private anchor: { key: string; delta: number } | null = null;
  private target = 0;
  private lastTop = -1;
  private viewport = 0;
  private width = 0;
  private lastReset: unknown = undefined;
  private lastFocusSeq = 0;
  private pendingFocus: { key: string; seq: number } | null = null;
  private observer?: ResizeObserver;
  private sizeObserver?: ResizeObserver;

  override componentDidMount(): void {
    const el = this.scroller.current!;
    this.viewport = el.clientHeight;
    this.width = el.clientWidth;
    this.observer = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const target = entry.target as HTMLElement;
        const key = target.dataset.key;
        // A row that left the DOM reports a size of 0: keep its last real height.
        if (!target.isConnected) {
          this.observer?.unobserve(target);
          continue;
        }
        if (!key) continue;
        const height = entry.borderBoxSize?.[0]?.blockSize ?? target.offsetHeight;
        if (Math.abs((this.heights.get(key) ?? -1) - height) > 0.5) {
          this.heights.set(key, height);
          changed = true;
        }
      }
      if (changed) this.forceUpdate();
    });
    this.sizeObserver = new ResizeObserver(() => {
      const width = el.clientWidth;
      const height = el.clientHeight;
      if (width === this.width && height === this.viewport) return;
      if (width !== this.width) {
        // Text re-wraps: the measurements of rows not in the DOM are stale.
        this.heights.clear();
        this.estimates.clear();
      }
      this.width = width;
      this.viewport = height;
      this.forceUpdate();
    });
    this.sizeObserver.observe(el);
    el.addEventListener('scroll', this.onScroll, { passive: true });
    this.forceUpdate();
  }

  override componentWillUnmount(): void {
    this.observer?.disconnect();
    this.sizeObserver?.disconnect();
    this.scroller.current?.removeEventListener('scroll', this.onScroll);
  }

  private notifyStick(atBottom: boolean): void {
    queueMicrotask(() => this.props.onStickChange?.(atBottom));
  }

  private onScroll = () => {
    // Whether the user is at the bottom changes only by scrolling (ours or theirs), never by the
    // viewport or the content changing size: a growing answer or a shrinking viewport keeps
    // "following" the end.
    const el = this.scroller.current;
    if (el) {
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= STICK_PX;
      if (atBottom !== this.stick) {
        this.stick = atBottom;
        this.notifyStick(atBottom);
      }
    }
    this.forceUpdate();
  };

  /** Reads where the user is, against the layout of the previous render. */
  private capture(): void {
    const el = this.scroller.current;
    if (!el || this.keys.length === 0) return;
    const y = el.scrollTop;
    const index = Math.min(this.keys.length - 1, Math.max(0, this.find(y)));
    this.anchor = { key: this.keys[index]!, delta: y - this.offsets[index]! };
  }

  /** Index of the row containing y (binary search over offsets). */
  private find(y: number): number {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid]! <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Scrolls to the end (used by "jump to latest" and after sending). */
  scrollToBottom(): void {
    this.stick = true;
    this.anchor = null;
    this.notifyStick(true);
    this.forceUpdate();
  }

  override render(props: VirtualListProps<T>) {
    const { items, keyOf, estimate } = props;
    if (props.resetKey !== this.lastReset) {
      this.lastReset = props.resetKey;
      this.heights.clear();
      this.estimates.clear();
      this.stick = true;
      this.anchor = null;
      this.keys = [];
    } else {
      this.capture();
    }
    if (props.focus && props.focus.seq !== this.lastFocusSeq) {
      this.lastFocusSeq = props.focus.seq;
      this.pendingFocus = props.focus;
    }

    // layout
    const n = items.length;
    const keys = new Array<string>(n);
    const offsets = new Float64Array(n + 1);
    offsets[0] = props.padTop ?? 0;
    const width = this.width || 800;
    for (let i = 0; i < n; i++) {
      const item = items[i]!;
      const key = keyOf(item);
      keys[i] = key;
      let h = this.heights.get(key);
      if (h === undefined) {
        h = this.estimates.get(key);
        if (h === undefined) {
          h = estimate(item, width);
          this.estimates.set(key, h);
        }
      }
      offsets[i + 1] = offsets[i]! + h;
    }
    this.keys = keys;
    this.offsets = offsets;
    const total = offsets[n]! + (props.padBottom ?? 0);
    const viewport = this.viewport || 600;
    const maxTop = Math.max(0, total - viewport);

    // where the viewport goes
    let target: number;
    const focusIndex = this.pendingFocus ? keys.indexOf(this.pendingFocus.key) : -1;
    if (focusIndex !== -1) {
      this.stick = false;
      this.anchor = { key: keys[focusIndex]!, delta: -Math.min(120, viewport / 4) };
      this.pendingFocus = null;
      this.notifyStick(false);
    }
    if (this.stick && props.followEnd !== false) target = maxTop;
    else if (this.anchor) {
      const index = keys.indexOf(this.anchor.key);
      target = index === -1 ? this.scroller.current?.scrollTop ?? 0 : offsets[index]! + this.anchor.delta;
    } else target = this.scroller.current?.scrollTop ?? 0;
    target = Math.max(0, Math.min(maxTop, target));
    this.target = target;

    // which rows are rendered
    const y0 = target - OVERSCAN_PX;
    const y1 = target + viewport + OVERSCAN_PX;
    const first = n ? this.find(Math.max(0, y0)) : 0;
    let last = first;
    while (last < n && offsets[last]! < y1) last++;
    const rows: ComponentChild[] = [];
    for (let i = first; i < last; i++) {
      const item = items[i]!;
      rows.push(
        <div class="vl-row" key={keys[i]} data-key={keys[i]} style={{ top: `${offsets[i]}px` }}>
          {props.renderItem(item)}
        </div>,
      );
    }
    return (
      <div class="vl-scroller" ref={this.scroller} role="log" aria-label={props.label} aria-live="off" tabIndex={0}>
        <div class="vl-inner" style={{ height: `${total}px` }}>
          {rows}
        </div>
      </div>
    );
  }

  override componentDidUpdate(): void {
    const el = this.scroller.current;
    if (!el) return;
    const inner = el.querySelector('.vl-inner');
    if (inner && this.observer) for (const child of inner.children) this.observer.observe(child);
    // (no layout reads after the write: they would force a layout of the whole list each frame)
    if (Math.abs(this.lastTop - this.target) >= 1) el.scrollTop = this.target;
    this.lastTop = this.target;
    const top = this.target;
    const total = this.offsets[this.keys.length]! + (this.props.padBottom ?? 0);
    if (top < NEAR_EDGE_PX) this.props.onNearTop?.();
    if (total - top - this.viewport < NEAR_EDGE_PX) this.props.onNearBottom?.();
  }
}
