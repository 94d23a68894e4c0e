import type { FastifyInstance, FastifyRequest } from 'fastify';
import { systemClock, type Clock } from '../base/clock.ts';
import { TooManyRequestsError } from '../base/errors.ts';
import { CONSOLE_TOKEN_HEADER } from '../contract/console.ts';
import { firstHeader, keyHashFor, presentedKey } from './presentedKey.ts';

export interface RateLimitOptions {
  /** Requests per minute per API key (and for the console token). */
  requestsPerMinute: number;
  /** The window's time source; tests move a fake one. */
  clock?: Clock;
}

const WINDOW_MS = 60_000;
/** Keys remembered at once; the least recently seen are forgotten first (a forgotten key starts a fresh window). */
const MAX_TRACKED_KEYS = 10_000;

/**
 * Whose budget a request spends: an API key (`X-API-Key` or `Authorization: Bearer`) by its SHA-256 (what the database stores, never the key
 * itself), the console by its token. Requests with neither are not counted: they reach only `/health`,
 * live-view pages (whose token is the credential), the console's files and 401s.
 */
export function rateLimitKey(request: FastifyRequest): string | undefined {
  if (firstHeader(request, CONSOLE_TOKEN_HEADER) !== undefined) return 'console';
  const key = presentedKey(request);
  return key === undefined ? undefined : `key:${keyHashFor(request, key)}`;
}

/**
 * Limits requests per API key: a fixed one-minute window per key on the injected clock, at most
 * {@link MAX_TRACKED_KEYS} keys remembered (the least recently seen forgotten first). A counted request
 * carries `x-ratelimit-limit`, `-remaining` and `-reset` (seconds); past the budget it is 429 with
 * `Retry-After` (seconds) and `{"detail"}` naming the limit. `/health`, requests with no credential and
 * requests matching no route are not counted.
 *
 * One callback `onRequest` hook (what `@fastify/rate-limit` did, without its per-request promises:
 * an async hook awaiting the key, the allow-list and the store, and the key worked out twice).
 * Register after the host guard (a refused Host is not counted) and before the routes.
 */
export function installRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  const max = options.requestsPerMinute;
  const clock = options.clock ?? systemClock;
  const windows = new Map<string, { count: number; startMs: number }>();
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404 || request.routeOptions.url === '/health') return done();
    const key = rateLimitKey(request);
    if (key === undefined) return done();
    const now = clock.now().getTime();
    let window = windows.get(key);
    if (window === undefined || window.startMs + WINDOW_MS <= now) window = { count: 0, startMs: now };
    window.count += 1;
    // Re-inserted, so Map order is least recently used first.
    windows.delete(key);
    windows.set(key, window);
    if (windows.size > MAX_TRACKED_KEYS) windows.delete(windows.keys().next().value as string);
    const resetSeconds = Math.ceil((window.startMs + WINDOW_MS - now) / 1000);
    reply.header('x-ratelimit-limit', max);
    reply.header('x-ratelimit-remaining', Math.max(0, max - window.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (window.count <= max) return done();
    reply.header('retry-after', resetSeconds);
    done(
      new TooManyRequestsError(
        `Rate limit exceeded: ${max} requests a minute per API key (requests_per_minute); retry in ${Math.max(1, resetSeconds)} s, or raise requests_per_minute in settings.json in the data folder and restart`,
      ),
    );
  });
}
