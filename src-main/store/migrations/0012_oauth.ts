import type { Migration } from '../migration.ts';

/**
 * OAuth apps the operator configured and the accounts users connected through them (local-service.md
 * §5.4). Metadata only: client secrets and tokens live in the keychain, under `oauth-app/<id>/client-secret`
 * and `oauth-account/<id>/tokens`.
 */
export const migration0012: Migration = {
  version: 12,
  name: 'oauth',
  sql: `
CREATE TABLE oauth_apps (
  id TEXT PRIMARY KEY,
  authorize_url TEXT NOT NULL,
  token_url TEXT NOT NULL,
  userinfo_url TEXT,
  client_id TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  has_client_secret INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE connected_accounts (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  oauth_app_id TEXT NOT NULL REFERENCES oauth_apps(id),
  oauth_user_name TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL DEFAULT 'connected' CHECK (status IN ('connected', 'needs_reconnect')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX connected_accounts_user ON connected_accounts (user_id, created_at);
CREATE UNIQUE INDEX connected_accounts_identity ON connected_accounts (user_id, oauth_app_id, oauth_user_name);
`,
};
