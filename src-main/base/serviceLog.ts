import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createLogger, writeStderr, type Logger, type LogLevel, type LogWrite, type SecretRedactor } from './logger.ts';

/** One log file's size before it is rotated, and how many rotated files are kept (`portico.log.1` newest). */
export const LOG_FILE_MAX_BYTES = 5 * 1024 * 1024;
export const LOG_FILES_KEPT = 3;
/** Lines kept in memory when the log goes to stderr, for the console's view of it. */
const MEMORY_LINES = 1000;
/** The most of a file read back for a tail: 1,000 lines of a few hundred bytes. */
const TAIL_READ_BYTES = 512 * 1024;

/**
 * A size-rotated log file: `path` grows to `maxBytes`, then becomes `path.1` (`.1` becomes `.2`, …,
 * the oldest beyond `keep` is dropped) and a new `path` is started. Each line is written whole and at
 * once (synchronously, so what was logged before a crash is in the file); a failed write (disk full)
 * is dropped rather than stopping the service.
 */
export class RotatingLogFile {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  #fd: number | undefined;
  #size = 0;

  constructor(path: string, options: { maxBytes?: number; keep?: number } = {}) {
    this.path = path;
    this.#maxBytes = options.maxBytes ?? LOG_FILE_MAX_BYTES;
    this.#keep = options.keep ?? LOG_FILES_KEPT;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#open();
  }

  readonly write: LogWrite = (line) => {
    const bytes = Buffer.from(line, 'utf8');
    if (this.#size > 0 && this.#size + bytes.length > this.#maxBytes) this.#rotate();
    if (this.#fd === undefined) return;
    try {
      writeSync(this.#fd, bytes);
      this.#size += bytes.length;
    } catch {
      // Disk full or the file gone: this line is lost, the service goes on.
    }
  };

  /** The last `count` lines, oldest first, from this file and then the rotated ones as needed. */
  tail(count: number): string[] {
    const lines: string[] = [];
    for (let index = 0; index <= this.#keep && lines.length < count; index += 1) {
      const file = index === 0 ? this.path : `${this.path}.${index}`;
      lines.unshift(...lastLines(file, count - lines.length));
    }
    return lines;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): void {
    try {
      this.#fd = openSync(this.path, 'a', 0o600);
      this.#size = fstatSync(this.#fd).size;
    } catch {
      this.#fd = undefined;
    }
  }

  #rotate(): void {
    this.close();
    try {
      for (let index = this.#keep - 1; index >= 1; index -= 1) {
        if (exists(`${this.path}.${index}`)) renameSync(`${this.path}.${index}`, `${this.path}.${index + 1}`);
      }
      if (this.#keep > 0) renameSync(this.path, `${this.path}.1`);
    } catch {
      // A rename that failed leaves the old file to be appended to; rotation is tried again at the next line.
    }
    this.#open();
  }
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** The last `count` whole lines of `file` (none if it is missing), reading at most TAIL_READ_BYTES from its end. */
function lastLines(file: string, count: number): string[] {
  if (count <= 0) return [];
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_READ_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    // A read that began mid-file begins mid-line: that piece is not a line.
    if (length < size) lines.shift();
    return lines.filter((line) => line !== '').slice(-count);
  } finally {
    closeSync(fd);
  }
}

/** The last lines written, in memory (the log goes to stderr, which cannot be read back). */
class MemoryTail {
  readonly #lines: string[] = [];

  push(line: string): void {
    this.#lines.push(line.endsWith('\n') ? line.slice(0, -1) : line);
    if (this.#lines.length > MEMORY_LINES) this.#lines.splice(0, this.#lines.length - MEMORY_LINES);
  }

  tail(count: number): string[] {
    return this.#lines.slice(-count);
  }
}

/** The service's log as a host set it up: where it goes, and its last lines for the console. */
export interface ServiceLog {
  logger: Logger;
  /** The file written (rotated beside it), or null when the log goes to stderr. */
  file: string | null;
  level: LogLevel;
  /** The last `count` lines as written (JSON), oldest first. */
  tail(count: number): string[];
  close(): void;
}

/**
 * The log of `serve` (`file` undefined: stderr, the last lines also kept in memory) or of the desktop
 * app (`file`: a rotating file in the data folder, read back for the tail).
 */
export function openServiceLog(level: LogLevel, file?: string, write: LogWrite = writeStderr): ServiceLog {
  if (file !== undefined) {
    const rotating = new RotatingLogFile(file);
    return {
      logger: createLogger(level, rotating.write),
      file,
      level,
      tail: (count) => rotating.tail(count),
      close: () => rotating.close(),
    };
  }
  const memory = new MemoryTail();
  return {
    logger: createLogger(level, (line) => {
      write(line);
      memory.push(line);
    }),
    file: null,
    level,
    tail: (count) => memory.tail(count),
    close: () => undefined,
  };
}

/** One line of the log as the console shows it. */
export interface LogEntry {
  time: string | null;
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

/**
 * Log lines as entries, cleaned again by `redactor` (a secret learned after a line was written is
 * hidden in it too). A line that is not one of pino's JSON objects is shown whole as its message.
 */
export function logEntries(lines: readonly string[], redactor: SecretRedactor): LogEntry[] {
  return lines.map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { time: null, level: 'unknown', msg: redactor.redact(line), fields: {} };
    const { time, level, msg, ...fields } = redactor.redactJson(parsed as Record<string, unknown>);
    return {
      time: typeof time === 'string' ? time : null,
      level: typeof level === 'string' ? level : 'unknown',
      msg: typeof msg === 'string' ? msg : '',
      fields,
    };
  });
}
