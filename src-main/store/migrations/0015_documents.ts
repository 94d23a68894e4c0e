import type { Migration } from '../migration.ts';

/**
 * Document bundles (local-service.md §7): an org's uploaded files, read off the request path. The files
 * and what was read from them live under `<dataDir>/documents/<bundle id>/`; SQLite holds the status.
 */
export const migration0015: Migration = {
  version: 15,
  name: 'documents',
  sql: `
CREATE TABLE document_bundles (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'failed')),
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX document_bundles_by_status ON document_bundles (status, created_at);

CREATE TABLE document_files (
  bundle_id TEXT NOT NULL REFERENCES document_bundles(id) ON DELETE CASCADE,
  file_index INTEGER NOT NULL,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  pages INTEGER,
  text_chars INTEGER,
  error TEXT,
  PRIMARY KEY (bundle_id, file_index)
);
`,
};
