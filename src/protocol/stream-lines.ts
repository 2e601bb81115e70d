// The newline-delimited JSON lines of POST /api/message and POST /api/command (spec §6
// "Streamed response lines"), and the sink that writes them to one HTTP response.
import type { ServerResponse } from 'node:http';

export type RunStatus = 'ok' | 'error' | 'stopped';

export type StreamLine =
  | { type: 'thinking'; content: string; traceId?: string }
  | { type: 'text'; content: string; traceId?: string }
  | { type: 'tool'; stepId: string; name: string; input: Record<string, unknown>; status: 'running' | 'ok' | 'error'; output?: string; traceId: string }
  | { type: 'done'; status: RunStatus; text: string; reason?: string; traceId?: string; messageId?: number };

export interface RunSink {
  write(line: StreamLine): void;
  end(): void;
}

export const NDJSON_HEADERS = {
  'Content-Type': 'application/x-ndjson; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Writes lines to a response. A client that goes away does not cancel anything: later lines are
 * dropped and the run goes on (its reply is still saved and published).
 */
export function responseSink(res: ServerResponse): RunSink {
  return {
    write(line) {
      if (!res.destroyed && !res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
    },
    end() {
      if (!res.destroyed && !res.writableEnded) res.end();
    },
  };
}

/** A sink that opens its target only when the first line is written (so a command can still fail with a plain JSON error before that). */
export function lazySink(open: () => RunSink): RunSink {
  let target: RunSink | undefined;
  return {
    write(line) {
      (target ??= open()).write(line);
    },
    end() {
      (target ??= open()).end();
    },
  };
}
