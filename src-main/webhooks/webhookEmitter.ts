import type { Disposable } from '../base/emitter.ts';
import { newId } from '../base/ids.ts';
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
 * Turns job status changes into deliveries: `question` when a job starts waiting for an answer,
 * `completed` when it completes, `error` when it fails or is cancelled — once per occurrence, only
 * when the org has a signing key and the portal a webhook_url. The delivery row is written in the
 * status change's own SQLite transaction (JobEvents.addStatusWriter), so a crash can never keep the
 * one without the other; the dispatcher is nudged once the change has committed.
 */
export interface WebhookEmitterDeps {
  store: Store;
  jobs: JobService;
  keys: WebhookKeyService;
  dispatcher: WebhookDispatcher;
  events: JobEvents;
}

function eventTypeOf(job: JobRecord): WebhookEventType | undefined {
  if (job.status === 'completed') return 'completed';
  if (job.status === 'failed' || job.status === 'cancelled') return 'error';
  if (job.status === 'waiting_for_input') return 'question';
  return undefined;
}

export class WebhookEmitter {
  readonly #subscriptions: Disposable[];

  constructor(deps: WebhookEmitterDeps) {
    const { events } = deps;
    this.#subscriptions = [
      events.addStatusWriter((job) => {
        const type = eventTypeOf(job);
        if (type) this.#enqueue(deps, job, type);
      }),
      events.onDidChangeStatus((job) => {
        if (eventTypeOf(job)) deps.dispatcher.poke();
      }),
    ];
  }

  /** Writes the delivery row; runs inside the status transaction, so a throw here undoes the status change too. */
  #enqueue(deps: WebhookEmitterDeps, job: JobRecord, type: WebhookEventType): void {
    if (!deps.keys.hasKey(job.org_id)) return;
    // The portal's current URL decides (null disables webhooks mid-job); a deleted portal keeps its last one.
    const portal = deps.store.portals.get(job.org_id, job.endpoint_name);
    const url = portal ? portal.webhook_url : job.portal.webhook_url;
    if (!url) return;
    const status = deps.jobs.toStatus(job);
    const payload: WebhookPayload = { ...status, event_type: type, timestamp: isoMicros() };
    if (type === 'question') {
      // The question event is stored before the job moves to waiting_for_input (JobRun.#ask).
      const asked = status.events.findLast(
        (event) => event.type === 'question' && event.data.question_id === job.pending_question_id,
      );
      if (asked?.type !== 'question') throw new Error(`job ${job.id} waits for input without its question event`);
      const { question_id, question, options, message } = asked.data;
      payload.question = { question_id, question, options, message };
    }
    deps.store.webhooks.insertDelivery({
      id: newId(),
      org_id: job.org_id,
      job_id: job.id,
      event_type: type,
      url,
      body: canonicalJson(payload),
    });
  }

  dispose(): void {
    for (const subscription of this.#subscriptions) subscription.dispose();
  }
}
