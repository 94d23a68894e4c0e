import type { Migration } from '../migration.ts';

/** Non-secret model provider settings, and the replay traces of model-driven jobs. */
export const migration0004: Migration = {
  version: 4,
  name: 'model_agent',
  sql: `
CREATE TABLE provider_settings (
  provider TEXT PRIMARY KEY,
  base_url TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE replay_traces (
  portal_id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  trace TEXT NOT NULL,
  source_job_id TEXT,
  updated_at TEXT NOT NULL
);
`,
};
