import type { PorticoConfig } from '../../base/config.ts';
import type { ProxySettings } from '../../browser/browserRuntime.ts';

/** How profile-login browsers are opened, decided once from the configuration by the composition root. */
export interface LoginBrowserConfig {
  /** A visible window beside the live view (there is a display and PORTICO_HEADLESS is not 1). */
  headed: boolean;
  /** What `use_proxy: true` browses through; PORTICO_DEFAULT_PROXY, e.g. `http://user:pass@host:3128`. */
  defaultProxy: ProxySettings | undefined;
}

/** The login-browser settings of this configuration. */
export function loginBrowserConfig(
  config: Pick<PorticoConfig, 'headless' | 'hasDisplay' | 'defaultProxy'>,
): LoginBrowserConfig {
  return { headed: !config.headless && config.hasDisplay, defaultProxy: config.defaultProxy };
}
