/** Now as ISO 8601 UTC with microseconds, e.g. 2026-11-21T06:10:00.123456Z. */
export function isoMicros(): string {
  const now = performance.timeOrigin + performance.now();
  const ms = Math.floor(now);
  const micros = Math.min(999, Math.floor((now - ms) * 1000));
  return new Date(ms).toISOString().replace('Z', `${String(micros).padStart(3, '0')}Z`);
}
