import type { Migration } from '../migration.ts';

/**
 * The sample portals (docs/api.md, "Samples"): which samples were created in which organization — a
 * row stays after its portal is deleted, so a deleted sample is never created again unless asked —
 * and what the sample site received (each accepted application, by its reference; the oldest beyond
 * 500 are dropped, so a flood of posts to the sample site cannot grow the database).
 */
export const migration0019: Migration = {
  version: 19,
  name: 'samples',
  sql: `
CREATE TABLE sample_portals (
  org_id TEXT NOT NULL,
  sample TEXT NOT NULL,
  endpoint_name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, sample)
);
CREATE TABLE sample_submissions (
  reference TEXT PRIMARY KEY,
  sample TEXT NOT NULL,
  fields TEXT NOT NULL,
  received_at TEXT NOT NULL
);
CREATE INDEX sample_submissions_received ON sample_submissions (received_at);
`,
};
