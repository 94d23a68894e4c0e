/** The time source; injected so tests can pin it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 in UTC with milliseconds, the timestamp format of every stored row. */
export function isoNow(clock: Clock = systemClock): string {
  return clock.now().toISOString();
}
