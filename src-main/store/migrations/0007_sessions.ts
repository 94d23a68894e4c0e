import type { Migration } from '../migration.ts';

/**
 * Workspaces belong to an organization (existing ones join `default`, else the oldest org), and
 * browser sessions of the public API belong to a workspace.
 */
export const migration0007: Migration = {
  version: 7,
  name: 'sessions',
  sql: `
ALTER TABLE workspaces ADD COLUMN org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE;
UPDATE workspaces SET org_id = COALESCE(
  (SELECT id FROM orgs WHERE id = 'default'),
  (SELECT id FROM orgs ORDER BY created_at, id LIMIT 1)
);

CREATE TABLE browser_sessions (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'terminated', 'expired')),
  screen_width INTEGER NOT NULL,
  screen_height INTEGER NOT NULL,
  profile_id TEXT REFERENCES profiles(id) ON DELETE SET NULL,
  proxy_server TEXT,
  user_agent TEXT,
  record_video INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL,
  timeout_minutes INTEGER NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX browser_sessions_workspace ON browser_sessions(workspace_id, created_at);
CREATE INDEX browser_sessions_status ON browser_sessions(status);
`,
};
