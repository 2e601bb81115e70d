// Renders Markdown into its own DOM node, block by block (see markdown.ts). Preact renders the
// container once; its content is managed here so that a streaming answer only touches the blocks
// that changed, and a long text is rendered over several frames instead of in one long task.
import { Component } from 'preact';
import { BlockSplitter, enhanceCodeBlocks, plainHtml, renderBlock } from '../markdown.ts';

interface Props {
  text: string;
  /** More text will follow: the last block is still open. */
  streaming?: boolean;
  class?: string;
}

/** Finished blocks are grouped, so that a very long answer is a few hundred elements for layout, not thousands. */
const BLOCKS_PER_CHUNK = 24;
/** From this many groups on, groups out of view are skipped by layout and paint (content-visibility). */
const LONG_AFTER_CHUNKS = 4;
/**
 * Time one frame may spend rendering finished blocks, shared by every Markdown view on the page:
 * when a fast scroll mounts many rows at once, what does not fit goes to the next frames.
 */
const FRAME_BUDGET_MS = 10;
let budgetStart = -1;
function budgetLeft(): number {
  if (budgetStart < 0) {
    budgetStart = performance.now();
    requestAnimationFrame(() => {
      budgetStart = -1;
    });
  }
  return FRAME_BUDGET_MS - (performance.now() - budgetStart);
}
/** An open block this long is shown as plain text until it closes. */
const MAX_LIVE_MARKDOWN = 24_000;
/** An open block this long is re-rendered at most every TAIL_THROTTLE_MS. */
const THROTTLE_TAIL_OVER = 6_000;
const TAIL_THROTTLE_MS = 200;

export class Markdown extends Component<Props> {
  private root: HTMLDivElement | null = null;
  private splitter = new BlockSplitter();
  private queue: string[] = [];
  /** The element of the open last block (while streaming). */
  private tailEl: HTMLDivElement | null = null;
  /** The group finished blocks are appended to. */
  private chunk: HTMLDivElement | null = null;
  private chunks = 0;
  private tailSource = '';
  private tailRenderedAt = 0;
  private frame = 0;
  private tailTimer: ReturnType<typeof setTimeout> | undefined;
  private streaming = false;
  /** The complete text once fully rendered: the same text again costs nothing. */
  private sealed: string | null = null;

  override shouldComponentUpdate(next: Props): boolean {
    if (next.text !== this.props.text || next.streaming !== this.props.streaming) this.sync(next.text, Boolean(next.streaming));
    return next.class !== this.props.class;
  }

  override componentDidMount(): void {
    this.sync(this.props.text, Boolean(this.props.streaming));
  }

  override componentWillUnmount(): void {
    cancelAnimationFrame(this.frame);
    clearTimeout(this.tailTimer);
    this.root = null;
  }

  private setRoot = (el: HTMLDivElement | null) => {
    if (el) this.root = el;
  };

  private reset(): void {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.splitter = new BlockSplitter();
    this.queue = [];
    this.tailEl = null;
    this.chunk = null;
    this.chunks = 0;
    this.root?.classList.remove('md-long');
    this.tailSource = '';
    this.sealed = null;
    if (this.root) this.root.textContent = '';
  }

  private sync(text: string, streaming: boolean): void {
    if (!this.root) return;
    if (this.sealed !== null) {
      if (text === this.sealed) return;
      this.reset();
    }
    if (!text.startsWith(this.splitter.source)) this.reset();
    this.streaming = streaming;
    this.queue.push(...this.splitter.push(text));
    cancelAnimationFrame(this.frame);
    this.work();
  }

  private work = (): void => {
    this.frame = 0;
    const root = this.root;
    if (!root) return;
    while (this.queue.length) {
      if (budgetLeft() <= 0) {
        this.frame = requestAnimationFrame(this.work);
        return;
      }
      const source = this.queue.shift()!;
      const block = document.createElement('div');
      block.className = 'md-block';
      block.innerHTML = renderBlock(source);
      enhanceCodeBlocks(block);
      this.append(block);
    }
    this.renderTail(false);
  };

  /** Appends a finished block to the current group (a new group every BLOCKS_PER_CHUNK blocks). */
  private append(block: HTMLElement): void {
    if (!this.chunk || this.chunk.childElementCount >= BLOCKS_PER_CHUNK) {
      this.chunk = document.createElement('div');
      this.chunk.className = 'md-chunk';
      this.root!.insertBefore(this.chunk, this.tailEl);
      if (++this.chunks === LONG_AFTER_CHUNKS) this.root!.classList.add('md-long');
    }
    this.chunk.append(block);
  }

  private renderTail(fromTimer: boolean): void {
    const root = this.root;
    if (!root || this.sealed !== null || this.queue.length) return;
    const tail = this.splitter.tail().trim();
    if (this.streaming) {
      if (tail === this.tailSource) return;
      if (tail.length > THROTTLE_TAIL_OVER && !fromTimer) {
        const wait = this.tailRenderedAt + TAIL_THROTTLE_MS - performance.now();
        if (wait > 0) {
          this.tailTimer ??= setTimeout(() => {
            this.tailTimer = undefined;
            this.renderTail(true);
          }, wait);
          return;
        }
      }
    }
    if (tail) {
      if (!this.tailEl) {
        this.tailEl = document.createElement('div');
        this.tailEl.className = 'md-block md-tail';
        root.append(this.tailEl);
      }
      this.tailEl.innerHTML = !this.streaming
        ? renderBlock(tail)
        : tail.length > MAX_LIVE_MARKDOWN
          ? plainHtml(tail)
          : renderBlock(tail, { cache: false, highlight: tail.length < 4000 });
      enhanceCodeBlocks(this.tailEl);
    } else {
      this.tailEl?.remove();
      this.tailEl = null;
    }
    this.tailSource = tail;
    this.tailRenderedAt = performance.now();
    if (!this.streaming) {
      // Complete: the last block joins the others.
      this.sealed = this.splitter.source;
      if (this.tailEl) {
        this.tailEl.classList.remove('md-tail');
        this.append(this.tailEl);
      }
      this.tailEl = null;
      clearTimeout(this.tailTimer);
      this.tailTimer = undefined;
    }
  }

  override render(props: Props) {
    return <div class={`md${props.class ? ` ${props.class}` : ''}`} ref={this.setRoot} />;
  }
}
