import { ConflictError, NotFoundError } from '../../base/errors.ts';
import { findChromium, systemChromiumHost } from '../../browser/chromiumDiscovery.ts';
import { chromiumVersion } from '../../browser/chromiumVersion.ts';
import { OrgIdParam } from '../../contract/common.ts';
import {
  ApiKeyCreated, ApiKeyListResponse, ApiKeyParams, ApiKeyRevokeResponse, ConsoleSettings, ConsoleSettingsUpdate, MODEL_PROVIDERS, Org, OrgCreateRequest, OrgList,
  ProviderKeyRequest, ProviderList, ProviderParams, ProviderStatus, ProviderTestResult, consoleMessages,
  type BaseUrlSource, type ChromiumInfo, type ModelProvider,
} from '../../contract/console.ts';
import type { OperatorSettings } from '../../engine/operatorSettings.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { OrgRow } from '../../store/principals.ts';
import type { Store } from '../../store/store.ts';
import type { RouteTable } from '../routeTable.ts';

/** Tests a provider key with a real request (an OpenAI-compatible server may have no key). */
export type ProviderTester = (provider: ModelProvider, apiKey: string | undefined) => Promise<{ ok: boolean; detail: string }>;

/** The base URL a provider is called at and where it comes from; undefined when there is none. */
export type EffectiveBaseUrl = (provider: ModelProvider) => { url: string; source: BaseUrlSource } | undefined;

export interface AdminDeps {
  store: Store;
  /** Opened on first use: probing the keychain can take a moment and most starts never need it. */
  secrets: () => Promise<SecretStore>;
  settings: OperatorSettings;
  dataDir: string;
  jobConcurrency: { get(): number; set(concurrency: number): void };
  testProvider?: ProviderTester;
  /** Resolved by the model layer (env, then store.providerSettings, then the provider's own), so the status shows what jobs use. */
  effectiveBaseUrl: EffectiveBaseUrl;
  /** The running browsers: a saved Chromium path applies to the next browser launched. */
  browser?: { setExecutablePath(path: string | undefined): Promise<void> };
}

export const providerSecretName = (provider: ModelProvider): string => `provider/${provider}`;

async function chromiumInfo(configured: string | undefined): Promise<ChromiumInfo> {
  let resolved: string | null = null;
  try {
    resolved = findChromium(systemChromiumHost(), configured);
    return { configured_path: configured ?? null, resolved_path: resolved, version: await chromiumVersion(resolved, 'chromium'), error: null };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { configured_path: configured ?? null, resolved_path: resolved, version: null, error: detail };
  }
}

// `SELECT *` rows: name the public columns so a new one stays internal until the contract says otherwise.
const toOrg = (row: OrgRow): Org => ({ id: row.id, name: row.name, created_at: row.created_at });

/** `/admin/*`: what only the local operator (the console token) may do. */
export function addAdminRoutes(routes: RouteTable, deps: AdminDeps): void {
  const { store } = deps;
  const requireOrgExists = (orgId: string): void => {
    if (!store.principals.getOrg(orgId)) throw new NotFoundError(consoleMessages.orgNotFound(orgId));
  };

  routes.add({
    method: 'GET', url: '/admin/orgs', tag: 'admin', summary: 'Organizations on this machine', auth: 'console', response: OrgList,
    handler: () => ({ orgs: store.principals.listOrgs().map(toOrg) }),
  });
  routes.add({
    method: 'POST', url: '/admin/orgs', tag: 'admin', summary: 'Create an organization', auth: 'console', body: OrgCreateRequest, response: Org, status: 201,
    handler: ({ body }) => {
      if (store.principals.getOrg(body.org_id)) throw new ConflictError(`Organization '${body.org_id}' already exists`);
      return toOrg(store.principals.createOrg(body.org_id, body.name ?? body.org_id));
    },
  });

  routes.add({
    method: 'GET', url: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'An organization\'s API keys (never the secrets)', auth: 'console',
    params: OrgIdParam, response: ApiKeyListResponse,
    handler: ({ params }) => {
      requireOrgExists(params.org_id);
      return { keys: store.apiKeys.listForOrg(params.org_id) };
    },
  });
  routes.add({
    method: 'POST', url: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'Create an org API key; the only response carrying the secret', auth: 'console',
    params: OrgIdParam, response: ApiKeyCreated, status: 201,
    handler: ({ params }) => {
      requireOrgExists(params.org_id);
      const issued = store.apiKeys.issueOrgKey(params.org_id);
      return { ...issued.info, api_key: issued.apiKey };
    },
  });
  routes.add({
    method: 'POST', url: '/admin/orgs/:org_id/keys/:key_id/revoke', tag: 'admin', summary: 'Revoke an org API key', auth: 'console',
    params: ApiKeyParams, response: ApiKeyRevokeResponse,
    handler: ({ params }) => {
      const key = store.apiKeys.get(params.key_id);
      if (!key || key.org_id !== params.org_id) throw new NotFoundError(consoleMessages.keyNotFound);
      if (key.revoked_at === null) store.apiKeys.revoke(key.id);
      return { revoked: true as const };
    },
  });

  const providerStatus = (provider: ModelProvider, configured: boolean): ProviderStatus => {
    const effective = deps.effectiveBaseUrl(provider);
    return { provider, configured, base_url: effective?.url ?? null, base_url_source: effective?.source ?? null };
  };

  routes.add({
    method: 'GET', url: '/admin/providers', tag: 'admin', summary: 'Which model providers have a key, and the base URL each is called at', auth: 'console', response: ProviderList,
    handler: async () => {
      const secrets = await deps.secrets();
      const providers = await Promise.all(
        MODEL_PROVIDERS.map(async (provider) => providerStatus(provider, (await secrets.get(providerSecretName(provider))) !== undefined)),
      );
      return { secret_store: secrets.kind, providers };
    },
  });
  routes.add({
    method: 'PUT', url: '/admin/providers/:provider', tag: 'admin', summary: 'Store a provider API key (keychain) and/or base URL (null: the provider\'s own)', auth: 'console',
    params: ProviderParams, body: ProviderKeyRequest, response: ProviderStatus,
    handler: async ({ params, body }) => {
      const secrets = await deps.secrets();
      if (body.api_key !== undefined) await secrets.set(providerSecretName(params.provider), body.api_key);
      // After the key, so a refused key (no keychain: 503) leaves the base URL as it was too.
      if (body.base_url !== undefined) store.providerSettings.setBaseUrl(params.provider, body.base_url);
      return providerStatus(params.provider, (await secrets.get(providerSecretName(params.provider))) !== undefined);
    },
  });
  routes.add({
    method: 'DELETE', url: '/admin/providers/:provider', tag: 'admin', summary: 'Remove a provider API key (the base URL stays)', auth: 'console',
    params: ProviderParams, status: 204,
    handler: async ({ params }) => {
      await (await deps.secrets()).delete(providerSecretName(params.provider));
    },
  });
  routes.add({
    method: 'POST', url: '/admin/providers/:provider/test', tag: 'admin', summary: 'Test the stored key against the provider at its effective base URL', auth: 'console',
    params: ProviderParams, response: ProviderTestResult,
    handler: async ({ params }) => {
      const key = await (await deps.secrets()).get(providerSecretName(params.provider));
      // An OpenAI-compatible server is usually local and keyless: its base URL is what makes it usable.
      if (key === undefined && params.provider !== 'openai-compatible') return { provider: params.provider, status: 'failed' as const, detail: 'No key is stored for this provider' };
      if (!deps.testProvider) {
        return { provider: params.provider, status: 'unavailable' as const, detail: 'This build cannot test provider keys yet: the model-driven agent has not landed' };
      }
      const outcome = await deps.testProvider(params.provider, key);
      return { provider: params.provider, status: outcome.ok ? ('ok' as const) : ('failed' as const), detail: outcome.detail };
    },
  });

  const currentSettings = async (): Promise<ConsoleSettings> => ({
    data_dir: deps.dataDir,
    job_concurrency: deps.jobConcurrency.get(),
    chromium: await chromiumInfo(deps.settings.values.chromium_path),
  });
  routes.add({
    method: 'GET', url: '/admin/settings', tag: 'admin', summary: 'Data folder, job concurrency and the Chromium in use', auth: 'console', response: ConsoleSettings,
    handler: currentSettings,
  });
  routes.add({
    method: 'PATCH', url: '/admin/settings', tag: 'admin', summary: 'Change job concurrency or the Chromium path (validated); both apply at once', auth: 'console',
    body: ConsoleSettingsUpdate, response: ConsoleSettings,
    handler: async ({ body }) => {
      if (typeof body.chromium_path === 'string') await chromiumVersion(body.chromium_path);
      await deps.settings.update(body);
      if (body.job_concurrency !== undefined) deps.jobConcurrency.set(body.job_concurrency);
      if (body.chromium_path !== undefined) await deps.browser?.setExecutablePath(body.chromium_path ?? undefined);
      return currentSettings();
    },
  });
}
