import type { Migration } from '../migration.ts';

/**
 * Screen recordings: a portal's `record_video` (null = the operator's default) and whether a job kept
 * one (`<artifacts>/<job_id>/recording.webm`); a session's `record_video` came with 0007, whether it kept
 * one is here.
 */
export const migration0009: Migration = {
  version: 9,
  name: 'recordings',
  sql: `
ALTER TABLE portals ADD COLUMN record_video INTEGER;
ALTER TABLE jobs ADD COLUMN has_recording INTEGER NOT NULL DEFAULT 0;
ALTER TABLE browser_sessions ADD COLUMN has_recording INTEGER NOT NULL DEFAULT 0;
`,
};
