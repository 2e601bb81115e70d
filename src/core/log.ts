// The service's log: one line per entry on stderr, `svc: <message>`, at or above the level set by
// SVC_LOG_LEVEL (or the server's option): error, warn (the default), info, or silent. Small on
// purpose: a logging framework would be most of what `svc serve` loads at start.
export const LOG_LEVELS = ['silent', 'error', 'warn', 'info'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Log {
  readonly level: LogLevel;
  error(message: string, err?: unknown): void;
  warn(message: string): void;
  info(message: string): void;
}

const rank = (level: LogLevel) => LOG_LEVELS.indexOf(level);

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value ?? '') ? (value as LogLevel) : fallback;
}

/** Where the process's log also goes, with each line's level: a service's log file (src/cli/service-log.ts). */
export type LogSink = (level: Exclude<LogLevel, 'silent'>, line: string) => void;
let sink: LogSink | undefined;

export function setLogSink(next: LogSink | undefined): void {
  sink = next;
}

/** A line the program prints for its user (`svc serve`'s start-up lines): on stdout, and in the log's sink. */
export function announce(line: string): void {
  console.log(line);
  sink?.('info', line);
}

/** An error the program prints for its user (a port in use, a failed stop): on stderr, and in the log's sink. */
export function complain(line: string): void {
  console.error(line);
  sink?.('error', line);
}

export function createLog(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Log {
  const at = (wanted: LogLevel) => rank(level) >= rank(wanted);
  const emit = (wanted: Exclude<LogLevel, 'silent'>, line: string) => {
    write(line);
    sink?.(wanted, line);
  };
  return {
    level,
    error(message, err) {
      if (!at('error')) return;
      const detail = err instanceof Error ? `\n${err.stack ?? err.message}` : err === undefined ? '' : ` ${String(err)}`;
      emit('error', `svc: ${message}${detail}\n`);
    },
    warn(message) {
      if (at('warn')) emit('warn', `svc: ${message}\n`);
    },
    info(message) {
      if (at('info')) emit('info', `svc: ${message}\n`);
    },
  };
}
