import type { Migration } from '../migration.ts';

/**
 * The single-action step cache: one entry per workspace and cache key (the request's `id`, or a hash
 * of the action template, page origin + path and variable names). `recipe_json` holds the resolved
 * operation and target with `{{variable}}` names only, never values.
 */
export const migration0008: Migration = {
  version: 8,
  name: 'action_cache',
  sql: `
CREATE TABLE action_cache (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  cache_key TEXT NOT NULL,
  step_id TEXT,
  action TEXT NOT NULL,
  page TEXT NOT NULL,
  recipe_json TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0,
  misses INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, cache_key)
);
CREATE INDEX action_cache_recent ON action_cache (workspace_id, last_used_at DESC);
`,
};
