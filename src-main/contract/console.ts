import { z } from 'zod';
import { ApiKeyInfo, PrincipalId } from './admin.ts';
import { HttpUrl, JsonObject, Timestamp } from './common.ts';
import { ModelProvider } from './models.ts';

/** The header carrying the operator console's token (the console acts as the local operator). */
export const CONSOLE_TOKEN_HEADER = 'x-console-token';

export const consoleMessages = {
  invalidConsoleToken: 'Invalid console token',
  orgNotFound: (orgId: string) => `Organization '${orgId}' not found`,
  keyNotFound: 'API key not found',
  screenshotNotFound: 'Screenshot not found',
} as const;

// The console (and `portico provider set-key`) store keys for these providers; the list lives with model ids.
export { MODEL_PROVIDERS, ModelProvider } from './models.ts';

export const Org = z.object({ id: z.string(), name: z.string(), created_at: Timestamp });
export type Org = z.infer<typeof Org>;
export const OrgList = z.object({ orgs: z.array(Org) });
export type OrgList = z.infer<typeof OrgList>;

export const OrgCreateRequest = z.strictObject({
  org_id: PrincipalId,
  name: z.string().trim().min(1).max(200).optional(),
});
export type OrgCreateRequest = z.infer<typeof OrgCreateRequest>;

export const ApiKeyListResponse = z.object({ keys: z.array(ApiKeyInfo) });
export type ApiKeyListResponse = z.infer<typeof ApiKeyListResponse>;

/** A new key: the only response that ever carries the secret. */
export const ApiKeyCreated = ApiKeyInfo.extend({ api_key: z.string() });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

/** POST /admin/orgs/{org_id}/keys/{key_id}/revoke (a key revoked before is 409, as in `portico key revoke`). */
export const ApiKeyRevokeResponse = z.object({ revoked: z.literal(true) });
export type ApiKeyRevokeResponse = z.infer<typeof ApiKeyRevokeResponse>;

export const ApiKeyParams = z.object({ org_id: z.string().min(1), key_id: z.string().min(1) });

export const ProviderParams = z.object({ provider: ModelProvider });

/**
 * Where a provider's effective base URL comes from, in the order they win: `PORTICO_<PROVIDER>_BASE_URL`,
 * the stored setting (console or `portico provider set-base-url`), the provider's own endpoint.
 */
export const BaseUrlSource = z.enum(['env', 'stored', 'sdk_env', 'default']);
export type BaseUrlSource = z.infer<typeof BaseUrlSource>;

export const ProviderStatus = z.object({
  provider: ModelProvider,
  /** A key is stored in the keychain (or vault). */
  configured: z.boolean(),
  /** The base URL jobs and "Test connection" call; null when there is none (an OpenAI-compatible server not set up yet). */
  base_url: z.string().nullable(),
  base_url_source: BaseUrlSource.nullable(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const ProviderList = z.object({
  /** Where secrets live: `unavailable` means keys cannot be stored (no keychain, no vault key). */
  secret_store: z.enum(['keychain', 'vault', 'unavailable']),
  providers: z.array(ProviderStatus),
});
export type ProviderList = z.infer<typeof ProviderList>;

/** A key, a base URL, or both; an absent field is left as it is. */
export const ProviderKeyRequest = z
  .strictObject({
    api_key: z.string().trim().min(1, 'must not be empty').max(4096).optional(),
    /** Stored like `portico provider set-base-url`, e.g. http://127.0.0.1:11434/v1; null goes back to the provider's own. */
    base_url: z.string().trim().max(2048).pipe(HttpUrl).nullable().optional(),
  })
  .refine((body) => body.api_key !== undefined || body.base_url !== undefined, 'give api_key, base_url or both');
export type ProviderKeyRequest = z.infer<typeof ProviderKeyRequest>;

/** `ok`: the provider answered; `failed`: it refused or was unreachable; `unavailable`: this build cannot test yet. */
export const ProviderTestResult = z.object({
  provider: ModelProvider,
  status: z.enum(['ok', 'failed', 'unavailable']),
  detail: z.string(),
});
export type ProviderTestResult = z.infer<typeof ProviderTestResult>;

export const ChromiumInfo = z.object({
  /** The configured path, or null to discover it (PORTICO_CHROMIUM, then the usual install paths). */
  configured_path: z.string().nullable(),
  /** What would be launched now, or null when none is found. */
  resolved_path: z.string().nullable(),
  version: z.string().nullable(),
  error: z.string().nullable(),
});
export type ChromiumInfo = z.infer<typeof ChromiumInfo>;

export const ConsoleSettings = z.object({
  data_dir: z.string(),
  job_concurrency: z.int(),
  chromium: ChromiumInfo,
  /** Whether jobs and sessions are recorded when neither the request nor the portal says (default false). */
  record_video: z.boolean(),
});
export type ConsoleSettings = z.infer<typeof ConsoleSettings>;

/** Jobs running at once, wherever it is set (console, settings.json, PORTICO_JOB_CONCURRENCY). */
export const JobConcurrency = z.int().min(1).max(32);

export const ConsoleSettingsUpdate = z.strictObject({
  job_concurrency: JobConcurrency.optional(),
  /** null goes back to discovery. */
  chromium_path: z.string().trim().min(1).max(4096).nullable().optional(),
  record_video: z.boolean().optional(),
});
export type ConsoleSettingsUpdate = z.infer<typeof ConsoleSettingsUpdate>;

/** `GET /admin/log?lines=`: how many of the service log's last lines (default 200). */
export const ServiceLogQuery = z.object({ lines: z.coerce.number().int().min(1).max(1000).default(200) });

/** One line of the service log: pino's `time`, `level` and `msg`, and every other field it carried. */
export const ServiceLogEntry = z.object({
  /** ISO 8601, as written; null for a line that is not one of the log's JSON objects. */
  time: z.string().nullable(),
  /** debug, info, warn or error (Fastify may add trace or fatal); `unknown` for such a line. */
  level: z.string(),
  msg: z.string(),
  fields: JsonObject,
});
export type ServiceLogEntry = z.infer<typeof ServiceLogEntry>;

/** The service log's tail (docs/api.md, "Service log"): secrets and URL secrets already redacted. */
export const ServiceLog = z.object({
  /** The log file (rotated beside it as .1, .2, …), or null when the log goes to stderr (`serve`). */
  file: z.string().nullable(),
  /** PORTICO_LOG_LEVEL in effect: lines below it were never written. */
  level: z.string(),
  /** Oldest first. With `file` null: this run's last lines, kept in memory. */
  entries: z.array(ServiceLogEntry),
});
export type ServiceLog = z.infer<typeof ServiceLog>;

/** `GET /task/{org}/{endpoint}/screenshots/{index}?job_id=`: one step screenshot. */
export const ScreenshotParams = z.object({
  org_id: z.string().min(1),
  endpoint_name: z.string().min(1),
  index: z.coerce.number().int().min(0).max(100_000),
});
