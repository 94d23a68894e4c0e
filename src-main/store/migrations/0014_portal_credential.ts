import type { Migration } from '../migration.ts';

/** A portal's `credential_id`: its jobs sign in with that stored credential unless the job start names its own. */
export const migration0014: Migration = {
  version: 14,
  name: 'portal_credential',
  sql: `
ALTER TABLE portals ADD COLUMN credential_id TEXT;
`,
};
