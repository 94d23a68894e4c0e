import { ConflictError, NotFoundError, ValidationError } from '../../base/errors.ts';
import { describeZodIssues } from '../../base/zodIssues.ts';
import {
  connectHost,
  HostVersionMismatchError,
  PLAYWRIGHT_VERSION,
  probeHost,
  scrubToken,
} from '../../browser/browserHosts.ts';
import { BrowserHostSetting, type BrowserHostSetting as HostSetting } from '../../contract/hosts.ts';
import type { SecretStore } from '../../secrets/index.ts';
import type { OperatorSettings } from '../operatorSettings.ts';

/** Where a host's token is kept in the keychain/vault. */
export function hostTokenSecretName(name: string): string {
  return `browser-host/${name}`;
}

/** What `host add` learned by connecting once. */
export interface HostCheck {
  reachable: boolean;
  /** The browser the host runs, when it answered. */
  browser_version: string | null;
  /** Portico's Playwright (a `playwright` host must run the same version). */
  playwright_version: string;
  detail: string;
}

export interface HostAdminDeps {
  settings: OperatorSettings;
  secrets: () => Promise<SecretStore>;
  /** How long the check at `add` may take; default 30 s (a remote browser is launched). */
  checkTimeoutMs?: number;
}

/**
 * `portico host add/list/remove` and the console's hosts: the list lives in settings.json (read at start),
 * each token in the keychain/vault, never in the file. `add` connects once: a Playwright server of another
 * version is refused plainly (nothing is written); a host that does not answer is added with that said.
 */
export class HostAdmin {
  readonly #deps: HostAdminDeps;

  constructor(deps: HostAdminDeps) {
    this.#deps = deps;
  }

  async list(): Promise<{ hosts: (HostSetting & { token_stored: boolean })[]; local_max_browsers: number | null }> {
    const secrets = await this.#deps.secrets();
    const hosts = await Promise.all(
      (this.#deps.settings.values.browser_hosts ?? []).map(async (host) => ({
        ...host,
        token_stored: (await secrets.get(hostTokenSecretName(host.name)).catch(() => undefined)) !== undefined,
      })),
    );
    return { hosts, local_max_browsers: this.#deps.settings.values.local_max_browsers ?? null };
  }

  async add(
    input: unknown,
    token: string | undefined,
  ): Promise<{ host: HostSetting; token_stored: boolean; check: HostCheck; applies: string }> {
    const parsed = BrowserHostSetting.safeParse(input);
    if (!parsed.success) throw new ValidationError(describeZodIssues('', parsed.error.issues));
    const host = parsed.data;
    if ((this.#deps.settings.values.browser_hosts ?? []).some((known) => known.name === host.name)) {
      throw new ConflictError(`Browser host '${host.name}' already exists; remove it first to change it`);
    }
    const check = await this.check(host, token);
    // Stored only once the check passed: a refused host leaves nothing behind.
    if (token !== undefined) await (await this.#deps.secrets()).set(hostTokenSecretName(host.name), token);
    await this.#deps.settings.update({
      browser_hosts: (current) => [...current.filter((known) => known.name !== host.name), host],
    });
    return { host, token_stored: token !== undefined, check, applies: 'at the next start of the service' };
  }

  async remove(name: string): Promise<{ removed: string; applies: string }> {
    if (!(this.#deps.settings.values.browser_hosts ?? []).some((known) => known.name === name))
      throw new NotFoundError(`No browser host '${name}'`);
    await this.#deps.settings.update({ browser_hosts: (current) => current.filter((known) => known.name !== name) });
    await (await this.#deps.secrets()).delete(hostTokenSecretName(name)).catch(() => false);
    return { removed: name, applies: 'at the next start of the service' };
  }

  /** Connects once as a job would; a Playwright version mismatch is a 422 saying which versions. */
  async check(host: HostSetting, token: string | undefined): Promise<HostCheck> {
    const timeout = this.#deps.checkTimeoutMs ?? 30_000;
    try {
      if (host.kind === 'cdp') {
        const version = await probeHost(host, token, timeout);
        return {
          reachable: true,
          browser_version: version ?? null,
          playwright_version: PLAYWRIGHT_VERSION,
          detail: `answers${version ? ` (${version})` : ''}`,
        };
      }
      const browser = await connectHost(host, token, timeout);
      const version = browser.version();
      await browser.close().catch(() => undefined);
      return {
        reachable: true,
        browser_version: version,
        playwright_version: PLAYWRIGHT_VERSION,
        detail: `Playwright ${PLAYWRIGHT_VERSION} on both sides; the host launched Chromium ${version}`,
      };
    } catch (error) {
      const raw = error instanceof Error ? error.message : String(error);
      if (/version mismatch/i.test(raw))
        throw new ValidationError(
          new HostVersionMismatchError(host.name, /server version: v?([\d.]+)/.exec(raw)?.[1]).message,
        );
      const detail = scrubToken(
        raw
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .slice(0, 4)
          .join(' '),
        token,
      );
      return {
        reachable: false,
        browser_version: null,
        playwright_version: PLAYWRIGHT_VERSION,
        detail: `not reachable now (${detail}); added anyway, it takes browsers once it answers`,
      };
    }
  }
}
