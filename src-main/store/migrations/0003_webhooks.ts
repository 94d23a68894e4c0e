import type { Migration } from '../migration.ts';

/** Install identity (namespaces this data dir's keychain entries), webhook keys and durable deliveries. */
export const migration0003: Migration = {
  version: 3,
  name: 'webhooks',
  sql: `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('install_id', lower(hex(randomblob(16))));

CREATE TABLE webhook_keys (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  job_id TEXT NOT NULL,
  job_seq INTEGER NOT NULL,
  event_type TEXT NOT NULL CHECK (event_type IN ('completed', 'error', 'question')),
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  delivered_at TEXT,
  UNIQUE (job_id, job_seq)
);
CREATE INDEX webhook_deliveries_org ON webhook_deliveries(org_id, created_at DESC);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(status, next_attempt_at);

CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, attempt);
`,
};
