import type { Migration } from '../migration.ts';

/** Issue 22: the labels a portal's jobs ask their browser host to carry (JSON array; null: any host). */
export const migration0020: Migration = {
  version: 20,
  name: 'portal_host_labels',
  sql: 'ALTER TABLE portals ADD COLUMN browser_host_labels TEXT;',
};
