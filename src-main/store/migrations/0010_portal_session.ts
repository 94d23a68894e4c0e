import type { Migration } from '../migration.ts';

/**
 * A portal's `browser_session_id`: its jobs run inside that live session unless the job start names
 * its own (null: a fresh browser, as before).
 */
export const migration0010: Migration = {
  version: 10,
  name: 'portal_session',
  sql: `
ALTER TABLE portals ADD COLUMN browser_session_id TEXT;
`,
};
