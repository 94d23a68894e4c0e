import { ConflictError, NotFoundError } from '../base/errors.ts';
import type { z } from 'zod';
import type { DeliveryListQuery, WebhookDelivery } from '../contract/webhook.ts';
import type { Store } from '../store/store.ts';
import type { DeliveryRow } from '../store/webhooks.ts';

/** A parsed `GET /webhooks/{org_id}/deliveries` query (defaults applied). */
export type DeliveryFilter = z.output<typeof DeliveryListQuery>;

/** What redelivery needs of the dispatcher: a nudge to look at the outbox now. */
export interface OutboxPoker {
  poke(): void;
}

/** The delivery log of an org (local-service.md §4): listing and "send again". */
export class WebhookDeliveryService {
  readonly #store: Store;
  readonly #dispatcher: OutboxPoker;

  constructor(store: Store, dispatcher: OutboxPoker) {
    this.#store = store;
    this.#dispatcher = dispatcher;
  }

  /** The org's deliveries with their attempts, newest first. */
  list(orgId: string, query: DeliveryFilter): { deliveries: WebhookDelivery[]; total: number } {
    const { rows, total } = this.#store.webhooks.list({
      orgId,
      jobId: query.job_id,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    return { deliveries: rows.map((row) => this.#toDelivery(row)), total };
  }

  /**
   * Queues a finished delivery again: same id and body, a fresh set of retries, sent as soon as the
   * dispatcher gets to it. 404 for another org's or an unknown delivery; 409 while it is still pending.
   */
  redeliver(orgId: string, deliveryId: string): WebhookDelivery {
    const row = this.#store.webhooks.get(deliveryId);
    if (!row || row.org_id !== orgId) throw new NotFoundError('Delivery not found');
    if (!this.#store.webhooks.requeue(row.id)) throw new ConflictError('Delivery is still pending; it will be retried');
    this.#dispatcher.poke();
    const requeued = this.#store.webhooks.get(row.id);
    if (!requeued) throw new NotFoundError('Delivery not found');
    return this.#toDelivery(requeued);
  }

  // org_id, job_seq and the raw body stay internal: the body goes out parsed, as `payload`.
  #toDelivery(row: DeliveryRow): WebhookDelivery {
    return {
      id: row.id,
      job_id: row.job_id,
      event_type: row.event_type,
      url: row.url,
      status: row.status,
      attempts: row.attempts,
      next_attempt_at: row.next_attempt_at,
      last_status_code: row.last_status_code,
      last_error: row.last_error,
      created_at: row.created_at,
      updated_at: row.updated_at,
      delivered_at: row.delivered_at,
      attempt_log: this.#store.webhooks.attempts(row.id).map((attempt) => ({
        attempt: attempt.attempt,
        started_at: attempt.started_at,
        duration_ms: attempt.duration_ms,
        status_code: attempt.status_code,
        error: attempt.error,
      })),
      payload: JSON.parse(row.body) as Record<string, unknown>,
    };
  }
}
