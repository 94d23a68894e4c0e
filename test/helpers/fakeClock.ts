import type { Clock, TimerHandle } from '../../src-main/base/clock.ts';

interface FakeTimer {
  readonly dueAt: number;
  /** Creation order: timers due at the same instant fire in the order they were set, as Node's do. */
  readonly seq: number;
  readonly fn: () => void;
}

// Far ahead of the wall clock, so rows the store stamped with real time are already in the past.
const DEFAULT_START = Date.parse('2100-01-01T00:00:00.000Z');

/**
 * A manual Clock: time stands still until the test moves it, and timers fire only then, in due
 * order, each with `now()` at its own due time.
 */
export class FakeClock implements Clock {
  #nowMs: number;
  #seq = 0;
  readonly #timers = new Map<TimerHandle, FakeTimer>();

  constructor(start: Date | number = DEFAULT_START) {
    this.#nowMs = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.#nowMs);
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {} as TimerHandle;
    this.#seq += 1;
    this.#timers.set(handle, { dueAt: this.#nowMs + Math.max(0, ms), seq: this.#seq, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle !== undefined) this.#timers.delete(handle);
  }

  /** Moves time forward by `ms`, firing every timer due on the way (including ones those timers set); returns how many fired. */
  advance(ms: number): number {
    const target = this.#nowMs + ms;
    let fired = 0;
    for (let next = this.#soonest(target); next; next = this.#soonest(target)) {
      this.#fire(next);
      fired += 1;
    }
    this.#nowMs = target;
    return fired;
  }

  /** Moves time to the soonest pending timer and fires everything due then; false when nothing is pending. */
  next(): boolean {
    const soonest = this.#soonest(Number.POSITIVE_INFINITY);
    if (!soonest) return false;
    this.advance(soonest[1].dueAt - this.#nowMs);
    return true;
  }

  /** Fires timers (and the timers they set) until none is left; a timer that keeps re-arming fails after `limit`. */
  runUntilIdle(limit = 1000): number {
    let fired = 0;
    while (this.next()) {
      fired += 1;
      if (fired > limit) throw new Error(`timers still pending after ${limit} rounds; something re-arms forever`);
    }
    return fired;
  }

  /** Milliseconds from now until each pending timer, soonest first. */
  pending(): number[] {
    return [...this.#timers.values()].sort(byDue).map((timer) => timer.dueAt - this.#nowMs);
  }

  #soonest(notAfter: number): [TimerHandle, FakeTimer] | undefined {
    let best: [TimerHandle, FakeTimer] | undefined;
    for (const entry of this.#timers) {
      if (entry[1].dueAt <= notAfter && (!best || byDue(entry[1], best[1]) < 0)) best = entry;
    }
    return best;
  }

  #fire([handle, timer]: [TimerHandle, FakeTimer]): void {
    this.#timers.delete(handle);
    this.#nowMs = Math.max(this.#nowMs, timer.dueAt);
    timer.fn();
  }
}

function byDue(a: FakeTimer, b: FakeTimer): number {
  return a.dueAt - b.dueAt || a.seq - b.seq;
}
