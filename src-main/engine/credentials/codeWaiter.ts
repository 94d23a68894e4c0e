import { systemClock, type Clock } from '../../base/clock.ts';
import type { CredentialRow } from '../../store/credentials.ts';

/** How long a job waits for a code before it asks a human (or fails): local-service.md §5.4. */
export const CODE_WAIT_MS = 60_000;

/** A sign-in link a mail carried instead of a code: opened in the job's browser, never typed. */
export interface MagicLink {
  link: string;
}

/** What a code source gives: a code to type, or (only when asked with `links`) a magic link to open. */
export type ReceivedCode = string | MagicLink;

export interface CodeWaitOptions {
  /** The waiter can use a magic link (the login flow opens it); without this, sources give codes only. */
  links?: boolean;
}

/**
 * One place a verification code can come from (pushed over the API, a mailbox, …). `next` resolves
 * with the first code for `credential` that arrived at or after `sinceIso`, or undefined when this
 * source has none to give; it must stop when `signal` aborts (another source won, or time ran out).
 * A source that finds a mail with only a sign-in link may resolve with `{link}` when `options.links`
 * is set and the link belongs to the credential's site (`service_url`'s origin, when it has one).
 */
export interface CodeSource {
  readonly name: string;
  next(
    credential: CredentialRow,
    sinceIso: string,
    signal: AbortSignal,
    options?: CodeWaitOptions,
  ): Promise<ReceivedCode | undefined>;
}

/**
 * The point where a job waits for a one-time code: every registered source is asked at once and
 * the first code wins. Register a source (e.g. the Gmail reader for `gmail_oauth_account_id`) with
 * `codeWaiter.register(source)` in the composition root, `src-main/app.ts`, next to the push inbox.
 */
export class CodeWaiter {
  readonly #sources: CodeSource[] = [];
  readonly #clock: Clock;

  constructor(sources: CodeSource[] = [], clock: Clock = systemClock) {
    this.#sources.push(...sources);
    this.#clock = clock;
  }

  register(source: CodeSource): void {
    this.#sources.push(source);
  }

  get sourceNames(): string[] {
    return this.#sources.map((source) => source.name);
  }

  /** The first code (or, with `options.links`, magic link) any source finds within `timeoutMs`, else undefined; `signal` (the job's) stops the wait early with its reason. */
  async wait(
    credential: CredentialRow,
    sinceIso: string,
    signal: AbortSignal,
    timeoutMs: number = CODE_WAIT_MS,
    options: CodeWaitOptions = {},
  ): Promise<ReceivedCode | undefined> {
    signal.throwIfAborted();
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = this.#clock.setTimeout(() => resolve(undefined), timeoutMs);
    });
    const aborted = new Promise<never>((_, reject) =>
      stop.signal.addEventListener('abort', () => reject(stop.signal.reason as Error), { once: true }),
    );
    // A source that gives up early must not end the wait: only a code, the timeout or the abort do.
    const found = this.#sources.map((source) =>
      source.next(credential, sinceIso, stop.signal, options).then(
        // A link given to a waiter that cannot open one counts as nothing.
        (code) =>
          code === undefined || (typeof code !== 'string' && !options.links) ? new Promise<never>(() => {}) : code,
        () => new Promise<never>(() => {}),
      ),
    );
    try {
      return await Promise.race([...found, timedOut, aborted]);
    } finally {
      this.#clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (!stop.signal.aborted) stop.abort(new DOMException('the wait for a code is over', 'AbortError'));
    }
  }
}
