import { z } from 'zod';
import { HttpUrl, Timestamp } from './common.ts';

/** An OAuth app's id: what `oauth_app_id` names (`google`, `microsoft`, or the operator's own). */
export const OAuthAppId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be 1-64 characters: letters, digits, ".", "-" or "_", starting with a letter or digit',
  );

const Scope = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token (printable ASCII, no spaces, quotes or backslashes)');

/** Scopes as a list, or as one space-separated string (OAuth's own spelling). */
export const ScopeList = z.union([z.array(Scope).max(50), z.string().max(4096)]).transform((value, ctx) => {
  const list = typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : value;
  for (const scope of list) {
    const checked = Scope.safeParse(scope);
    if (!checked.success) {
      ctx.addIssue({
        code: 'custom',
        message: `'${scope.slice(0, 40)}' ${checked.error.issues[0]?.message ?? 'is not a scope'}`,
      });
      return z.NEVER;
    }
  }
  return [...new Set(list)];
});

/** Add (or replace) an OAuth app: `portico oauth-app add` and `POST /admin/oauth-apps`. */
export const OAuthAppAddRequest = z.strictObject({
  id: OAuthAppId,
  authorize_url: HttpUrl.optional().describe('Required unless the id is a preset (google, microsoft)'),
  token_url: HttpUrl.optional().describe('Required unless the id is a preset (google, microsoft)'),
  userinfo_url: HttpUrl.optional().describe("Where the account's user name is read; the preset's by default"),
  client_id: z.string().trim().min(1).max(512),
  client_secret: z.string().min(1).max(4096).optional().describe('Kept in the keychain, never returned'),
  scopes: ScopeList.optional().describe("Scopes asked for when a connect request names none; the preset's by default"),
});
export type OAuthAppAddRequest = z.input<typeof OAuthAppAddRequest>;
export type OAuthAppAddInput = z.output<typeof OAuthAppAddRequest>;

/** An OAuth app as listed: never its client secret. */
export const OAuthApp = z.object({
  id: z.string(),
  authorize_url: z.string(),
  token_url: z.string(),
  userinfo_url: z.string().nullable(),
  client_id: z.string(),
  scopes: z.array(z.string()),
  has_client_secret: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type OAuthApp = z.infer<typeof OAuthApp>;

export const OAuthAppList = z.object({ oauth_apps: z.array(OAuthApp) });
export const OAuthAppParams = z.object({ oauth_app_id: OAuthAppId });

/** POST /public/connected-accounts (local-service.md §5.4). */
export const ConnectRequest = z.strictObject({
  oauth_app_id: OAuthAppId,
  scopes: ScopeList.optional().describe("Scopes to ask for (a list or one space-separated string); default the app's"),
});
export type ConnectRequest = z.infer<typeof ConnectRequest>;

export const ConnectResponse = z.object({
  authorization_url: z
    .string()
    .describe('Open in a browser; the provider sends it back to http://127.0.0.1:<port>/oauth/callback'),
  state: z.string().describe('Single use; expires 10 minutes after it was issued'),
});
export type ConnectResponse = z.infer<typeof ConnectResponse>;

export const ConnectedAccountStatus = z.enum(['connected', 'needs_reconnect']);
export type ConnectedAccountStatus = z.infer<typeof ConnectedAccountStatus>;

/** Interface §2.7, plus whether the grant still works; tokens are never returned. */
export const ConnectedAccount = z.object({
  id: z.string(),
  user_id: z.string(),
  oauth_app_id: z.string(),
  oauth_user_name: z.string(),
  status: ConnectedAccountStatus.describe('needs_reconnect: the provider revoked the grant; connect again'),
  scopes: z.array(z.string()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ConnectedAccount = z.infer<typeof ConnectedAccount>;

export const ConnectedAccountList = z.array(ConnectedAccount);
export const ConnectedAccountParams = z.object({ account_id: z.uuid() });

export const oauthMessages = {
  listFailed: 'Failed to retrieve connected accounts',
  accountNotFound: 'Connected account not found',
  appNotFound: (id: string) => `OAuth app '${id}' not found`,
  appInUse: (id: string, count: number) => `OAuth app '${id}' has ${count} connected account(s); remove them first`,
  needsReconnect: (id: string) => `Connected account '${id}' needs reconnecting: the provider revoked its grant`,
} as const;
