import { isoNow } from '../base/clock.ts';
import { prepared, type Db } from './database.ts';
import { listPage } from './paging.ts';

export type WebhookEventType = 'completed' | 'error' | 'question';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookAttemptRow {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface DeliveryRow {
  id: string;
  org_id: string;
  job_id: string;
  job_seq: number;
  event_type: WebhookEventType;
  url: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface DeliveryListFilter {
  orgId: string;
  jobId?: string | undefined;
  status?: DeliveryStatus | undefined;
  limit: number;
  offset: number;
}

/** Webhook signing-key metadata (the secret is in the keychain) and the durable delivery outbox. */
export class WebhookRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  keyInfo(orgId: string): { prefix: string; created_at: string } | undefined {
    return prepared<[string], { prefix: string; created_at: string }>(
      this.#db,
      'SELECT prefix, created_at FROM webhook_keys WHERE org_id = ?',
    ).get(orgId);
  }

  setKey(orgId: string, prefix: string): void {
    prepared(
      this.#db,
      'INSERT INTO webhook_keys (org_id, prefix, created_at) VALUES (?, ?, ?) ON CONFLICT(org_id) DO UPDATE SET prefix = excluded.prefix, created_at = excluded.created_at',
    ).run(orgId, prefix, isoNow());
  }

  deleteKey(orgId: string): boolean {
    return prepared(this.#db, 'DELETE FROM webhook_keys WHERE org_id = ?').run(orgId).changes > 0;
  }

  /** Writes a delivery before its first attempt; `job_seq` keeps a job's events in order. */
  insertDelivery(delivery: Pick<DeliveryRow, 'id' | 'org_id' | 'job_id' | 'event_type' | 'url' | 'body'>): DeliveryRow {
    const now = isoNow();
    this.#db.transaction(() => {
      const seq =
        (prepared<[string], { n: number | null }>(
          this.#db,
          'SELECT MAX(job_seq) AS n FROM webhook_deliveries WHERE job_id = ?',
        ).get(delivery.job_id)?.n ?? 0) + 1;
      prepared(
        this.#db,
        `INSERT INTO webhook_deliveries (id, org_id, job_id, job_seq, event_type, url, body, status, attempts, next_attempt_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ).run(
        delivery.id,
        delivery.org_id,
        delivery.job_id,
        seq,
        delivery.event_type,
        delivery.url,
        delivery.body,
        now,
        now,
        now,
      );
    })();
    const row = this.get(delivery.id);
    if (!row) throw new Error('delivery vanished after insert');
    return row;
  }

  get(id: string): DeliveryRow | undefined {
    return prepared<[string], DeliveryRow>(this.#db, 'SELECT * FROM webhook_deliveries WHERE id = ?').get(id);
  }

  /** Pending deliveries first in line for their job (an earlier pending one of the same job blocks the rest). */
  firstInLine(): DeliveryRow[] {
    return prepared<[], DeliveryRow>(
      this.#db,
      `SELECT d.* FROM webhook_deliveries d
         WHERE d.status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.job_id = d.job_id AND e.status = 'pending' AND e.job_seq < d.job_seq)
         ORDER BY d.next_attempt_at, d.created_at`,
    ).all();
  }

  recordAttempt(
    deliveryId: string,
    attempt: WebhookAttemptRow,
    next: { status: DeliveryStatus; nextAttemptAt: string | null },
  ): void {
    const now = isoNow();
    this.#db.transaction(() => {
      prepared(
        this.#db,
        'INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(deliveryId, attempt.attempt, attempt.started_at, attempt.duration_ms, attempt.status_code, attempt.error);
      prepared(
        this.#db,
        `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?,
             updated_at = ?, delivered_at = CASE WHEN ? = 'succeeded' THEN ? ELSE delivered_at END WHERE id = ?`,
      ).run(next.status, next.nextAttemptAt, attempt.status_code, attempt.error, now, next.status, now, deliveryId);
    })();
  }

  /** Ends a pending delivery without an attempt (e.g. its signing key is gone). */
  fail(deliveryId: string, reason: string): void {
    prepared(
      this.#db,
      "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? WHERE id = ? AND status = 'pending'",
    ).run(reason, isoNow(), deliveryId);
  }

  /** Queues an ended delivery again with a fresh retry budget; false while it is still pending. */
  requeue(deliveryId: string): boolean {
    const now = isoNow();
    return (
      prepared(
        this.#db,
        "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE id = ? AND status != 'pending'",
      ).run(now, now, deliveryId).changes > 0
    );
  }

  attempts(deliveryId: string): WebhookAttemptRow[] {
    return prepared<[string], WebhookAttemptRow>(
      this.#db,
      'SELECT attempt, started_at, duration_ms, status_code, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY id',
    ).all(deliveryId);
  }

  list(filter: DeliveryListFilter): { rows: DeliveryRow[]; total: number } {
    return listPage<DeliveryRow>(
      this.#db,
      'webhook_deliveries',
      { org_id: filter.orgId, job_id: filter.jobId, status: filter.status },
      'created_at DESC, job_seq DESC',
      filter.limit,
      filter.offset,
    );
  }
}
