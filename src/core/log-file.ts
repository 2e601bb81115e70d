// The log a service writes to its home: JSON lines in `<home>/logs/<name>.log`, rotated by size
// (`<name>.log.1` is the one before, up to `.3`). A service has no terminal, and not every platform
// keeps its output (Windows' Task Scheduler does not), so svc keeps its own: `svc service logs` reads it.
// Writes are synchronous appends: a service logs a few lines a minute, and a line written before a
// crash must be on disk.
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface LogEntry {
  ts: string;
  level: string;
  msg: string;
}

export interface LogFileOptions {
  path: string;
  /** Past this size the file is rotated (default 5 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 3). */
  keep?: number;
}

export const LOG_FILE_MAX_BYTES = 5 * 1024 * 1024;
export const LOG_FILES_KEPT = 3;

/** One entry as its line: a trailing newline, and the message without the `svc: ` every stderr line has. */
export function formatLogLine(level: string, message: string, at = new Date()): string {
  const entry: LogEntry = { ts: at.toISOString(), level, msg: message.replace(/^svc: /, '').trimEnd() };
  return `${JSON.stringify(entry)}\n`;
}

/** The renames a rotation makes, oldest first so none overwrites a file still to be moved (`path.keep` is deleted). */
export function rotationRenames(path: string, keep: number): Array<[from: string, to: string]> {
  const renames: Array<[string, string]> = [];
  for (let n = keep - 1; n >= 1; n--) renames.push([`${path}.${n}`, `${path}.${n + 1}`]);
  renames.push([path, `${path}.1`]);
  return renames;
}

export class LogFile {
  private fd: number;
  private size: number;
  private readonly maxBytes: number;
  private readonly keep: number;

  constructor(private readonly options: LogFileOptions) {
    this.maxBytes = options.maxBytes ?? LOG_FILE_MAX_BYTES;
    this.keep = options.keep ?? LOG_FILES_KEPT;
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(level: string, message: string): void {
    const line = Buffer.from(formatLogLine(level, message));
    if (this.size > 0 && this.size + line.length > this.maxBytes) this.rotate();
    writeSync(this.fd, line);
    this.size += line.length;
  }

  close(): void {
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    rmSync(`${this.options.path}.${this.keep}`, { force: true });
    for (const [from, to] of rotationRenames(this.options.path, this.keep)) {
      try {
        renameSync(from, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = 0;
  }
}
