import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common.ts';
import { ModelId } from './models.ts';
import { BrowserHostLabels } from './hosts.ts';

export const JOB_STATUSES = ['queued', 'running', 'waiting_for_input', 'completed', 'failed', 'cancelled'] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

/** Statuses a job never leaves. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

/** Browser proxy for one job (or a session). */
export const ProxyConfig = z.strictObject({
  server: z
    .string()
    .min(1)
    .refine(
      (value) => /^(https?|socks5?):\/\/[^\s]+$/i.test(value) || /^[^\s:/]+:\d+$/.test(value),
      'must be a proxy URL such as http://host:port or socks5://host:port',
    ),
  username: z.string().optional(),
  password: z.string().optional(),
  bypass: z.string().optional(),
});
export type ProxyConfig = z.infer<typeof ProxyConfig>;

/** POST /jobs/{org_id}/{endpoint_name}/start (§4.2). Defaults are applied by the engine. */
export const JobStartRequest = z.strictObject({
  form_data: JsonObject.optional(),
  document_bundle_id: Uuid.optional(),
  orchestrator_model: ModelId.optional(),
  vision_model: ModelId.optional(),
  max_turns: z.int().min(1).max(1000).optional(),
  timeout_minutes: z
    .int()
    .min(1)
    .max(24 * 60)
    .optional(),
  profile_id: Uuid.optional(),
  save_profile: z.boolean().optional(),
  human_in_the_loop: z.boolean().optional(),
  proxy: ProxyConfig.optional(),
  /** Portico addition: false makes a model-driven job ignore its portal's replay trace (default true). */
  replay: z.boolean().optional(),
  /** Portico addition (local-service §5.1): run inside this live session of one of the org's workspaces (its page; the session stays alive). */
  browser_session_id: Uuid.optional(),
  /** Portico addition (local-service §5.1, §5.4): sign in with this stored credential of one of the org's workspaces (values typed from the keychain). */
  credential_id: Uuid.optional(),
  /** Portico addition: record the job's screen as WebM (`video_recording_url`); default the portal's setting, else the operator's. */
  record_video: z.boolean().optional(),
  /** Portico addition (issue 22): run on a browser host carrying every one of these labels (`local`: the local Chromium); default the portal's. */
  browser_host_labels: BrowserHostLabels.optional(),
});
export type JobStartRequest = z.infer<typeof JobStartRequest>;

export const JobStartResponse = z.object({ job_id: Uuid });

export const JobIdQuery = z.object({ job_id: Uuid });

/** A pending question as events and webhooks carry it. */
export const QuestionData = z.object({
  question_id: Uuid,
  question: z.string(),
  options: z.array(z.string()),
  message: z.string(),
});
export type QuestionData = z.infer<typeof QuestionData>;

/** What the builtin filler saw leave the page as the form's submission (`submission` event, `result.receipt`). */
export const SubmissionReceipt = z.object({
  method: z.string(),
  url: z.string(),
  fields: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  body_sha256: z.string().nullable(),
  response_status: z.int().nullable(),
  verified: z.array(z.string()),
  unverified: z.array(z.string()),
  approved: z.array(z.string()).optional(),
});
export type SubmissionReceipt = z.infer<typeof SubmissionReceipt>;

const jobEventOf = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ type: z.literal(type), timestamp: Timestamp, data });

/**
 * One entry of a job's history, told apart by `type`: `queued` (with the form_data and options the job
 * started with); `step` (one screenshot: `step` is its
 * 1-based number, `description` says what the step did); `agent_mode` (how the agent runs: replayed, healed,
 * fresh, assisted); `fill_report` (where each form_data key went); `submission` (the builtin filler's receipt of what the form
 * sent and how the server answered); `question` and its `answer`; `extraction` (form_data read from a document bundle, with sources).
 */
export const JobEvent = z.discriminatedUnion('type', [
  // The start options as applied (absent on jobs queued before Portico recorded them). Secret values are
  // left out of form_data; `hidden_keys` names them (they must be typed again to run the job again).
  jobEventOf(
    'queued',
    z
      .object({
        form_data: JsonObject.nullable(),
        hidden_keys: z.array(z.string()),
        max_turns: z.int(),
        timeout_minutes: z.int(),
        human_in_the_loop: z.boolean(),
      })
      .partial(),
  ),
  jobEventOf('step', z.object({ step: z.int().min(0), description: z.string() })),
  jobEventOf('agent_mode', z.object({ mode: z.string(), detail: z.string() })),
  jobEventOf('fill_report', z.object({ placements: z.record(z.string(), JsonObject), unplaced: z.array(JsonObject) })),
  // What the builtin filler saw the form send, checked against the placements before it left (docs/autofill.md, "The receipt"):
  // URL redacted, secret fields masked, the body's sha256, the server's status, and which placed keys were found intact.
  jobEventOf('submission', SubmissionReceipt),
  jobEventOf('question', QuestionData),
  jobEventOf('answer', z.object({ question_id: Uuid, answer: z.string() })),
  // A screen recording that was asked for but not kept (`skipped`: it could not start, e.g. no ffmpeg; `failed`: ffmpeg broke off); `detail` says why.
  jobEventOf('recording', z.object({ status: z.enum(['skipped', 'failed']), detail: z.string() })),
  // A job started from a document bundle: the form_data read from it (secret values left out, as in `queued`), where each
  // value came from (`sources`: document, page, the text; `ocr` when that text was read by OCR), and the keys the documents did not settle, with why.
  jobEventOf(
    'extraction',
    z.object({
      document_bundle_id: z.string(),
      extractor: z.string(),
      form_data: JsonObject,
      hidden_keys: z.array(z.string()),
      sources: z.record(
        z.string(),
        z.object({ document: z.string(), page: z.int().nullable(), text: z.string(), ocr: z.boolean().optional() }),
      ),
      missing: z.array(z.string()),
      reasons: z.record(z.string(), z.string()),
    }),
  ),
]);
export type JobEvent = z.infer<typeof JobEvent>;
export type JobEventType = JobEvent['type'];
/** The data of events of one type: `JobEventData<'step'>` is `{ step, description }`. */
export type JobEventData<T extends JobEventType> = Extract<JobEvent, { type: T }>['data'];

/** The job status response (local-service.md §3). */
export const JobStatusResponse = z.object({
  job_id: Uuid,
  portal_id: z.string().describe('<org_id>/<endpoint_name>'),
  status: JobStatus,
  result: JsonObject.nullable(),
  error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable(),
  browser_url: z.string().nullable(),
  has_screenshots: z.boolean(),
  steps: z.int(),
  credits: z.int(),
  session_cost_usd: z.number(),
  orchestrator_model: z.string(),
  vision_model: z.string(),
  downloads_link: z.string().nullable(),
  video_recording_url: z.string().nullable(),
  log_url: z.string(),
  events: z.array(JobEvent),
});
export type JobStatusResponse = z.infer<typeof JobStatusResponse>;

export const AnswerRequest = z.strictObject({
  question_id: Uuid,
  answer: z.string().max(100_000),
});
export type AnswerRequest = z.infer<typeof AnswerRequest>;

/** Answer Question and Cancel responses. */
export const JobActionResponse = z.object({ success: z.boolean(), message: z.string(), job_id: Uuid });
export type JobActionResponse = z.infer<typeof JobActionResponse>;

export const JobListQuery = z.object({
  endpoint_name: z.string().optional(),
  status: JobStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export const JobList = z.object({ jobs: z.array(JobStatusResponse), total: z.int() });
export type JobList = z.infer<typeof JobList>;

/** A job as the light list gives it (GET /jobs/{org_id}/summary, Portico addition): the status response without `result` and `events`. */
export const JobSummary = JobStatusResponse.omit({ result: true, events: true });
export type JobSummary = z.infer<typeof JobSummary>;

export const JobSummaryList = z.object({ jobs: z.array(JobSummary), total: z.int() });
export type JobSummaryList = z.infer<typeof JobSummaryList>;

/**
 * Stream Job Logs' query. `status=true` (Portico addition) also pushes `status` events, each the job's
 * status response: once when the stream opens, then after every status change and appended event.
 */
export const JobLogsQuery = JobIdQuery.extend({ status: z.stringbool().optional() });

/** The JSON of each `log` event of Stream Job Logs (the stream ends with an `end` event carrying `{status}`). */
export const JobLogEvent = z.object({ seq: z.int(), timestamp: Timestamp, line: z.string() });
export type JobLogEvent = z.infer<typeof JobLogEvent>;
