import type { Migration } from '../migration.ts';

/**
 * Credentials and phone numbers of a workspace (local-service.md §5.4). Metadata only: passwords and
 * TOTP seeds live in the keychain under `credential/<id>/password` and `credential/<id>/totp`.
 */
export const migration0011: Migration = {
  version: 11,
  name: 'credentials',
  sql: `
CREATE TABLE phone_numbers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL,
  phone_number TEXT NOT NULL,
  label TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX phone_numbers_workspace ON phone_numbers(workspace_id);

CREATE TABLE credentials (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL,
  service_name TEXT NOT NULL,
  username_or_email TEXT,
  service_url TEXT,
  has_password INTEGER NOT NULL,
  has_totp INTEGER NOT NULL,
  gmail_oauth_account_id TEXT,
  phone_number_id TEXT REFERENCES phone_numbers(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX credentials_workspace ON credentials(workspace_id, created_at);
`,
};
