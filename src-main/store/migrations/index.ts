import type { Migration } from '../migration.ts';
import { migration0001 } from './0001_init.ts';
import { migration0002 } from './0002_jobs.ts';
import { migration0003 } from './0003_webhooks.ts';
import { migration0004 } from './0004_model_agent.ts';
import { migration0005 } from './0005_portal_replay.ts';
import { migration0006 } from './0006_portal_assist_model.ts';
import { migration0007 } from './0007_sessions.ts';
import { migration0008 } from './0008_action_cache.ts';
import { migration0009 } from './0009_recordings.ts';
import { migration0010 } from './0010_portal_session.ts';
import { migration0011 } from './0011_credentials.ts';
import { migration0012 } from './0012_oauth.ts';
import { migration0013 } from './0013_workflows.ts';
import { migration0014 } from './0014_portal_credential.ts';
import { migration0015 } from './0015_documents.ts';
import { migration0016 } from './0016_oauth_pending.ts';
import { migration0018 } from './0018_webhook_key_prefix.ts';
import { migration0019 } from './0019_samples.ts';
import { migration0020 } from './0020_portal_host_labels.ts';

/** Every migration, in version order. Append new files here; never edit an applied one. */
export const migrations: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0018,
  migration0019,
  migration0020,
];
