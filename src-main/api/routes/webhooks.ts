import type { OperationsTagged } from '../../contract/operations.ts';
import type { Store } from '../../store/store.ts';
import type { WebhookDispatcher } from '../../webhooks/webhookDispatcher.ts';
import { WebhookDeliveryService } from '../../webhooks/webhookDeliveries.ts';
import type { WebhookKeyService } from '../../webhooks/webhookKeys.ts';
import type { Handlers } from '../operationTable.ts';

/** Signing key management and the delivery log (local-service.md §4). */
export function webhookHandlers(
  store: Store,
  keys: WebhookKeyService,
  dispatcher: WebhookDispatcher,
): Handlers<OperationsTagged<'webhooks'>> {
  const deliveries = new WebhookDeliveryService(store, dispatcher);
  return {
    createWebhookKey: ({ params }) => keys.generate(params.org_id),
    getWebhookKey: ({ params }) => keys.status(params.org_id),
    revokeWebhookKey: ({ params }) => keys.revoke(params.org_id),
    listDeliveries: ({ params, query }) => deliveries.list(params.org_id, query),
    redeliver: ({ params }) => deliveries.redeliver(params.org_id, params.delivery_id),
  };
}
