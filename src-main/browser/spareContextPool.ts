import type { BrowserContext, Page } from 'playwright-core';

import { silentLogger, type Logger } from '../base/logger.ts';

/** A fresh context with its first page, made before anyone asked for it. */
export interface SpareContext {
  context: BrowserContext;
  page: Page;
}

/**
 * One spare context kept ready so a lease skips context creation. It is handed out once (`take`);
 * the owner calls `refill()` when making the next one cannot compete with a running job. A spare whose
 * browser died or whose page closed is never handed out: it is closed and `take` returns undefined.
 */
export class SpareContextPool {
  readonly #make: () => Promise<SpareContext>;
  readonly #logger: Logger;
  #pending: Promise<SpareContext | undefined> | undefined;
  #closed = false;

  /** `make` opens one context (and its page) in whatever browser is current when it is called. */
  constructor(make: () => Promise<SpareContext>, logger: Logger = silentLogger) {
    this.#make = make;
    this.#logger = logger;
  }

  /** Whether a spare is ready or being made. */
  get stocked(): boolean {
    return this.#pending !== undefined;
  }

  /** Starts making a spare unless one is ready or being made (or the pool is closed); a failure only leaves the pool empty. */
  refill(): void {
    if (this.#closed || this.#pending) return;
    this.#pending = (async () => {
      try {
        return await this.#make();
      } catch (error) {
        this.#logger.debug('spare context not prepared', { error: String(error) });
        return undefined;
      }
    })();
  }

  /** Resolves once the spare being made (if any) is ready or has failed. */
  async ready(): Promise<void> {
    await this.#pending;
  }

  /** The spare, handed out once; undefined when there is none or it is no longer usable. */
  async take(): Promise<SpareContext | undefined> {
    const pending = this.#pending;
    if (!pending) return undefined;
    this.#pending = undefined;
    const spare = await pending;
    if (spare?.context.browser()?.isConnected() && !spare.page.isClosed()) return spare;
    await spare?.context.close().catch(() => undefined);
    return undefined;
  }

  /** Closes the spare (waiting for one being made); the next `refill()` makes a new one. */
  async drop(): Promise<void> {
    const pending = this.#pending;
    this.#pending = undefined;
    await (await pending)?.context.close().catch(() => undefined);
  }

  /** Drops the spare and refuses every later refill. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.drop();
  }
}
