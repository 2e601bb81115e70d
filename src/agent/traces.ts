// Trace files: one NDJSON file per run in <home>/traces/<traceId>.ndjson. Every bus event that
// carries the run's traceId is a line {ts, traceId, seq, event, ...fields}; raw provider lines
// (the internal `provider_line` event) are redacted before they are written.
import { createReadStream, createWriteStream, existsSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { EventBus, BusEvent } from '../events/bus.ts';
import { redactSecrets, redactValues } from './redact.ts';

export const TRACE_ID_PATTERN = /^tr_[A-Za-z0-9_-]{8,64}$/;

export const traceFile = (dir: string, traceId: string) => join(dir, `${traceId}.ndjson`);

interface OpenTrace {
  stream: WriteStream;
  seq: number;
  /** The file's size when this run began, when it was there: the run appends to a trace closed before. */
  previousBytes: number | undefined;
}

export class TraceRecorder {
  private readonly open = new Map<string, OpenTrace>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly dir: string,
    bus: EventBus,
    private readonly secrets: () => readonly string[],
    /** Told of each trace once it is on disk (trace retention counts its size); awaited by end(). */
    private readonly onClosed: (traceId: string, previousBytes: number | undefined) => Promise<void> = async () => {},
  ) {
    this.unsubscribe = bus.subscribe((event) => this.record(event));
  }

  begin(traceId: string): void {
    if (!TRACE_ID_PATTERN.test(traceId)) throw new Error(`invalid trace id ${traceId}`);
    const file = traceFile(this.dir, traceId);
    this.open.set(traceId, { previousBytes: statSync(file, { throwIfNoEntry: false })?.size, stream: createWriteStream(file, { flags: 'a', mode: 0o600 }), seq: 0 });
  }

  /** Closes the file; resolves with the number of events written once they are on disk. */
  end(traceId: string): Promise<number> {
    const trace = this.open.get(traceId);
    if (!trace) return Promise.resolve(0);
    this.open.delete(traceId);
    return new Promise<void>((resolve) => trace.stream.end(resolve)).then(async () => {
      await this.onClosed(traceId, trace.previousBytes);
      return trace.seq;
    });
  }

  /** Whether the trace's run is still writing it. */
  isOpen(traceId: string): boolean {
    return this.open.has(traceId);
  }

  private record(event: BusEvent): void {
    const traceId = event.payload.traceId;
    if (typeof traceId !== 'string') return;
    const trace = this.open.get(traceId);
    if (!trace) return;
    const secrets = this.secrets();
    const fields =
      event.name === 'provider_line'
        ? { ...event.payload, line: redactSecrets(String(event.payload.line), secrets) }
        : event.payload;
    // A configured secret can also come back inside a normalized event (an MCP server echoing its env).
    trace.stream.write(`${redactValues(JSON.stringify({ ts: event.ts, seq: ++trace.seq, event: event.name, ...fields }), secrets)}\n`);
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await Promise.all([...this.open.keys()].map((id) => this.end(id)));
  }
}

/** One line of a trace file. */
export interface TraceEvent {
  ts: number;
  seq: number;
  event: string;
  [field: string]: unknown;
}

/** Reads one page of a trace file without loading the file into memory. */
export async function readTraceEvents(
  dir: string,
  traceId: string,
  offset: number,
  limit: number,
): Promise<{ events: TraceEvent[]; hasMore: boolean } | undefined> {
  const path = traceFile(dir, traceId);
  if (!existsSync(path)) return undefined;
  // node:readline loads with the first trace read, not with every start
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  const events: TraceEvent[] = [];
  let index = 0;
  let hasMore = false;
  for await (const line of lines) {
    if (!line) continue;
    if (index++ < offset) continue;
    if (events.length === limit) {
      hasMore = true;
      break;
    }
    events.push(JSON.parse(line) as TraceEvent);
  }
  lines.close();
  return { events, hasMore };
}
