import { z } from 'zod';
import { HttpUrl, Timestamp, Uuid } from './common.ts';
import { safeName } from './names.ts';

/** A browser profile as every profile endpoint returns it (§2.3), exactly these fields. */
export const Profile = z.object({
  id: Uuid,
  org_id: z.string(),
  name: z.string(),
  provider_profile_id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Profile = z.infer<typeof Profile>;

export const ProfileList = z.array(Profile);

/** POST /profiles/{org_id}: a new profile, or (with `profile_id`) a new login session on an existing one. */
export const ProfileCreateRequest = z.strictObject({
  name: safeName(z.string().trim().min(1).max(200))
    .optional()
    .describe('Auto-generated when absent; ignored with profile_id'),
  profile_id: z.string().min(1).max(128).optional().describe('An existing profile to open a new login session for'),
  timeout_minutes: z
    .int()
    .min(1)
    .max(1440)
    .default(10)
    .describe('The session closes (and saves) after this long without input'),
  use_proxy: z.boolean().default(false).describe('Browse through the configured default proxy'),
  start_url: HttpUrl.optional().describe('Portico addition: where the login browser opens; default about:blank'),
});
export type ProfileCreateRequest = z.infer<typeof ProfileCreateRequest>;

/** The answer to POST /profiles/{org_id}. */
export const ProfileSessionCreated = z.object({
  profile_id: Uuid,
  name: z.string(),
  live_url: z.string().describe('Page of this server showing the login browser live; no API key needed'),
  session_id: z.string().describe('Closes the session: POST /profiles/{org_id}/sessions/{session_id}/close'),
});
export type ProfileSessionCreated = z.infer<typeof ProfileSessionCreated>;

/** An open login session (Portico addition: GET /profiles/{org_id}/sessions). */
export const ProfileSession = z.object({
  session_id: z.string(),
  profile_id: Uuid,
  live_url: z.string(),
  expires_at: Timestamp.describe('When the session closes itself unless input arrives first'),
});
export type ProfileSession = z.infer<typeof ProfileSession>;

export const ProfileSessionList = z.array(ProfileSession);

export const ProfileSessionClosed = z.object({
  success: z.literal(true),
  message: z.string(),
  profile_id: Uuid,
  session_id: z.string(),
});
export type ProfileSessionClosed = z.infer<typeof ProfileSessionClosed>;

export const ProfileParams = z.object({ org_id: z.string().min(1), profile_id: z.string().min(1) });

export const ProfileSessionParams = z.object({ org_id: z.string().min(1), session_id: z.string().min(1) });
