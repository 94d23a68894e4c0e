/** A minute of `timeout_minutes` (jobs, sessions, profile logins): always a real one; tests move the clock instead. */
export const MINUTE_MS = 60_000;

declare const timerBrand: unique symbol;

/** A pending timer of one Clock; only that clock can clear it. */
export type TimerHandle = { readonly [timerBrand]: true };

export interface TimerOptions {
  /** Let the process exit while this timer is pending (housekeeping nobody awaits). */
  unref?: boolean;
}

/** The time source and its timers; injected so tests move time by hand instead of sleeping. */
export interface Clock {
  now(): Date;
  /** Calls `fn` once, `ms` milliseconds from now. */
  setTimeout(fn: () => void, ms: number, options?: TimerOptions): TimerHandle;
  /** Cancels a timer; an undefined, fired or already cleared one is ignored. */
  clearTimeout(handle: TimerHandle | undefined): void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout: (fn, ms, options) => {
    const timer = setTimeout(fn, ms);
    if (options?.unref) timer.unref();
    return timer as unknown as TimerHandle;
  },
  clearTimeout: (handle) => clearTimeout(handle as unknown as NodeJS.Timeout | undefined),
};

/** ISO 8601 in UTC with milliseconds, the timestamp format of every stored row. */
export function isoNow(clock: Pick<Clock, 'now'> = systemClock): string {
  return clock.now().toISOString();
}

/**
 * `AbortSignal.timeout` on an injected clock: aborts with a `TimeoutError` after `ms`. Call `clear()`
 * once the guarded work is over, so a finished request leaves no timer behind.
 */
export function timeoutSignal(clock: Clock, ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = clock.setTimeout(
    () => controller.abort(new DOMException(`timed out after ${ms} ms`, 'TimeoutError')),
    ms,
  );
  return { signal: controller.signal, clear: () => clock.clearTimeout(timer) };
}
