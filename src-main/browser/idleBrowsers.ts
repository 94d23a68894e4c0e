import { systemClock, type Clock, type TimerHandle } from '../base/clock.ts';
import { silentLogger, type Logger } from '../base/logger.ts';

export interface IdleBrowsersOptions {
  /** How long nothing may be in use before the warm browsers close (`browsers_idle_minutes`, in ms). */
  idleMs: number;
  clock?: Clock;
  logger?: Logger;
}

/**
 * The warm browsers' idle close (docs/decisions.md, "Idle browsers close"): every job's browser lease and
 * every open `/public` session holds this while it lasts; once nothing has held it for `idleMs` (on the
 * injected clock), each registered closer runs — the jobs' shared browser and its spare context, the
 * sessions' warm pool. Nothing is reopened here: the next lease or session launches what it needs
 * (cold) and the warm ones are made again behind it.
 */
export class IdleBrowsers {
  readonly #idleMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #closers: (() => Promise<void>)[] = [];
  #holders = 0;
  #timer: TimerHandle | undefined;
  #closing: Promise<void> | undefined;
  #stopped = false;

  constructor(options: IdleBrowsersOptions) {
    this.#idleMs = Math.max(0, options.idleMs);
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Something to close when idle; it must leave its owner able to reopen on demand. */
  onIdle(close: () => Promise<void>): void {
    this.#closers.push(close);
  }

  /** How many leases and sessions hold the browsers now. */
  get holders(): number {
    return this.#holders;
  }

  /** The close under way, if any (a lease or a session waits for it before launching again). */
  get closing(): Promise<void> | undefined {
    return this.#closing;
  }

  /** Starts counting idle time (at start-up, when nothing holds yet). */
  start(): void {
    this.#arm();
  }

  /** Marks the browsers in use until the returned release is called (once; later calls do nothing). */
  hold(): () => void {
    this.#holders += 1;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holders -= 1;
      if (this.#holders === 0) this.#arm();
    };
  }

  /** No more idle closes (shutdown closes everything anyway); waits for one under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#closing;
  }

  #arm(): void {
    if (this.#stopped || this.#holders > 0) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => this.#fire(), this.#idleMs, { unref: true });
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#stopped || this.#holders > 0 || this.#closing) return;
    const closing = (async () => {
      const results = await Promise.allSettled(this.#closers.map((close) => close()));
      for (const result of results)
        if (result.status === 'rejected')
          this.#logger.warn('an idle browser did not close cleanly', { error: String(result.reason) });
      this.#logger.info('warm browsers closed: nothing used them for the idle period', {
        idle_minutes: this.#idleMs / 60_000,
      });
    })();
    // One close at a time (#fire returns early while one is under way).
    this.#closing = closing.finally(() => {
      this.#closing = undefined;
    });
  }
}
