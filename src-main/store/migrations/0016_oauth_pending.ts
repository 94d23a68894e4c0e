import type { Migration } from '../migration.ts';

/**
 * Connect requests waiting for the provider to send the browser back to `/oauth/callback`, so a
 * restart in between does not lose them. The row is keyed by SHA-256 of the `state` (the state itself
 * is the callback's only authentication and is never stored); the PKCE verifier lives in the secret
 * store under `oauth-pending/<state_hash>/verifier`, never here. A row is used once (deleted as it is
 * read) and refused after `expires_at`.
 */
export const migration0016: Migration = {
  version: 16,
  name: 'oauth_pending',
  sql: `
CREATE TABLE oauth_pending_connects (
  state_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  oauth_app_id TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  redirect_uri TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX oauth_pending_connects_expiry ON oauth_pending_connects (expires_at);
`,
};
