import { systemClock, timeoutSignal, type Clock, type TimerHandle } from '../base/clock.ts';
import type { Logger } from '../base/logger.ts';
import type { DeliveryRow } from '../store/webhooks.ts';
import type { Store } from '../store/store.ts';
import { signBody } from './signature.ts';
import { stampedForSending } from './timestamp.ts';
import type { WebhookKeyService } from './webhookKeys.ts';

export interface DispatcherOptions {
  /** The receiver must answer within this (§6.7: 10 s). */
  timeoutMs?: number;
  /** Delays before retry 1, 2, 3 (§6.7: 1 s, 3 s, 9 s). */
  retryDelaysMs?: readonly number[];
  /** Attempts in flight at once across all jobs. */
  concurrency?: number;
  userAgent: string;
  /** Decides when retries are due and when the deadline passes; tests pass a fake one. */
  clock?: Clock;
}

const DEFAULT_RETRY_DELAYS_MS = [1000, 3000, 9000] as const;

/**
 * Sends the durable outbox: every pending delivery row is attempted when due, one at a time per
 * job (so a job's events arrive in order), retried after 1 s, 3 s and 9 s, and resumed after a
 * restart from what the database says.
 */
export class WebhookDispatcher {
  readonly #store: Store;
  readonly #keys: WebhookKeyService;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #retryDelaysMs: readonly number[];
  readonly #concurrency: number;
  readonly #userAgent: string;
  readonly #clock: Clock;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #shutdown = new AbortController();
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(store: Store, keys: WebhookKeyService, logger: Logger, options: DispatcherOptions) {
    this.#store = store;
    this.#keys = keys;
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.#concurrency = options.concurrency ?? 8;
    this.#userAgent = options.userAgent;
    this.#clock = options.clock ?? systemClock;
  }

  /** Looks at the outbox now (after a new delivery, at start, after an attempt). */
  poke(): void {
    if (this.#closed) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => this.#tick(), 0);
  }

  #tick(): void {
    if (this.#closed) return;
    const now = this.#clock.now().getTime();
    let nextAt = Number.POSITIVE_INFINITY;
    for (const row of this.#store.webhooks.firstInLine()) {
      if (this.#inFlight.has(row.id)) continue;
      const dueAt = Date.parse(row.next_attempt_at ?? row.created_at);
      if (dueAt > now) {
        nextAt = Math.min(nextAt, dueAt);
        continue;
      }
      if (this.#inFlight.size >= this.#concurrency) break;
      const attempt = this.#attempt(row).finally(() => {
        this.#inFlight.delete(row.id);
        this.poke();
      });
      this.#inFlight.set(row.id, attempt);
    }
    if (Number.isFinite(nextAt)) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = this.#clock.setTimeout(() => this.#tick(), Math.max(0, nextAt - now));
    }
  }

  async #attempt(row: DeliveryRow): Promise<void> {
    const secret = await this.#keys.secret(row.org_id);
    if (secret === undefined) {
      this.#store.webhooks.fail(
        row.id,
        "The organization's webhook signing key was revoked before this delivery was sent",
      );
      return;
    }
    const attempt = row.attempts + 1;
    const started = this.#clock.now();
    // Every attempt is stamped with its own time of sending and signed over that body.
    const body = stampedForSending(row.body, started);
    const deadline = timeoutSignal(this.#clock, this.#timeoutMs);
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(row.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': this.#userAgent,
          'x-webhook-signature': signBody(body, secret),
          'x-webhook-id': row.id,
          'x-webhook-event': row.event_type,
          'x-webhook-attempt': String(attempt),
        },
        body,
        signal: AbortSignal.any([deadline.signal, this.#shutdown.signal]),
      });
      statusCode = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
    } catch (caught) {
      // Stopping mid-attempt leaves the row pending: the next start sends it again.
      if (this.#shutdown.signal.aborted) return;
      const name = (caught as Error | undefined)?.name;
      const cause = (caught as { cause?: { code?: string; message?: string } }).cause;
      error =
        name === 'TimeoutError'
          ? `no answer within ${Math.round(this.#timeoutMs / 1000)} s`
          : (cause?.code ?? cause?.message ?? String(caught));
    } finally {
      deadline.clear();
    }
    const finished = this.#clock.now();
    const durationMs = Math.max(0, finished.getTime() - started.getTime());
    const succeeded = error === null;
    const retryDelay = this.#retryDelaysMs[attempt - 1];
    const next = succeeded
      ? { status: 'succeeded' as const, nextAttemptAt: null }
      : retryDelay !== undefined
        ? { status: 'pending' as const, nextAttemptAt: new Date(finished.getTime() + retryDelay).toISOString() }
        : { status: 'failed' as const, nextAttemptAt: null };
    this.#store.webhooks.recordAttempt(
      row.id,
      { attempt, started_at: started.toISOString(), duration_ms: durationMs, status_code: statusCode, error },
      next,
    );
    if (!succeeded)
      this.#logger.info('webhook attempt failed', { delivery: row.id, attempt, error, next: next.status });
  }

  /** Resolves once no attempt is in flight (its outcome recorded); what is merely due later does not count. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** Stops sending; attempts in flight are abandoned and stay pending for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#clock.clearTimeout(this.#timer);
    this.#shutdown.abort();
    await this.idle();
  }
}
