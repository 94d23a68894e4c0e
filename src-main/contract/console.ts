import { z } from 'zod';
import { ApiKeyInfo, PrincipalId } from './admin.ts';
import { Timestamp } from './common.ts';

/** The header carrying the operator console's token (the console acts as the local operator). */
export const CONSOLE_TOKEN_HEADER = 'x-console-token';

export const consoleMessages = {
  invalidConsoleToken: 'Invalid console token',
  orgNotFound: (orgId: string) => `Organization '${orgId}' not found`,
  keyNotFound: 'API key not found',
  screenshotNotFound: 'Screenshot not found',
} as const;

/** Model providers whose keys the console (and `portico provider set-key`) store in the keychain. */
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'moonshot', 'openai-compatible'] as const;
export const ModelProvider = z.enum(MODEL_PROVIDERS);
export type ModelProvider = z.infer<typeof ModelProvider>;

export const Org = z.object({ id: z.string(), name: z.string(), created_at: Timestamp });
export type Org = z.infer<typeof Org>;
export const OrgList = z.object({ orgs: z.array(Org) });
export type OrgList = z.infer<typeof OrgList>;

export const OrgCreateRequest = z.strictObject({ org_id: PrincipalId, name: z.string().trim().min(1).max(200).optional() });
export type OrgCreateRequest = z.infer<typeof OrgCreateRequest>;

export const ApiKeyListResponse = z.object({ keys: z.array(ApiKeyInfo) });
export type ApiKeyListResponse = z.infer<typeof ApiKeyListResponse>;

/** A new key: the only response that ever carries the secret. */
export const ApiKeyCreated = ApiKeyInfo.extend({ api_key: z.string() });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

export const ApiKeyParams = z.object({ org_id: z.string().min(1), key_id: z.string().min(1) });

export const ProviderParams = z.object({ provider: ModelProvider });

export const ProviderStatus = z.object({
  provider: ModelProvider,
  configured: z.boolean(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const ProviderList = z.object({
  /** Where secrets live: `unavailable` means keys cannot be stored (no keychain, no vault key). */
  secret_store: z.enum(['keychain', 'vault', 'unavailable']),
  providers: z.array(ProviderStatus),
});
export type ProviderList = z.infer<typeof ProviderList>;

export const ProviderKeyRequest = z.strictObject({
  api_key: z.string().trim().min(1, 'must not be empty').max(4096),
  /** Only for `openai-compatible`: the server's base URL, e.g. http://127.0.0.1:11434/v1 */
  base_url: z.string().url().optional(),
});
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
});
export type ConsoleSettings = z.infer<typeof ConsoleSettings>;

export const ConsoleSettingsUpdate = z.strictObject({
  job_concurrency: z.int().min(1).max(32).optional(),
  /** null goes back to discovery. */
  chromium_path: z.string().trim().min(1).max(4096).nullable().optional(),
});
export type ConsoleSettingsUpdate = z.infer<typeof ConsoleSettingsUpdate>;

/** `GET /task/{org}/{endpoint}/screenshots/{index}?job_id=`: one step screenshot. */
export const ScreenshotParams = z.object({
  org_id: z.string().min(1),
  endpoint_name: z.string().min(1),
  index: z.coerce.number().int().min(0).max(100_000),
});
