import type { Clock } from '../../base/clock.ts';
import type { Logger } from '../../base/logger.ts';
import { BrowserHosts, type RemoteHostSpec } from '../../browser/browserHosts.ts';
import {
  DEFAULT_LOCAL_MAX_BROWSERS,
  LOCAL_HOST,
  type BrowserHostSetting,
  type BrowserHostStatus,
} from '../../contract/hosts.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { BrowserSlots, PlacementHost } from '../limits/browserSlots.ts';
import { hostTokenSecretName } from './hostAdmin.ts';

export interface BrowserHostSettingsView {
  browser_hosts?: readonly BrowserHostSetting[] | undefined;
  local_max_browsers?: number | undefined;
}

/** The browsers every host holds together (local_max_browsers + each host's max_browsers). */
export function browserCapacity(settings: BrowserHostSettingsView): number {
  return (
    (settings.local_max_browsers ?? DEFAULT_LOCAL_MAX_BROWSERS) +
    (settings.browser_hosts ?? []).reduce((sum, host) => sum + host.max_browsers, 0)
  );
}

export interface HostSetupDeps {
  settings: BrowserHostSettingsView;
  secrets: () => Promise<SecretStore>;
  onSecret?: (value: string) => void;
  clock?: Clock;
  probeIntervalMs?: number;
  logger?: Logger;
}

/** The remote hosts of settings.json, with their tokens read from the keychain/vault when connecting. */
export function createBrowserHosts(deps: HostSetupDeps): BrowserHosts {
  const specs: RemoteHostSpec[] = (deps.settings.browser_hosts ?? []).map((host) => ({
    name: host.name,
    kind: host.kind,
    url: host.url,
    maxBrowsers: host.max_browsers,
    labels: host.labels ?? [],
  }));
  return new BrowserHosts({
    hosts: specs,
    token: async (name) => (await deps.secrets()).get(hostTokenSecretName(name)),
    ...(deps.onSecret && { onSecret: deps.onSecret }),
    ...(deps.clock && { clock: deps.clock }),
    ...(deps.probeIntervalMs !== undefined && { probeIntervalMs: deps.probeIntervalMs }),
    ...(deps.logger && { logger: deps.logger }),
  });
}

/** Placement's view: `local` first (it carries the label `local`), then the hosts in settings order. */
export function placementHosts(settings: BrowserHostSettingsView, hosts: BrowserHosts): PlacementHost[] {
  const local: PlacementHost = {
    name: LOCAL_HOST,
    maxBrowsers: settings.local_max_browsers ?? DEFAULT_LOCAL_MAX_BROWSERS,
    labels: [LOCAL_HOST],
    accepting: () => true,
    unavailableReason: () =>
      (settings.local_max_browsers ?? DEFAULT_LOCAL_MAX_BROWSERS) === 0
        ? 'runs no browsers (local_max_browsers 0)'
        : undefined,
  };
  return [
    local,
    ...hosts.states().map(
      (state): PlacementHost => ({
        name: state.spec.name,
        maxBrowsers: state.spec.maxBrowsers,
        labels: state.spec.labels,
        accepting: () => state.reachable,
        unavailableReason: () =>
          state.reachable
            ? undefined
            : `unreachable${state.lastError ? ` (${state.lastError})` : state.lastCheckedAt === null ? ' (not probed yet)' : ''}`,
      }),
    ),
  ];
}

/** `GET /admin/hosts`: each host's state, never a token. */
export async function hostStatuses(
  settings: BrowserHostSettingsView,
  hosts: BrowserHosts,
  slots: BrowserSlots,
  secrets: () => Promise<SecretStore>,
  localVersion: () => Promise<string | null>,
): Promise<BrowserHostStatus[]> {
  const store = await secrets().catch(() => undefined);
  const tokenStored = async (name: string) =>
    (await store?.get(hostTokenSecretName(name)).catch(() => undefined)) !== undefined;
  const configured = settings.browser_hosts ?? [];
  const running = new Set(hosts.states().map((state) => state.spec.name));
  const remote = await Promise.all(
    hosts.states().map(
      async (state): Promise<BrowserHostStatus> => ({
        name: state.spec.name,
        kind: state.spec.kind,
        url: state.spec.url,
        labels: [...state.spec.labels],
        reachable: state.reachable,
        version: state.version,
        browsers_in_use: slots.inUseOn(state.spec.name),
        max_browsers: state.spec.maxBrowsers,
        token_stored: await tokenStored(state.spec.name),
        last_error: state.lastError,
        last_checked_at: state.lastCheckedAt,
        pending: configured.some((host) => host.name === state.spec.name) ? null : 'removed',
      }),
    ),
  );
  // Added since the service started (console or CLI): listed, not used until the next start.
  const added = await Promise.all(
    configured
      .filter((host) => !running.has(host.name))
      .map(
        async (host): Promise<BrowserHostStatus> => ({
          name: host.name,
          kind: host.kind,
          url: host.url,
          labels: [...(host.labels ?? [])],
          reachable: false,
          version: null,
          browsers_in_use: 0,
          max_browsers: host.max_browsers,
          token_stored: await tokenStored(host.name),
          last_error: null,
          last_checked_at: null,
          pending: 'added',
        }),
      ),
  );
  return [
    {
      name: LOCAL_HOST,
      kind: 'local',
      url: null,
      labels: [LOCAL_HOST],
      reachable: true,
      version: await localVersion().catch(() => null),
      browsers_in_use: slots.inUseOn(LOCAL_HOST),
      max_browsers: settings.local_max_browsers ?? DEFAULT_LOCAL_MAX_BROWSERS,
      token_stored: false,
      last_error: null,
      last_checked_at: null,
      pending: null,
    },
    ...remote,
    ...added,
  ];
}
