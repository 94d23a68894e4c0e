import type { Migration } from '../migration.ts';

/** Organizations, users, workspaces, keys, profiles, portals and skills. */
export const migration0001: Migration = {
  version: 1,
  name: 'init',
  sql: `
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);

CREATE TABLE memberships (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('org', 'account')),
  org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  CHECK ((kind = 'org' AND org_id IS NOT NULL) OR (kind = 'account' AND user_id IS NOT NULL AND workspace_id IS NOT NULL))
);

CREATE TABLE profiles (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  provider_profile_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX profiles_org ON profiles(org_id);

CREATE TABLE skill_folders (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (org_id, name)
);

CREATE TABLE skills (
  id TEXT PRIMARY KEY,
  folder_id TEXT NOT NULL REFERENCES skill_folders(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  is_public INTEGER NOT NULL DEFAULT 0,
  config TEXT,
  template_id TEXT,
  manifest_name TEXT,
  description TEXT,
  size_bytes INTEGER NOT NULL,
  file_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (folder_id, name)
);
CREATE INDEX skills_org ON skills(org_id);
CREATE INDEX skills_public ON skills(is_public);

CREATE TABLE portals (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  endpoint_name TEXT NOT NULL,
  start_url TEXT NOT NULL,
  task TEXT NOT NULL,
  form_schema TEXT NOT NULL,
  output_schema TEXT,
  profile_id TEXT REFERENCES profiles(id) ON DELETE SET NULL,
  humanized_urls TEXT,
  webhook_url TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, endpoint_name)
);

CREATE TABLE portal_skills (
  portal_id TEXT NOT NULL REFERENCES portals(id) ON DELETE CASCADE,
  skill_id TEXT NOT NULL REFERENCES skills(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  PRIMARY KEY (portal_id, skill_id)
);
CREATE INDEX portal_skills_skill ON portal_skills(skill_id);
`,
};
