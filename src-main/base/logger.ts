import { redactUrlsIn } from './urlRedaction.ts';

/** Minimal structured logger writing to stderr; stdout is reserved for machine-readable output. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[at] < ORDER[level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    write(`${new Date().toISOString()} ${at.toUpperCase()} ${message}${extra}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLogger: Logger = createLogger('silent');

/** Every form a secret may take in a log line, a JSON body or a URL: raw, URL-encoded (both space styles), JSON-escaped and base64 (standard and URL-safe). */
export function secretEncodings(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  const forms = [
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    JSON.stringify(value).slice(1, -1),
    // A JSON string that was itself put in JSON (an event's data logged as a field).
    JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/** Shorter values (a 1–3 character "secret") would redact ordinary text; they are not tracked. */
const MIN_SECRET_LENGTH = 4;

/**
 * The secrets this process has handled (credential passwords, TOTP seeds and codes, pushed codes):
 * `redact` replaces each of them, in every encoding, with `[redacted]`. One per app, shared by the
 * logger, job logs, events and results.
 */
export class SecretRedactor {
  readonly #forms = new Set<string>();

  /** Remembers a secret so every later line is cleaned of it. */
  add(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    for (const form of secretEncodings(value)) this.#forms.add(form);
  }

  /** `text` without any remembered secret, and with every URL's secret parameters and password replaced (base/urlRedaction.ts). */
  redact(text: string): string {
    let out = redactUrlsIn(text);
    if (this.#forms.size === 0) return out;
    // Longest first, so a form that contains another is replaced whole.
    for (const form of [...this.#forms].sort((a, b) => b.length - a.length))
      if (out.includes(form)) out = out.split(form).join('[redacted]');
    return out;
  }

  /** A JSON value with every string cleaned (keys too). */
  redactJson<T>(value: T): T {
    return this.#walk(value) as T;
  }

  #walk(value: unknown): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.#walk(item));
    if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redact(k), this.#walk(v)]));
    }
    // Errors and other objects are logged through their text.
    if (value instanceof Error) return this.redact(String(value));
    return value;
  }
}

/** A logger whose messages and fields pass through `redactor` before they are written. */
export function redactingLogger(inner: Logger, redactor: SecretRedactor): Logger {
  const clean = (fields?: Record<string, unknown>): Record<string, unknown> | undefined =>
    fields ? redactor.redactJson(fields) : fields;
  return {
    debug: (m, f) => inner.debug(redactor.redact(m), clean(f)),
    info: (m, f) => inner.info(redactor.redact(m), clean(f)),
    warn: (m, f) => inner.warn(redactor.redact(m), clean(f)),
    error: (m, f) => inner.error(redactor.redact(m), clean(f)),
  };
}
