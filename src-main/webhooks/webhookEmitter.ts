import type { Disposable } from '../base/emitter.ts';
import { newId } from '../base/ids.ts';
import type { Logger } from '../base/logger.ts';
import type { JobEvent } from '../contract/job.ts';
import type { WebhookPayload } from '../contract/webhook.ts';
import type { JobEvents } from '../engine/jobs/jobEvents.ts';
import type { JobService } from '../engine/jobs/jobService.ts';
import type { JobRecord } from '../store/jobs.ts';
import type { WebhookEventType } from '../store/webhooks.ts';
import type { Store } from '../store/store.ts';
import { canonicalJson } from './canonicalJson.ts';
import type { WebhookDispatcher } from './webhookDispatcher.ts';
import type { WebhookKeyService } from './webhookKeys.ts';
import { isoMicros } from './timestamp.ts';

/**
 * Turns job events into deliveries: `question` when a job asks, `completed` when it completes,
 * `error` when it fails or is cancelled — once per occurrence, only when the org has a signing key
 * and the portal a webhook_url. The row is written before the first attempt.
 */
export interface WebhookEmitterDeps {
  store: Store;
  jobs: JobService;
  keys: WebhookKeyService;
  dispatcher: WebhookDispatcher;
  events: JobEvents;
  logger: Logger;
}

export class WebhookEmitter {
  readonly #subscriptions: Disposable[];

  constructor(deps: WebhookEmitterDeps) {
    const { events } = deps;
    const emit = (job: JobRecord, type: WebhookEventType, event?: JobEvent): void => {
      try {
        this.#enqueue(deps, job, type, event);
      } catch (error) {
        deps.logger.error('could not queue a webhook', { job: job.id, type, error: String(error) });
      }
    };
    this.#subscriptions = [
      events.onDidChangeStatus((job) => {
        if (job.status === 'completed') emit(job, 'completed');
        else if (job.status === 'failed' || job.status === 'cancelled') emit(job, 'error');
      }),
      events.onDidAppendEvent(({ job, event }) => {
        if (event.type === 'question') emit(job, 'question', event);
      }),
    ];
  }

  #enqueue(deps: WebhookEmitterDeps, job: JobRecord, type: WebhookEventType, event?: JobEvent): void {
    if (!deps.keys.hasKey(job.org_id)) return;
    // The portal's current URL decides (null disables webhooks mid-job); a deleted portal keeps its last one.
    const portal = deps.store.portals.get(job.org_id, job.endpoint_name);
    const url = portal ? portal.webhook_url : job.portal.webhook_url;
    if (!url) return;
    const payload: WebhookPayload = { ...deps.jobs.toStatus(job), event_type: type, timestamp: isoMicros() };
    if (type === 'question' && event) {
      const data = event.data as { question_id: string; question: string; options: string[]; message: string };
      payload.question = { question_id: data.question_id, question: data.question, options: data.options, message: data.message };
    }
    deps.store.webhooks.insertDelivery({ id: newId(), org_id: job.org_id, job_id: job.id, event_type: type, url, body: canonicalJson(payload) });
    deps.dispatcher.poke();
  }

  dispose(): void {
    for (const subscription of this.#subscriptions) subscription.dispose();
  }
}
