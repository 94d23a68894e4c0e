import { ActionCacheRepository } from './actionCache.ts';
import { ApiKeyRepository } from './apiKeys.ts';
import { AutofillMappingRepository } from './autofillMappings.ts';
import { CredentialRepository } from './credentials.ts';
import { DocumentRepository } from './documents.ts';
import { openDatabase, prepared, type Db } from './database.ts';
import { JobRepository } from './jobs.ts';
import { MetaRepository } from './meta.ts';
import { OAuthRepository } from './oauth.ts';
import { WebhookRepository } from './webhooks.ts';
import { PortalRepository } from './portals.ts';
import { PrincipalRepository } from './principals.ts';
import { ProfileRepository } from './profiles.ts';
import { ProviderSettingsRepository } from './providerSettings.ts';
import { ReplayTraceRepository } from './replayTraces.ts';
import { SampleRepository } from './samples.ts';
import { SessionRepository } from './sessions.ts';
import { SkillRepository } from './skills.ts';
import { WorkflowRepository } from './workflows.ts';

/** Every repository over one database handle. */
export interface Store {
  readonly db: Db;
  /**
   * A value that changes whenever the database may have: a write through this connection (SQLite's
   * total_changes) or a commit by another one (data_version: the CLI in its own process). Equal values
   * mean nothing was written in between, so a result computed from the database may be served again.
   */
  generation(): string;
  readonly principals: PrincipalRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly portals: PortalRepository;
  readonly profiles: ProfileRepository;
  readonly skills: SkillRepository;
  readonly jobs: JobRepository;
  readonly meta: MetaRepository;
  readonly webhooks: WebhookRepository;
  readonly providerSettings: ProviderSettingsRepository;
  readonly replayTraces: ReplayTraceRepository;
  readonly autofillMappings: AutofillMappingRepository;
  readonly actionCache: ActionCacheRepository;
  readonly sessions: SessionRepository;
  readonly credentials: CredentialRepository;
  readonly samples: SampleRepository;
  readonly documents: DocumentRepository;
  readonly workflows: WorkflowRepository;
  readonly oauth: OAuthRepository;
  close(): void;
}

export function createStore(db: Db): Store {
  const apiKeys = new ApiKeyRepository(db);
  return {
    db,
    // A membership or workspace change may change who a cached key speaks for.
    principals: new PrincipalRepository(db, () => apiKeys.forgetCached()),
    apiKeys,
    portals: new PortalRepository(db),
    profiles: new ProfileRepository(db),
    skills: new SkillRepository(db),
    jobs: new JobRepository(db),
    meta: new MetaRepository(db),
    webhooks: new WebhookRepository(db),
    providerSettings: new ProviderSettingsRepository(db),
    replayTraces: new ReplayTraceRepository(db),
    autofillMappings: new AutofillMappingRepository(db),
    actionCache: new ActionCacheRepository(db),
    sessions: new SessionRepository(db),
    credentials: new CredentialRepository(db),
    samples: new SampleRepository(db),
    documents: new DocumentRepository(db),
    workflows: new WorkflowRepository(db),
    oauth: new OAuthRepository(db),
    generation: () => {
      const row = prepared<[], { v: number; c: number }>(
        db,
        'SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c',
      ).get();
      return `${row?.v}:${row?.c}`;
    },
    close: () => db.close(),
  };
}

/** Opens the database file and builds the store on it. */
export function openStore(file: string): Store {
  return createStore(openDatabase(file));
}

/** True when SQLite refused a write for a UNIQUE constraint. */
export function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
