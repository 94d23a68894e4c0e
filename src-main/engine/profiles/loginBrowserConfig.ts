import type { ProxySettings } from '../../browser/browserRuntime.ts';

/** How profile-login browsers are opened, read once from the environment by the composition root. */
export interface LoginBrowserConfig {
  /** A visible window beside the live view (there is a display and PORTICO_HEADLESS is not 1). */
  headed: boolean;
  /** What `use_proxy: true` browses through; PORTICO_DEFAULT_PROXY, e.g. `http://user:pass@host:3128`. */
  defaultProxy: ProxySettings | undefined;
}

/** Whether a headed window can appear: Linux and the BSDs need an X11 or Wayland display; macOS and Windows always have one. */
export function canOpenHeaded(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (env.PORTICO_HEADLESS === '1') return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Parses a proxy URL into Playwright's shape, moving credentials out of the server address. */
export function parseProxyUrl(text: string): ProxySettings {
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    throw new Error(`PORTICO_DEFAULT_PROXY is not a proxy URL: '${text}'`);
  }
  if (!['http:', 'https:', 'socks5:', 'socks4:'].includes(url.protocol) || !url.hostname) {
    throw new Error(`PORTICO_DEFAULT_PROXY must be an http(s) or socks URL with a host: '${text}'`);
  }
  const server = `${url.protocol}//${url.host}`;
  return {
    server,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** The login-browser settings of this process. */
export function loginBrowserConfigFromEnv(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): LoginBrowserConfig {
  return {
    headed: canOpenHeaded(env, platform),
    defaultProxy: env.PORTICO_DEFAULT_PROXY ? parseProxyUrl(env.PORTICO_DEFAULT_PROXY) : undefined,
  };
}
