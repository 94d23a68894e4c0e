/**
 * Counts a job's active time (waiting for a human does not count) and fires `onExpire` when
 * the budget is spent.
 */
export class ActiveClock {
  readonly #budgetMs: number;
  readonly #onExpire: () => void;
  #spentMs = 0;
  #since: number | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(budgetMs: number, onExpire: () => void) {
    this.#budgetMs = budgetMs;
    this.#onExpire = onExpire;
  }

  resume(): void {
    if (this.#since !== undefined) return;
    this.#since = Date.now();
    this.#timer = setTimeout(this.#onExpire, Math.max(0, this.#budgetMs - this.#spentMs));
  }

  pause(): void {
    if (this.#since === undefined) return;
    this.#spentMs += Date.now() - this.#since;
    this.#since = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Active milliseconds so far. */
  get spentMs(): number {
    return this.#spentMs + (this.#since === undefined ? 0 : Date.now() - this.#since);
  }
}
