import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import { redactRequestTarget, redactUrlsIn } from './urlRedaction.ts';

/**
 * The service's logger: Fastify's own pino underneath (one JSON object a line: `time`, `level`, `msg`
 * and the fields), behind the small interface every call site uses. stdout is reserved for
 * machine-readable output; the hosts choose stderr or a rotating file (base/serviceLog.ts).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Where a logger writes: each call gets one whole line, `\n` included. */
export type LogWrite = (line: string) => void;

/** Writes a line to stderr; never throws. */
export const writeStderr: LogWrite = (line) => {
  // A hung-up terminal makes stderr throw (EIO/EPIPE); logging must never stop the service.
  try {
    process.stderr.write(line);
  } catch {
    // Nowhere left to say it.
  }
};

/** The pino behind each Logger made here (Fastify logs through it, api/server.ts) and where it writes. */
const pinos = new WeakMap<Logger, { pino: Pino; destination: DestinationStream }>();

function pinoLogger(level: LogLevel, destination: DestinationStream, streamWrite?: (line: string) => string): Pino {
  return pino(
    {
      level,
      // No pid or hostname in every line: one service per data folder, and the file stays on this machine.
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // What Fastify passes when it logs a request or a reply: the method and the target without its
      // secret parameters (a relative `/path?token=…` has no scheme for the line's URL redaction to find).
      serializers: {
        req: (req: { method?: unknown; url?: unknown }) => ({
          method: req.method,
          url: typeof req.url === 'string' ? redactRequestTarget(req.url) : undefined,
        }),
        res: (res: { statusCode?: unknown }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
      ...(streamWrite && { hooks: { streamWrite } }),
    },
    destination,
  );
}

function wrap(
  logger: Pino,
  destination: DestinationStream,
  clean: (fields: Record<string, unknown>) => Record<string, unknown> = (f) => f,
): Logger {
  const at =
    (method: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (fields === undefined) logger[method](message);
      else logger[method](clean(fields), message);
    };
  const wrapped: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  pinos.set(wrapped, { pino: logger, destination });
  return wrapped;
}

/** A logger writing pino's JSON lines at `level` and above to `write` (default: stderr). */
export function createLogger(level: LogLevel = 'info', write: LogWrite = writeStderr): Logger {
  const destination = { write };
  return wrap(pinoLogger(level, destination), destination);
}

/** The pino a Logger made here writes through (undefined for any other Logger). */
export function pinoOf(logger: Logger): Pino | undefined {
  return pinos.get(logger)?.pino;
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
  /** The forms longest first, so a form that contains another is replaced whole; sorted once per add, not per string. */
  #longestFirst: readonly string[] = [];

  /** Remembers a secret so every later line is cleaned of it. */
  add(value: string): void {
    if (value.length < MIN_SECRET_LENGTH) return;
    const before = this.#forms.size;
    for (const form of secretEncodings(value)) this.#forms.add(form);
    if (this.#forms.size !== before) this.#longestFirst = [...this.#forms].sort((a, b) => b.length - a.length);
  }

  /** `text` without any remembered secret, and with every URL's secret parameters and password replaced (base/urlRedaction.ts). */
  redact(text: string): string {
    let out = redactUrlsIn(text);
    for (const form of this.#longestFirst) if (out.includes(form)) out = out.split(form).join('[redacted]');
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

/**
 * A logger whose every line passes through `redactor` before it is written. Over a Logger made here,
 * the redaction is pino's own last step (`hooks.streamWrite`): each JSON line is parsed, every string
 * in it (keys, values, `msg`, Fastify's request and error fields) cleaned, and written again — so
 * what Fastify itself logs through `pinoOf(logger)` is cleaned too. Fields are first made JSON (an
 * Error becomes its text, which pino would otherwise write as `{}`).
 */
export function redactingLogger(inner: Logger, redactor: SecretRedactor): Logger {
  const clean = (fields: Record<string, unknown>): Record<string, unknown> => redactor.redactJson(fields);
  const base = pinos.get(inner);
  if (base === undefined) {
    return {
      debug: (m, f) => inner.debug(redactor.redact(m), f && clean(f)),
      info: (m, f) => inner.info(redactor.redact(m), f && clean(f)),
      warn: (m, f) => inner.warn(redactor.redact(m), f && clean(f)),
      error: (m, f) => inner.error(redactor.redact(m), f && clean(f)),
    };
  }
  const redactLine = (line: string): string => `${JSON.stringify(redactor.redactJson(JSON.parse(line)))}\n`;
  const level = base.pino.level as LogLevel;
  return wrap(pinoLogger(level, base.destination, redactLine), base.destination, clean);
}
