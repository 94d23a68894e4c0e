import type { Migration } from '../migration.ts';

/**
 * Portal setting `assist_model` (Portico addition, null = off), and the mappings that model gave
 * builtin:autofill, one per portal and page structure (gone with their portal).
 */
export const migration0006: Migration = {
  version: 6,
  name: 'portal_assist_model',
  sql: `
ALTER TABLE portals ADD COLUMN assist_model TEXT;

CREATE TABLE autofill_mappings (
  portal_id TEXT NOT NULL REFERENCES portals(id) ON DELETE CASCADE,
  cache_key TEXT NOT NULL,
  mapping_json TEXT NOT NULL,
  source_job_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (portal_id, cache_key)
);
`,
};
