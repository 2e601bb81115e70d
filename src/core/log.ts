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

export function createLog(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Log {
  const at = (wanted: LogLevel) => rank(level) >= rank(wanted);
  return {
    level,
    error(message, err) {
      if (!at('error')) return;
      const detail = err instanceof Error ? `\n${err.stack ?? err.message}` : err === undefined ? '' : ` ${String(err)}`;
      write(`svc: ${message}${detail}\n`);
    },
    warn(message) {
      if (at('warn')) write(`svc: ${message}\n`);
    },
    info(message) {
      if (at('info')) write(`svc: ${message}\n`);
    },
  };
}
