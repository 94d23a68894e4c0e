import { OrgIdParam } from '../../contract/common.ts';
import {
  DeliveryList, DeliveryListQuery, DeliveryParams, WebhookDelivery, WebhookKeyCreated, WebhookKeyRevoked, WebhookKeyStatus,
  type WebhookDelivery as Delivery,
} from '../../contract/webhook.ts';
import { ConflictError, NotFoundError } from '../../base/errors.ts';
import type { Store } from '../../store/store.ts';
import type { DeliveryRow } from '../../store/webhooks.ts';
import type { WebhookDispatcher } from '../../webhooks/webhookDispatcher.ts';
import type { WebhookKeyService } from '../../webhooks/webhookKeys.ts';
import type { RouteTable } from '../routeTable.ts';

// org_id, job_seq and the raw body stay internal: the body goes out parsed, as `payload`.
function toDelivery(store: Store, row: DeliveryRow): Delivery {
  return {
    id: row.id, job_id: row.job_id, event_type: row.event_type, url: row.url, status: row.status, attempts: row.attempts,
    next_attempt_at: row.next_attempt_at, last_status_code: row.last_status_code, last_error: row.last_error,
    created_at: row.created_at, updated_at: row.updated_at, delivered_at: row.delivered_at,
    attempt_log: store.webhooks.attempts(row.id).map((attempt) => ({
      attempt: attempt.attempt, started_at: attempt.started_at, duration_ms: attempt.duration_ms, status_code: attempt.status_code, error: attempt.error,
    })),
    payload: JSON.parse(row.body) as Record<string, unknown>,
  };
}

/** Signing key management and the delivery log (local-service.md §4). */
export function addWebhookRoutes(routes: RouteTable, store: Store, keys: WebhookKeyService, dispatcher: WebhookDispatcher): void {
  routes.add({
    method: 'POST', url: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Generate or rotate the webhook signing key (the secret is shown once)', auth: 'org',
    params: OrgIdParam, response: WebhookKeyCreated,
    handler: ({ params }) => keys.generate(params.org_id),
  });
  routes.add({
    method: 'GET', url: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Whether a signing key is configured (never the secret)', auth: 'org',
    params: OrgIdParam, response: WebhookKeyStatus,
    handler: ({ params }) => keys.status(params.org_id),
  });
  routes.add({
    method: 'DELETE', url: '/webhooks/:org_id/key', tag: 'webhooks', summary: 'Revoke the signing key: no webhooks are sent until a new one is generated', auth: 'org',
    params: OrgIdParam, response: WebhookKeyRevoked,
    handler: ({ params }) => keys.revoke(params.org_id),
  });
  routes.add({
    method: 'GET', url: '/webhooks/:org_id/deliveries', tag: 'webhooks', summary: 'Webhook deliveries with their attempts, newest first', auth: 'org',
    params: OrgIdParam, query: DeliveryListQuery, response: DeliveryList,
    handler: ({ params, query }) => {
      const { rows, total } = store.webhooks.list({ orgId: params.org_id, jobId: query.job_id, status: query.status, limit: query.limit, offset: query.offset });
      return { deliveries: rows.map((row) => toDelivery(store, row)), total };
    },
  });
  routes.add({
    method: 'POST', url: '/webhooks/:org_id/deliveries/:delivery_id/redeliver', tag: 'webhooks', summary: 'Send a delivery again (same id and body, a fresh set of retries)', auth: 'org',
    params: DeliveryParams, response: WebhookDelivery,
    handler: ({ params }) => {
      const row = store.webhooks.get(params.delivery_id);
      if (!row || row.org_id !== params.org_id) throw new NotFoundError('Delivery not found');
      if (!store.webhooks.requeue(row.id)) throw new ConflictError('Delivery is still pending; it will be retried');
      dispatcher.poke();
      const requeued = store.webhooks.get(row.id);
      if (!requeued) throw new NotFoundError('Delivery not found');
      return toDelivery(store, requeued);
    },
  });
}
