import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
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

/** A fixed one-minute window per key on the injected clock, bounded like the plugin's own LRU store. */
function clockStore(clock: Clock): new () => FastifyRateLimitStore {
  const windows = new Map<string, { count: number; startMs: number }>();
  return class ClockStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (window === undefined || window.startMs + timeWindow <= now) window = { count: 0, startMs: now };
      window.count += 1;
      // Re-inserted, so Map order is least recently used first.
      windows.delete(key);
      windows.set(key, window);
      if (windows.size > MAX_TRACKED_KEYS) windows.delete(windows.keys().next().value as string);
      callback(null, { current: window.count, ttl: window.startMs + timeWindow - now });
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Limits requests per API key (`@fastify/rate-limit`): past the budget a request is 429 with
 * `Retry-After` (seconds) and `{"detail"}` naming the limit. Register before the routes.
 */
export async function installRateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const max = options.requestsPerMinute;
  await app.register(rateLimit, {
    global: true,
    max,
    timeWindow: WINDOW_MS,
    store: clockStore(options.clock ?? systemClock),
    keyGenerator: (request) => rateLimitKey(request) ?? 'uncounted',
    allowList: (request) => request.routeOptions.url === '/health' || rateLimitKey(request) === undefined,
    errorResponseBuilder: (_request, context) =>
      new TooManyRequestsError(
        `Rate limit exceeded: ${max} requests a minute per API key (requests_per_minute); retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s, or raise requests_per_minute in settings.json in the data folder and restart`,
      ),
  });
}
