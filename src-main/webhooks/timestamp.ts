import { canonicalJson } from './canonicalJson.ts';

/**
 * `at` (default now) as ISO 8601 UTC with microseconds, e.g. 2026-11-21T06:10:00.123456Z. A Date holds
 * milliseconds; the three digits below them come from the high-resolution timer.
 */
export function isoMicros(at?: Date): string {
  const precise = performance.timeOrigin + performance.now();
  const ms = at ? at.getTime() : Math.floor(precise);
  const micros = Math.min(999, Math.floor((precise - Math.floor(precise)) * 1000));
  return new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}

/**
 * The body of one delivery attempt: the stored payload with `timestamp` set to the time of sending, so a
 * retry carries (and is signed over) its own time, as the interface says. Canonical JSON in, canonical out.
 */
export function stampedForSending(body: string, at: Date): string {
  const payload = JSON.parse(body) as Record<string, unknown>;
  payload.timestamp = isoMicros(at);
  return canonicalJson(payload);
}
