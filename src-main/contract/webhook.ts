import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';
import { JobStatusResponse, QuestionData } from './job.ts';

export const WEBHOOK_EVENT_TYPES = ['completed', 'error', 'question'] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

/** The body of a webhook (§6): the job status response plus event_type and timestamp; a question adds `question`. */
export const WebhookPayload = JobStatusResponse.extend({
  event_type: WebhookEventType,
  timestamp: z.string().describe('ISO 8601 with microseconds, time of sending the first attempt'),
  question: QuestionData.optional(),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

export const WebhookKeyCreated = z.object({ org_id: z.string(), secret: z.string() });
export const WebhookKeyStatus = z.object({
  org_id: z.string(),
  configured: z.boolean(),
  prefix: z.string().nullable(),
  created_at: Timestamp.nullable(),
});
export const WebhookKeyRevoked = z.object({ revoked: z.literal(true) });

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed']);

export const WebhookAttempt = z.object({
  attempt: z.int(),
  started_at: Timestamp,
  duration_ms: z.int(),
  status_code: z.int().nullable(),
  error: z.string().nullable(),
});

/** A delivery with its attempts, as the console and scripts see it. */
export const WebhookDelivery = z.object({
  id: Uuid,
  job_id: Uuid,
  event_type: WebhookEventType,
  url: z.string(),
  status: DeliveryStatus,
  attempts: z.int(),
  next_attempt_at: Timestamp.nullable(),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  delivered_at: Timestamp.nullable(),
  attempt_log: z.array(WebhookAttempt),
  payload: z.record(z.string(), z.unknown()),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const DeliveryListQuery = z.object({
  job_id: Uuid.optional(),
  status: DeliveryStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export const DeliveryList = z.object({ deliveries: z.array(WebhookDelivery), total: z.int() });

export const DeliveryParams = z.object({ org_id: z.string().min(1), delivery_id: Uuid });
