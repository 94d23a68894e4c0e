import { z } from 'zod';
import { Timestamp } from './common.ts';

export const ApiKeyKind = z.enum(['org', 'account']);
export type ApiKeyKind = z.infer<typeof ApiKeyKind>;

/** An API key as listed: never the secret, only its first characters. */
export const ApiKeyInfo = z.object({
  id: z.string(),
  kind: ApiKeyKind,
  org_id: z.string().nullable(),
  user_id: z.string().nullable(),
  workspace_id: z.string().nullable(),
  prefix: z.string(),
  created_at: Timestamp,
  revoked_at: Timestamp.nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** Org and user ids: short identifiers used in paths. */
export const PrincipalId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be 1-64 characters: letters, digits, ".", "-" or "_", starting with a letter or digit',
  );
