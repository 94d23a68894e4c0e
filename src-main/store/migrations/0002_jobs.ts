import type { Migration } from '../migration.ts';

/** Jobs with their events and log lines. */
export const migration0002: Migration = {
  version: 2,
  name: 'jobs',
  sql: `
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  endpoint_name TEXT NOT NULL,
  portal_id TEXT,
  portal_snapshot TEXT NOT NULL,
  options TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting_for_input', 'completed', 'failed', 'cancelled')),
  orchestrator_model TEXT NOT NULL,
  vision_model TEXT NOT NULL,
  profile_id TEXT,
  result TEXT,
  error TEXT,
  steps INTEGER NOT NULL DEFAULT 0,
  credits INTEGER NOT NULL DEFAULT 0,
  session_cost_usd REAL NOT NULL DEFAULT 0,
  active_ms INTEGER NOT NULL DEFAULT 0,
  has_screenshots INTEGER NOT NULL DEFAULT 0,
  has_downloads INTEGER NOT NULL DEFAULT 0,
  view_token TEXT NOT NULL,
  pending_question_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT
);
CREATE INDEX jobs_org_created ON jobs(org_id, created_at DESC);
CREATE INDEX jobs_status ON jobs(status, created_at);
CREATE UNIQUE INDEX jobs_view_token ON jobs(view_token);

CREATE TABLE job_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX job_events_job ON job_events(job_id, seq);

CREATE TABLE job_logs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  timestamp TEXT NOT NULL,
  line TEXT NOT NULL
);
CREATE INDEX job_logs_job ON job_logs(job_id, seq);
`,
};
