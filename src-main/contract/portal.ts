import { z } from 'zod';
import { HttpUrl, JsonObject, Timestamp, Uuid } from './common.ts';
import { AssistModelId } from './models.ts';
import { Skill } from './skill.ts';
import { BrowserHostLabels } from './hosts.ts';

/** URL-safe slug: letters, digits, `-` and `_`, starting with a letter or digit. */
export const EndpointName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/,
    'must be a URL-safe slug: letters, digits, "-" or "_", 1-100 characters, starting with a letter or digit',
  );

const HumanizedUrls = z.array(z.string().min(1).max(2048)).max(200);

const portalWritableFields = {
  start_url: HttpUrl,
  task: z.string().min(1).max(100_000),
  form_schema: JsonObject,
  output_schema: JsonObject.nullable(),
  profile_id: Uuid.nullable(),
  humanized_urls: HumanizedUrls.nullable(),
  webhook_url: HttpUrl.nullable(),
  skill_ids: z.array(Uuid).max(100),
  /** Portico addition: whether model jobs may replay the portal's recorded trace (default true). */
  replay_enabled: z.boolean(),
  /** Portico addition: the model builtin:autofill may ask to map keys its rules leave unmatched (null: off). */
  assist_model: AssistModelId.nullable(),
  /** Portico addition: record its jobs' screens as WebM (null: the operator's default, itself off unless set). */
  record_video: z.boolean().nullable(),
  /** Its jobs run inside this live session (an active session of one of the org's workspaces) unless the job names its own. */
  browser_session_id: Uuid.nullable(),
  /** Its jobs sign in with this stored credential (of one of the org's workspaces) unless the job names its own. */
  credential_id: Uuid.nullable(),
  /** Portico addition (issue 22): its jobs run on a browser host carrying every one of these labels (null: any host). */
  browser_host_labels: BrowserHostLabels.nullable(),
};

/** POST /portals/{org_id}. */
export const PortalCreateRequest = z.strictObject({
  endpoint_name: EndpointName,
  start_url: portalWritableFields.start_url,
  task: portalWritableFields.task,
  form_schema: portalWritableFields.form_schema.optional(),
  output_schema: portalWritableFields.output_schema.optional(),
  profile_id: portalWritableFields.profile_id.optional(),
  humanized_urls: portalWritableFields.humanized_urls.optional(),
  webhook_url: portalWritableFields.webhook_url.optional(),
  skill_ids: portalWritableFields.skill_ids.optional(),
  replay_enabled: portalWritableFields.replay_enabled.optional(),
  assist_model: portalWritableFields.assist_model.optional(),
  record_video: portalWritableFields.record_video.optional(),
  browser_session_id: portalWritableFields.browser_session_id.optional(),
  credential_id: portalWritableFields.credential_id.optional(),
  browser_host_labels: portalWritableFields.browser_host_labels.optional(),
});
export type PortalCreateRequest = z.infer<typeof PortalCreateRequest>;

/**
 * The fields a portal answers with that no request writes. A PATCH may carry them back (the object a
 * GET returned, edited): equal to the stored values they are ignored, different they are refused.
 */
export const PORTAL_READ_ONLY_FIELDS = ['id', 'org_id', 'endpoint_name', 'skills', 'created_at', 'updated_at'] as const;

/** PATCH /portals/{org_id}/{endpoint_name}: only the fields given change; read-only ones must equal the stored. */
export const PortalUpdateRequest = z.strictObject({
  id: z.string().optional(),
  org_id: z.string().optional(),
  endpoint_name: z.string().optional(),
  skills: z.array(z.unknown()).optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  start_url: portalWritableFields.start_url.optional(),
  task: portalWritableFields.task.optional(),
  form_schema: portalWritableFields.form_schema.optional(),
  output_schema: portalWritableFields.output_schema.optional(),
  profile_id: portalWritableFields.profile_id.optional(),
  humanized_urls: portalWritableFields.humanized_urls.optional(),
  webhook_url: portalWritableFields.webhook_url.optional(),
  skill_ids: portalWritableFields.skill_ids.optional(),
  replay_enabled: portalWritableFields.replay_enabled.optional(),
  assist_model: portalWritableFields.assist_model.optional(),
  record_video: portalWritableFields.record_video.optional(),
  browser_session_id: portalWritableFields.browser_session_id.optional(),
  credential_id: portalWritableFields.credential_id.optional(),
  browser_host_labels: portalWritableFields.browser_host_labels.optional(),
});
export type PortalUpdateRequest = z.infer<typeof PortalUpdateRequest>;

/** A portal as every portal endpoint returns it (§2.1). */
export const Portal = z.object({
  id: Uuid,
  org_id: z.string(),
  endpoint_name: z.string(),
  start_url: z.string(),
  task: z.string(),
  form_schema: JsonObject,
  output_schema: JsonObject.nullable(),
  profile_id: Uuid.nullable(),
  humanized_urls: z.array(z.string()).nullable(),
  webhook_url: z.string().nullable(),
  replay_enabled: z.boolean(),
  assist_model: z.string().nullable(),
  record_video: z.boolean().nullable(),
  browser_session_id: Uuid.nullable(),
  credential_id: Uuid.nullable(),
  browser_host_labels: z.array(z.string()).nullable(),
  skills: z.array(Skill),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Portal = z.infer<typeof Portal>;

export const PortalList = z.array(Portal);

export const PortalParams = z.object({ org_id: z.string().min(1), endpoint_name: z.string().min(1) });

export const DeletedResponse = z.object({ deleted: z.literal(true) });
