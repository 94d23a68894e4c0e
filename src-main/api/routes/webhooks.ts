import { OrgIdParam } from '../../contract/common.ts';
import { DeliveryList, DeliveryListQuery, DeliveryParams, WebhookDelivery, WebhookKeyCreated, WebhookKeyRevoked, WebhookKeyStatus } from '../../contract/webhook.ts';
import type { Store } from '../../store/store.ts';
import type { WebhookDispatcher } from '../../webhooks/webhookDispatcher.ts';
import { WebhookDeliveryService } from '../../webhooks/webhookDeliveries.ts';
import type { WebhookKeyService } from '../../webhooks/webhookKeys.ts';
import type { RouteTable } from '../routeTable.ts';

/** Signing key management and the delivery log (local-service.md §4). */
export function addWebhookRoutes(routes: RouteTable, store: Store, keys: WebhookKeyService, dispatcher: WebhookDispatcher): void {
  const deliveries = new WebhookDeliveryService(store, dispatcher);
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
    handler: ({ params, query }) => deliveries.list(params.org_id, query),
  });
  routes.add({
    method: 'POST', url: '/webhooks/:org_id/deliveries/:delivery_id/redeliver', tag: 'webhooks', summary: 'Send a delivery again (same id and body, a fresh set of retries)', auth: 'org',
    params: DeliveryParams, response: WebhookDelivery,
    handler: ({ params }) => deliveries.redeliver(params.org_id, params.delivery_id),
  });
}
