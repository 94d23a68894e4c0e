import { z } from 'zod';
import { JsonObject, Timestamp } from './common.ts';
import { ProxyConfig } from './job.ts';

/** Browser session states (interface §3 Session). */
export const SessionStatus = z.enum(['active', 'terminated', 'expired']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Viewport and screen of the session's browser, in CSS pixels. */
export const ScreenConfig = z.strictObject({
  width: z.int().min(320).max(3840),
  height: z.int().min(240).max(2160),
});
export type ScreenConfig = z.infer<typeof ScreenConfig>;

const MAX_METADATA_BYTES = 16 * 1024;

/** POST /public/sessions (local-service.md §5.2). */
export const SessionCreateRequest = z.strictObject({
  timeout_minutes: z.int().min(1).max(1440).default(30).describe('The session expires this long after it was created'),
  screen_config: ScreenConfig.default({ width: 1280, height: 800 }),
  profile_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("A browser profile of the workspace's organization; held while the session lives and saved when it ends"),
  proxy: ProxyConfig.optional().describe(
    'The proxy every page of the session goes through. With username/password (an http:// proxy) the browser uses a local forwarder of this service that adds them; the password is kept in memory only, never stored or echoed',
  ),
  metadata: JsonObject.refine(
    (value) => new TextEncoder().encode(JSON.stringify(value)).length <= MAX_METADATA_BYTES,
    `must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
  ).default({}),
  // eslint-disable-next-line no-control-regex
  user_agent: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters')
    .optional(),
  record_video: z
    .boolean()
    .optional()
    .describe(
      "Record the session's screen as WebM (GET /public/sessions/{id}/recording once it ended); default the operator's setting, itself false unless set",
    ),
});
export type SessionCreateRequest = z.infer<typeof SessionCreateRequest>;

/** A browser session as every session endpoint returns it (interface §2.5, plus `live_url`). */
export const Session = z.object({
  session_id: z.string(),
  cdp_url: z
    .string()
    .nullable()
    .describe("ws:// DevTools URL of this session's own browser (carries its token); null once the session ended"),
  live_url: z
    .string()
    .nullable()
    .describe("Page of this server showing the session's browser live; null once the session ended"),
  screen_config: z.object({ width: z.int(), height: z.int() }),
  status: SessionStatus,
  expires_at: Timestamp,
  metadata: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Session = z.infer<typeof Session>;

/** GET /public/sessions. */
export const SessionListQuery = z.object({
  status_filter: SessionStatus.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type SessionListQuery = z.infer<typeof SessionListQuery>;

export const SessionList = z.object({ sessions: z.array(Session), total: z.int() });
export type SessionList = z.infer<typeof SessionList>;

export const SessionParams = z.object({ session_id: z.string().min(1).max(128) });
