import type { Migration } from '../migration.ts';

/** Portal setting `replay_enabled` (Portico addition): whether model jobs may replay the portal's recorded trace. */
export const migration0005: Migration = {
  version: 5,
  name: 'portal_replay',
  sql: `ALTER TABLE portals ADD COLUMN replay_enabled INTEGER NOT NULL DEFAULT 1;`,
};
