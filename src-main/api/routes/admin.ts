import { NotFoundError } from '../../base/errors.ts';
import { findChromium, systemChromiumHost } from '../../browser/chromiumDiscovery.ts';
import { chromiumVersion } from '../../browser/chromiumVersion.ts';
import type { ChromiumInfo, ConsoleSettings, ServiceLogEntry } from '../../contract/console.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { AdminService } from '../../engine/admin/adminService.ts';
import type { OperatorSettings } from '../../engine/operatorSettings.ts';
import type { Handlers } from '../operationTable.ts';
import type {
  BrowserHostAdded,
  BrowserHostAddRequest,
  BrowserHostRemoved,
  BrowserHostStatus,
} from '../../contract/hosts.ts';

export interface AdminDeps {
  /** Orgs, keys and model providers: the same operations as the `portico` CLI. */
  admin: AdminService;
  settings: OperatorSettings;
  dataDir: string;
  /** PORTICO_CHROMIUM, shown as what discovery would use when no path is saved. */
  chromiumEnvPath: string | undefined;
  /** `<path> --version`'s browser line, remembered per unchanged executable (the app's one ChromiumVersionCache). */
  chromiumVersion(path: string, field: string): Promise<string>;
  jobConcurrency: { get(): number; set(concurrency: number): void };
  /** The running browsers: a saved Chromium path applies to the next browser launched. */
  browser: { setExecutablePath(path: string | undefined): Promise<void> };
  /** The service log: its file (null: stderr) and level, and its last lines as entries (redacted). */
  log: { file: string | null; level: string; entries(count: number): ServiceLogEntry[] };
  /** The browser hosts (`local` and settings.json's browser_hosts) as they are now: never a token. */
  hosts?: {
    statuses(): Promise<BrowserHostStatus[]>;
    /** settings.json and the keychain/vault, as `portico host add/remove` (engine/hosts/hostAdmin.ts). */
    add(request: BrowserHostAddRequest): Promise<BrowserHostAdded>;
    remove(name: string): Promise<BrowserHostRemoved>;
  };
}

async function chromiumInfo(
  configured: string | undefined,
  fromEnv: string | undefined,
  version: AdminDeps['chromiumVersion'],
): Promise<ChromiumInfo> {
  let resolved: string | null = null;
  try {
    resolved = findChromium(systemChromiumHost(), { configuredPath: configured, envPath: fromEnv });
    return {
      configured_path: configured ?? null,
      resolved_path: resolved,
      version: await version(resolved, 'chromium'),
      error: null,
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { configured_path: configured ?? null, resolved_path: resolved, version: null, error: detail };
  }
}

/** `/admin/*`: what only the local operator (the console token) may do. */
export function adminHandlers(deps: AdminDeps): Handlers<OperationsTagged<'admin'>> {
  const { admin } = deps;
  const currentSettings = async (): Promise<ConsoleSettings> => ({
    data_dir: deps.dataDir,
    job_concurrency: deps.jobConcurrency.get(),
    chromium: await chromiumInfo(deps.settings.values.chromium_path, deps.chromiumEnvPath, deps.chromiumVersion),
    record_video: deps.settings.values.record_video ?? false,
  });
  return {
    listOrgs: () => ({ orgs: admin.listOrgs() }),
    createOrg: ({ body }) => admin.createOrg(body.org_id, body.name),
    listOrgKeys: ({ params }) => ({ keys: admin.listOrgKeys(params.org_id) }),
    createOrgKey: ({ params }) => {
      const issued = admin.issueOrgKey(params.org_id);
      return { ...issued.info, api_key: issued.apiKey };
    },
    revokeOrgKey: ({ params }) => admin.revokeKey(params.key_id, params.org_id),

    listProviders: () => admin.listProviders(),
    updateProvider: ({ params, body }) => admin.updateProvider(params.provider, body),
    deleteProviderKey: ({ params }) => admin.deleteProviderKey(params.provider),
    testProvider: ({ params }) => admin.testProvider(params.provider),

    listOAuthApps: () => ({ oauth_apps: admin.listOAuthApps() }),
    addOAuthApp: ({ body }) => admin.addOAuthApp(body),
    deleteOAuthApp: async ({ params }) => {
      await admin.removeOAuthApp(params.oauth_app_id);
    },

    getSettings: currentSettings,
    updateSettings: async ({ body }) => {
      if (typeof body.chromium_path === 'string') await chromiumVersion(body.chromium_path);
      await deps.settings.update(body);
      if (body.job_concurrency !== undefined) deps.jobConcurrency.set(body.job_concurrency);
      if (body.chromium_path !== undefined) await deps.browser.setExecutablePath(body.chromium_path ?? undefined);
      return currentSettings();
    },
    getServiceLog: ({ query }) => ({
      file: deps.log.file,
      level: deps.log.level,
      entries: deps.log.entries(query.lines),
    }),
    listBrowserHosts: async () => ({ hosts: (await deps.hosts?.statuses()) ?? [] }),
    addBrowserHost: async ({ body }) => {
      if (!deps.hosts) throw new NotFoundError('Browser hosts are not available in this service');
      return deps.hosts.add(body);
    },
    removeBrowserHost: async ({ params }) => {
      if (!deps.hosts) throw new NotFoundError('Browser hosts are not available in this service');
      return deps.hosts.remove(params.host_name);
    },
  };
}
