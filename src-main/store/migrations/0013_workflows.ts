import type { Migration } from '../migration.ts';

/**
 * Workflows of the public API (local-service.md §5.5): a workspace's named step lists, their
 * executions and each execution's step journal. Variable values are never stored (a run's values
 * live in memory while its session lives, for resume).
 */
export const migration0013: Migration = {
  version: 13,
  name: 'workflows',
  sql: `
CREATE TABLE workflows (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL,
  name TEXT NOT NULL,
  steps_json TEXT NOT NULL,
  parameters_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX workflows_by_workspace ON workflows (workspace_id, created_at DESC);

CREATE TABLE workflow_executions (
  id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  session_id TEXT,
  owns_session INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX workflow_executions_recent ON workflow_executions (workflow_id, created_at DESC);

CREATE TABLE workflow_execution_steps (
  execution_id TEXT NOT NULL REFERENCES workflow_executions(id) ON DELETE CASCADE,
  step_index INTEGER NOT NULL,
  action TEXT NOT NULL,
  success INTEGER,
  result TEXT,
  error TEXT,
  used_cache INTEGER NOT NULL DEFAULT 0,
  started_at TEXT,
  completed_at TEXT,
  job_id TEXT,
  has_screenshot INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (execution_id, step_index)
);
`,
};
