import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../base/errors.ts';
import { findChromium, systemChromiumHost } from '../../browser/chromiumDiscovery.ts';
import { chromiumVersion } from '../../browser/chromiumVersion.ts';
import { OrgIdParam } from '../../contract/common.ts';
import {
  ApiKeyCreated, ApiKeyListResponse, ApiKeyParams, ConsoleSettings, ConsoleSettingsUpdate, MODEL_PROVIDERS, Org, OrgCreateRequest, OrgList,
  ProviderKeyRequest, ProviderList, ProviderParams, ProviderStatus, ProviderTestResult, consoleMessages,
  type ChromiumInfo, type ModelProvider,
} from '../../contract/console.ts';
import type { OperatorSettings } from '../../engine/operatorSettings.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { Store } from '../../store/store.ts';
import type { RouteTable } from '../routeTable.ts';

/** Tests a provider key with a real request; supplied by the model layer once it exists. */
export type ProviderTester = (provider: ModelProvider, apiKey: string) => Promise<{ ok: boolean; detail: string }>;

export interface AdminDeps {
  store: Store;
  /** Opened on first use: probing the keychain can take a moment and most starts never need it. */
  secrets: () => Promise<SecretStore>;
  settings: OperatorSettings;
  dataDir: string;
  jobConcurrency: { get(): number; set(concurrency: number): void };
  testProvider?: ProviderTester;
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

/** `/admin/*`: what only the local operator (the console token) may do. */
export function addAdminRoutes(routes: RouteTable, deps: AdminDeps): void {
  const { store } = deps;
  const requireOrgExists = (orgId: string): void => {
    if (!store.principals.getOrg(orgId)) throw new NotFoundError(consoleMessages.orgNotFound(orgId));
  };

  routes.add({
    method: 'GET', url: '/admin/orgs', tag: 'admin', summary: 'Organizations on this machine', auth: 'console', response: OrgList,
    handler: () => ({ orgs: store.principals.listOrgs() }),
  });
  routes.add({
    method: 'POST', url: '/admin/orgs', tag: 'admin', summary: 'Create an organization', auth: 'console', body: OrgCreateRequest, response: Org, status: 201,
    handler: ({ body }) => {
      if (store.principals.getOrg(body.org_id)) throw new ConflictError(`Organization '${body.org_id}' already exists`);
      return store.principals.createOrg(body.org_id, body.name ?? body.org_id);
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
    params: ApiKeyParams, response: z.object({ revoked: z.literal(true) }),
    handler: ({ params }) => {
      const key = store.apiKeys.get(params.key_id);
      if (!key || key.org_id !== params.org_id) throw new NotFoundError(consoleMessages.keyNotFound);
      if (key.revoked_at === null) store.apiKeys.revoke(key.id);
      return { revoked: true as const };
    },
  });

  routes.add({
    method: 'GET', url: '/admin/providers', tag: 'admin', summary: 'Which model providers have a key in the keychain', auth: 'console', response: ProviderList,
    handler: async () => {
      const secrets = await deps.secrets();
      const providers = await Promise.all(
        MODEL_PROVIDERS.map(async (provider) => ({ provider, configured: (await secrets.get(providerSecretName(provider))) !== undefined })),
      );
      return { secret_store: secrets.kind, providers };
    },
  });
  routes.add({
    method: 'PUT', url: '/admin/providers/:provider', tag: 'admin', summary: 'Store a provider API key in the keychain', auth: 'console',
    params: ProviderParams, body: ProviderKeyRequest, response: ProviderStatus,
    handler: async ({ params, body }) => {
      await (await deps.secrets()).set(providerSecretName(params.provider), body.api_key);
      return { provider: params.provider, configured: true };
    },
  });
  routes.add({
    method: 'DELETE', url: '/admin/providers/:provider', tag: 'admin', summary: 'Remove a provider API key', auth: 'console',
    params: ProviderParams, status: 204,
    handler: async ({ params }) => {
      await (await deps.secrets()).delete(providerSecretName(params.provider));
    },
  });
  routes.add({
    method: 'POST', url: '/admin/providers/:provider/test', tag: 'admin', summary: 'Test the stored key against the provider', auth: 'console',
    params: ProviderParams, response: ProviderTestResult,
    handler: async ({ params }) => {
      const key = await (await deps.secrets()).get(providerSecretName(params.provider));
      if (key === undefined) return { provider: params.provider, status: 'failed' as const, detail: 'No key is stored for this provider' };
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
    method: 'PATCH', url: '/admin/settings', tag: 'admin', summary: 'Change job concurrency (at once) or the Chromium path (validated; used from the next start)', auth: 'console',
    body: ConsoleSettingsUpdate, response: ConsoleSettings,
    handler: async ({ body }) => {
      if (typeof body.chromium_path === 'string') await chromiumVersion(body.chromium_path);
      await deps.settings.update(body);
      if (body.job_concurrency !== undefined) deps.jobConcurrency.set(body.job_concurrency);
      return currentSettings();
    },
  });
}
