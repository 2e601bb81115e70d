// The live tool-step status of a run started from a chat (the channel's `toolStatus` setting): one
// message listing the run's latest tool steps, sent at the first step, edited as steps start and finish
// (at most once per STATUS_EVERY_MS, the last state always shown), deleted when the answer comes. The
// message is cosmetic: a send, edit or delete that fails is dropped, never the run's answer.
import type { StreamLine } from '../../protocol/stream-lines.ts';
import { stepSummary } from '../../protocol/step-summary.ts';

export const STATUS_EVERY_MS = 2000;
const SHOWN_STEPS = 5;
const SUMMARY_CHARS = 80;
const ICONS = { running: '⏳', ok: '✓', error: '✗' } as const;

export type ToolLine = Extract<StreamLine, { type: 'tool' }>;

/** How the status message reaches the chat. */
export interface StatusChannel {
  send(text: string): Promise<string>;
  edit(messageId: string, text: string): Promise<void>;
  remove(messageId: string): Promise<void>;
}

/** The step's gist (the field that says most, as the run record has it, else any text field), on one short line. */
function summary(input: Record<string, unknown>): string {
  const gist = stepSummary(input) || Object.values(input).find((v): v is string => typeof v === 'string' && v !== '') || '';
  const line = gist.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

/** The message for `steps` (oldest first): the last few, one line each. Plain text. */
export function statusText(steps: ToolLine[]): string {
  const shown = steps.slice(-SHOWN_STEPS);
  const earlier = steps.length - shown.length;
  return [
    'Working…',
    ...(earlier ? [`(${earlier} earlier step${earlier === 1 ? '' : 's'})`] : []),
    ...shown.map((s) => {
      const about = summary(s.input);
      return `${ICONS[s.status]} ${s.name}${about ? `: ${about}` : ''}`;
    }),
  ].join('\n');
}

export class ToolStatus {
  private readonly steps = new Map<string, ToolLine>();
  private messageId?: string;
  private shown = '';
  private lastAt = 0;
  private timer?: NodeJS.Timeout;
  /** Sends, edits and the delete, in order. */
  private chain: Promise<void> = Promise.resolve();
  private finished = false;

  constructor(
    private readonly channel: StatusChannel,
    private readonly everyMs = STATUS_EVERY_MS,
    private readonly now: () => number = Date.now,
  ) {}

  step(line: ToolLine): void {
    if (this.finished) return;
    // a step's end often comes without its input: keep the one it started with
    const input = Object.keys(line.input).length ? line.input : (this.steps.get(line.stepId)?.input ?? line.input);
    this.steps.set(line.stepId, { ...line, input });
    if (this.steps.size === 1 && this.lastAt === 0) {
      this.lastAt = this.now();
      this.enqueue();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.enqueue();
    }, Math.max(0, this.lastAt + this.everyMs - this.now()));
  }

  /** The answer is here: no more edits; the message goes away. */
  async finish(): Promise<void> {
    if (this.finished) return this.chain;
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.then(async () => {
      if (this.messageId) await this.channel.remove(this.messageId).catch(() => undefined);
    });
    return this.chain;
  }

  private enqueue(): void {
    this.chain = this.chain.then(() => this.show());
  }

  private async show(): Promise<void> {
    if (this.finished) return;
    const text = statusText([...this.steps.values()]);
    // Telegram refuses an edit that changes nothing
    if (text === this.shown) return;
    this.lastAt = this.now();
    try {
      if (this.messageId) await this.channel.edit(this.messageId, text);
      else this.messageId = await this.channel.send(text);
      this.shown = text;
    } catch {
      // the next step tries again
    }
  }
}
