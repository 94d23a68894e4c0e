import { findChromium, systemChromiumHost } from '../../browser/chromiumDiscovery.ts';
import { chromiumVersion } from '../../browser/chromiumVersion.ts';
import { OrgIdParam } from '../../contract/common.ts';
import {
  ApiKeyCreated, ApiKeyListResponse, ApiKeyParams, ApiKeyRevokeResponse, ConsoleSettings, ConsoleSettingsUpdate, Org, OrgCreateRequest, OrgList,
  ProviderKeyRequest, ProviderList, ProviderParams, ProviderStatus, ProviderTestResult, type ChromiumInfo,
} from '../../contract/console.ts';
import type { AdminService } from '../../engine/admin/adminService.ts';
import { OAuthApp, OAuthAppAddRequest, OAuthAppList, OAuthAppParams } from '../../contract/oauth.ts';
import type { OperatorSettings } from '../../engine/operatorSettings.ts';
import type { RouteTable } from '../routeTable.ts';

export interface AdminDeps {
  /** Orgs, keys and model providers: the same operations as the `portico` CLI. */
  admin: AdminService;
  settings: OperatorSettings;
  dataDir: string;
  /** PORTICO_CHROMIUM, shown as what discovery would use when no path is saved. */
  chromiumEnvPath: string | undefined;
  jobConcurrency: { get(): number; set(concurrency: number): void };
  /** The running browsers: a saved Chromium path applies to the next browser launched. */
  browser?: { setExecutablePath(path: string | undefined): Promise<void> };
}

async function chromiumInfo(configured: string | undefined, fromEnv: string | undefined): Promise<ChromiumInfo> {
  let resolved: string | null = null;
  try {
    resolved = findChromium(systemChromiumHost(), { configuredPath: configured, envPath: fromEnv });
    return { configured_path: configured ?? null, resolved_path: resolved, version: await chromiumVersion(resolved, 'chromium'), error: null };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { configured_path: configured ?? null, resolved_path: resolved, version: null, error: detail };
  }
}

/** `/admin/*`: what only the local operator (the console token) may do. */
export function addAdminRoutes(routes: RouteTable, deps: AdminDeps): void {
  const { admin } = deps;

  routes.add({
    method: 'GET', url: '/admin/orgs', tag: 'admin', summary: 'Organizations on this machine', auth: 'console', response: OrgList,
    handler: () => ({ orgs: admin.listOrgs() }),
  });
  routes.add({
    method: 'POST', url: '/admin/orgs', tag: 'admin', summary: 'Create an organization', auth: 'console', body: OrgCreateRequest, response: Org, status: 201,
    handler: ({ body }) => admin.createOrg(body.org_id, body.name),
  });

  routes.add({
    method: 'GET', url: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'An organization\'s API keys: org keys and its workspaces\' account keys (never the secrets)', auth: 'console',
    params: OrgIdParam, response: ApiKeyListResponse,
    handler: ({ params }) => ({ keys: admin.listOrgKeys(params.org_id) }),
  });
  routes.add({
    method: 'POST', url: '/admin/orgs/:org_id/keys', tag: 'admin', summary: 'Create an org API key; the only response carrying the secret', auth: 'console',
    params: OrgIdParam, response: ApiKeyCreated, status: 201,
    handler: ({ params }) => {
      const issued = admin.issueOrgKey(params.org_id);
      return { ...issued.info, api_key: issued.apiKey };
    },
  });
  routes.add({
    method: 'POST', url: '/admin/orgs/:org_id/keys/:key_id/revoke', tag: 'admin', summary: 'Revoke an org API key or an account key of the org\'s workspaces', auth: 'console',
    params: ApiKeyParams, response: ApiKeyRevokeResponse,
    handler: ({ params }) => admin.revokeKey(params.key_id, params.org_id),
  });

  routes.add({
    method: 'GET', url: '/admin/providers', tag: 'admin', summary: 'Which model providers have a key, and the base URL each is called at', auth: 'console', response: ProviderList,
    handler: () => admin.listProviders(),
  });
  routes.add({
    method: 'PUT', url: '/admin/providers/:provider', tag: 'admin', summary: 'Store a provider API key (keychain) and/or base URL (null: the provider\'s own)', auth: 'console',
    params: ProviderParams, body: ProviderKeyRequest, response: ProviderStatus,
    handler: ({ params, body }) => admin.updateProvider(params.provider, body),
  });
  routes.add({
    method: 'DELETE', url: '/admin/providers/:provider', tag: 'admin', summary: 'Remove a provider API key (the base URL stays)', auth: 'console',
    params: ProviderParams, status: 204,
    handler: ({ params }) => admin.deleteProviderKey(params.provider),
  });
  routes.add({
    method: 'POST', url: '/admin/providers/:provider/test', tag: 'admin', summary: 'Test the stored key against the provider at its effective base URL', auth: 'console',
    params: ProviderParams, response: ProviderTestResult,
    handler: ({ params }) => admin.testProvider(params.provider),
  });

  routes.add({
    method: 'GET', url: '/admin/oauth-apps', tag: 'admin', summary: 'OAuth apps for connected accounts (never the client secrets)', auth: 'console', response: OAuthAppList,
    handler: () => ({ oauth_apps: admin.listOAuthApps() }),
  });
  routes.add({
    method: 'POST', url: '/admin/oauth-apps', tag: 'admin', summary: 'Add or replace an OAuth app; presets google and microsoft need only the client id (and secret)', auth: 'console',
    body: OAuthAppAddRequest, response: OAuthApp, status: 201,
    handler: ({ body }) => admin.addOAuthApp(body),
  });
  routes.add({
    method: 'DELETE', url: '/admin/oauth-apps/:oauth_app_id', tag: 'admin', summary: 'Remove an OAuth app and its client secret (409 while accounts use it)', auth: 'console',
    params: OAuthAppParams, status: 204,
    handler: async ({ params }) => {
      await admin.removeOAuthApp(params.oauth_app_id);
    },
  });

  const currentSettings = async (): Promise<ConsoleSettings> => ({
    data_dir: deps.dataDir,
    job_concurrency: deps.jobConcurrency.get(),
    chromium: await chromiumInfo(deps.settings.values.chromium_path, deps.chromiumEnvPath),
    record_video: deps.settings.values.record_video ?? false,
  });
  routes.add({
    method: 'GET', url: '/admin/settings', tag: 'admin', summary: 'Data folder, job concurrency and the Chromium in use', auth: 'console', response: ConsoleSettings,
    handler: currentSettings,
  });
  routes.add({
    method: 'PATCH', url: '/admin/settings', tag: 'admin', summary: 'Change job concurrency, the Chromium path (validated) or the recording default; all apply at once', auth: 'console',
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
