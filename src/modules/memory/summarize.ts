// Optional summaries (memory.summarize.everyMessages, 0 = off): every N chat messages a short provider CLI
// run reads the messages since the last summary and answers 1–3 sentences, which the store appends to
// today's episode (episodes/YYYY-MM-DD.md) itself: the model writes no file. The counter and the
// watermark (the last message summarised) are kept in the database, so a restart neither forgets the
// count nor summarises the same messages twice.
import type { ProviderId } from '../../agent/providers/registry.ts';
import type { MemoryRepo } from './memory.repo.ts';

export interface SummarizeSettings {
  everyMessages: number;
  /** '' = the agent's provider. */
  provider: '' | ProviderId;
  model: string;
}

export interface TranscriptMessage {
  id: number;
  role: string;
  content: string;
}

export interface SummarizerDeps {
  repo: MemoryRepo;
  settings(): SummarizeSettings;
  /** The newest `limit` messages (of every chat session) with an id above `afterId`, oldest first. */
  messagesAfter(afterId: number, limit: number): TranscriptMessage[];
  /** Runs a prompt through a provider CLI. */
  run(prompt: string, settings: SummarizeSettings): { done: Promise<string>; stop(reason: string): void };
  /** Appends the entry to the episode at `path` (atomic, indexed, announced). */
  write(path: string, entry: string): Promise<void>;
  /** A summary was written or failed. */
  onChange(error?: string): void;
}

const KEY = { counter: 'summarize.counter', watermark: 'summarize.watermark', lastRunAt: 'summarize.lastRunAt' } as const;
/** Messages read for one summary, at most (each clipped to MAX_MESSAGE_CHARS). */
const MAX_MESSAGES = 60;
const MAX_MESSAGE_CHARS = 1500;
const MAX_SUMMARY_CHARS = 600;
/** After a failed run the next try waits this long (the count is kept). */
export const RETRY_AFTER_MS = 5 * 60_000;

const pad = (n: number) => String(n).padStart(2, '0');

/** Today's episode, by the server's local date. */
export const episodePath = (at: Date) => `episodes/${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}.md`;

export const episodeEntry = (sentences: string, at: Date) => `## ${pad(at.getHours())}:${pad(at.getMinutes())}\n\n${sentences}`;

export function summaryPrompt(messages: readonly TranscriptMessage[]): string {
  const transcript = messages.map((m) => `${m.role}: ${m.content.length > MAX_MESSAGE_CHARS ? `${m.content.slice(0, MAX_MESSAGE_CHARS)}…` : m.content}`).join('\n\n');
  return [
    'You keep the diary of a conversation between a user and an AI agent. Below are its newest messages.',
    'Write 1 to 3 short sentences recording what is worth remembering later: decisions, facts about the user and their projects, what was done.',
    'Write in the language of the conversation. Answer with the sentences only, no heading and no list. If nothing is worth keeping, answer SKIP.',
    'Do not use any tools.',
    '',
    '<messages>',
    transcript,
    '</messages>',
  ].join('\n');
}

/** The sentences to keep from a model's answer (at most 3), or undefined for SKIP / nothing. */
export function cleanSummary(answer: string): string | undefined {
  const flat = answer
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/^\s*(?:[-*]|\d+\.)\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim()
    // straight and curly quotes (escaped: the bundle is ASCII, scripts/build.mjs)
    .replace(/^["'\u201c\u201d]+|["'\u201c\u201d]+$/g, '');
  if (!flat || /^SKIP\b/i.test(flat)) return undefined;
  // sentence ends, also the CJK full stop, exclamation and question marks (。！？)
  const sentences = flat.match(/[^.!?\u3002\uff01\uff1f]+(?:[.!?\u3002\uff01\uff1f]+|$)/g) ?? [flat];
  const kept = sentences.slice(0, 3).join('').trim();
  return kept.length > MAX_SUMMARY_CHARS ? `${kept.slice(0, MAX_SUMMARY_CHARS - 1).trimEnd()}…` : kept;
}

export class Summarizer {
  private running?: { stop(reason: string): void; promise: Promise<void> };
  private retryAfter = 0;
  private closed = false;

  constructor(private readonly deps: SummarizerDeps) {}

  status(): { everyMessages: number; counter: number; watermark: number; lastRunAt: number | null } {
    const { repo } = this.deps;
    const lastRunAt = repo.getState(KEY.lastRunAt);
    return { everyMessages: this.deps.settings().everyMessages, counter: repo.getState(KEY.counter), watermark: repo.getState(KEY.watermark), lastRunAt: lastRunAt || null };
  }

  /** A chat message was saved: count it, and summarise when the count is reached. */
  onMessage(message: { id: number; role: string; replaces?: number }): void {
    const every = this.deps.settings().everyMessages;
    // a queued message that moved behind the answers is the same message, not a new one
    if (!every || this.closed || message.role === 'system' || message.replaces !== undefined) return;
    const counter = this.deps.repo.getState(KEY.counter) + 1;
    this.deps.repo.setState({ [KEY.counter]: counter });
    if (counter >= every && !this.running && Date.now() >= this.retryAfter) this.start();
  }

  /** Resolves when the running summary (if any) has ended. */
  idle(): Promise<void> {
    return this.running?.promise ?? Promise.resolve();
  }

  private start(): void {
    const { repo } = this.deps;
    const settings = this.deps.settings();
    const counted = repo.getState(KEY.counter);
    const messages = this.deps.messagesAfter(repo.getState(KEY.watermark), Math.min(MAX_MESSAGES, Math.max(settings.everyMessages, 2)));
    if (!messages.length) {
      repo.setState({ [KEY.counter]: 0 });
      return;
    }
    const run = this.deps.run(summaryPrompt(messages), settings);
    const promise = (async () => {
      try {
        const sentences = cleanSummary(await run.done);
        const at = new Date();
        if (sentences) await this.deps.write(episodePath(at), episodeEntry(sentences, at));
        // messages counted while the run ran stay counted for the next summary
        repo.setState({
          [KEY.watermark]: messages.at(-1)!.id,
          [KEY.counter]: Math.max(0, repo.getState(KEY.counter) - counted),
          [KEY.lastRunAt]: Date.now(),
        });
        this.deps.onChange();
      } catch (err) {
        if (this.closed) return;
        this.retryAfter = Date.now() + RETRY_AFTER_MS;
        this.deps.onChange(`summary not written: ${(err as Error).message}`);
      } finally {
        this.running = undefined;
      }
    })();
    this.running = { stop: run.stop, promise };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.running?.stop('the server is shutting down');
    await this.running?.promise;
  }
}
