// The newline-delimited JSON answer of the routes that stream an agent run (POST /api/message and
// POST /api/command): headers, and the sink that writes stream lines to one response.
import type { FastifyReply } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { RunSink } from '../protocol/stream-lines.ts';

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

/** Takes the response over from Fastify and opens the stream (status 200, NDJSON headers). */
export function openNdjson(reply: FastifyReply, headers: Record<string, string> = {}): RunSink {
  reply.hijack();
  reply.raw.writeHead(200, { ...NDJSON_HEADERS, ...headers });
  // The status goes out now, not with the first line: a queued message may wait minutes for one.
  reply.raw.flushHeaders();
  reply.raw.socket?.setNoDelay(true);
  return responseSink(reply.raw);
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
