import { systemClock, type Clock, type TimerHandle } from '../../base/clock.ts';

/**
 * Counts a job's active time (waiting for a human does not count) and fires `onExpire` when
 * the budget is spent.
 */
export class ActiveClock {
  readonly #budgetMs: number;
  readonly #onExpire: () => void;
  readonly #clock: Clock;
  #spentMs = 0;
  #since: number | undefined;
  #timer: TimerHandle | undefined;

  constructor(budgetMs: number, onExpire: () => void, clock: Clock = systemClock) {
    this.#budgetMs = budgetMs;
    this.#onExpire = onExpire;
    this.#clock = clock;
  }

  /** Starts (or restarts after a pause) counting; the expiry timer gets what is left of the budget. */
  resume(): void {
    if (this.#since !== undefined) return;
    this.#since = this.#clock.now().getTime();
    this.#timer = this.#clock.setTimeout(this.#onExpire, Math.max(0, this.#budgetMs - this.#spentMs));
  }

  /** Stops counting until the next `resume`; a paused clock never expires. */
  pause(): void {
    if (this.#since === undefined) return;
    this.#spentMs += this.#clock.now().getTime() - this.#since;
    this.#since = undefined;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Active milliseconds so far. */
  get spentMs(): number {
    return this.#spentMs + (this.#since === undefined ? 0 : this.#clock.now().getTime() - this.#since);
  }
}
