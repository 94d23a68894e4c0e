import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { HttpUrl } from '../contract/common.ts';
import { JobConcurrency } from '../contract/console.ts';
import { MODEL_PROVIDERS, type ModelProvider } from '../contract/models.ts';
import { LOG_LEVELS, type LogLevel } from './logger.ts';
import { platformDataDir } from './paths.ts';
import { PorticoError } from './errors.ts';

/**
 * Every environment variable Portico honours, read once by a host (serve.ts, index.ts, cli/main.ts)
 * and passed in; only Chromium discovery still asks the OS for its install folders. Where a value can
 * also come from a flag or a stored setting, the order is documented per field and in docs/api.md.
 */
export interface PorticoConfig {
  /** PORTICO_DATA_DIR. `--data-dir` wins over it; without either, `defaultDataDir` (the desktop app: Electron's userData). */
  dataDir: string | undefined;
  /** The platform's app-data folder (APPDATA, XDG_DATA_HOME or the home folder's usual place). */
  defaultDataDir: string;
  /** PORTICO_ALLOWED_HOSTS (comma-separated): Host names accepted besides loopback, added to `--allow-host`. */
  allowedHosts: readonly string[];
  /** PORTICO_JOB_CONCURRENCY; the console's saved setting wins over it, 2 when neither is set. */
  jobConcurrency: number | undefined;
  /** PORTICO_LOG_LEVEL; default `warn`. */
  logLevel: LogLevel;
  /** PORTICO_CHROMIUM; the console's saved Chromium path wins over it, discovery comes after. */
  chromiumPath: string | undefined;
  /** PORTICO_FFMPEG: the ffmpeg that records videos (absolute path); without it, the first `ffmpeg` on PATH. */
  ffmpegPath?: string | undefined;
  /** PORTICO_CHROMIUM_NO_SANDBOX; the sandbox is also off for root on Linux, whatever this says. */
  chromiumNoSandbox: boolean;
  /** PORTICO_HEADLESS_SHELL: `auto` (default), `off`, or the path of the headless shell headless jobs run. */
  headlessShell: HeadlessShellChoice;
  /** PORTICO_HEADLESS: no visible profile-login windows even when a display exists. */
  headless: boolean;
  /** Whether a visible window can appear: macOS and Windows always, elsewhere DISPLAY or WAYLAND_DISPLAY. */
  hasDisplay: boolean;
  /** PORTICO_DEFAULT_PROXY, parsed: what profile logins with `use_proxy: true` browse through. */
  defaultProxy: ProxyUrl | undefined;
  /** PORTICO_VAULT_KEY: the encrypted file vault's passphrase, used when no OS keychain answers. */
  vaultKey: string | undefined;
  /** PORTICO_GMAIL_API_BASE: where the Gmail API is called (default https://gmail.googleapis.com); tests point it at a stand-in. */
  gmailApiBase?: string | undefined;
  /** PORTICO_KEYCHAIN_SERVICE: the keychain service name (default `Portico`). */
  keychainService: string | undefined;
  /**
   * Per provider: `<PROVIDER>_API_KEY` (the keychain's key wins over it) and `PORTICO_<PROVIDER>_BASE_URL`
   * (wins over the stored base URL, which wins over the SDK's own variable — `ANTHROPIC_BASE_URL`,
   * `OPENAI_BASE_URL` — which wins over the provider's own).
   */
  providers: ProviderEnvironment;
}

/** A proxy in Playwright's shape, credentials moved out of the server address. */
export interface ProxyUrl {
  server: string;
  username?: string;
  password?: string;
}

/** What the environment says about one model provider. */
export interface ProviderEnvValues {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  /** The provider SDK's own base-URL variable (ANTHROPIC_BASE_URL, OPENAI_BASE_URL), below Portico's and a stored one. */
  sdkBaseUrl: string | undefined;
}

export type ProviderEnvironment = Readonly<Record<ModelProvider, ProviderEnvValues>>;

/** A variable that is set but unusable; start-up stops with the message naming it. */
export class ConfigError extends PorticoError {
  constructor(message: string) {
    super(message);
  }
}

/**
 * The environment variables of a provider, by one rule (ANTHROPIC_API_KEY, PORTICO_ANTHROPIC_BASE_URL,
 * OPENAI_COMPATIBLE_API_KEY…); src-main/llm/providers.ts shows them with the provider's other facts.
 */
export function providerEnvNames(provider: ModelProvider): {
  apiKeyEnv: string;
  baseUrlEnv: string;
  sdkBaseUrlEnv: string | undefined;
} {
  const stem = provider.toUpperCase().replace(/-/g, '_');
  return {
    apiKeyEnv: `${stem}_API_KEY`,
    baseUrlEnv: `PORTICO_${stem}_BASE_URL`,
    sdkBaseUrlEnv: SDK_BASE_URL_ENV[provider],
  };
}

/**
 * The base-URL variables the official SDKs read themselves. Portico always hands its SDK clients a base
 * URL, so it reads these for them: a key meant for a gateway named there must not go to the public API.
 */
const SDK_BASE_URL_ENV: Partial<Record<ModelProvider, string>> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

export interface ReadConfigOptions {
  platform?: NodeJS.Platform;
  home?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

// An empty variable counts as unset, as a shell's `PORTICO_X=` means.
const setting = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

// Secrets keep their exact bytes (a passphrase may end in a space); only "empty" means unset.
const secretSetting = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));

/**
 * PORTICO_HEADLESS_SHELL: what runs a job's headless browser. `auto` (the default) is Chromium's headless shell
 * when the same build is installed beside the chosen Chromium (browser/chromiumDiscovery.ts, findHeadlessShell),
 * `off` is always the chosen Chromium, anything else is the path of a headless shell to use (docs/decisions.md,
 * "Headless jobs in Chromium's headless shell").
 */
export type HeadlessShellChoice = 'auto' | 'off' | (string & {});

// `auto`, `off` (any case) or an absolute path: a relative one would depend on the folder Portico started in.
const headlessShell = setting.transform((value, ctx): HeadlessShellChoice => {
  if (value === undefined) return 'auto';
  const normal = value.toLowerCase();
  if (normal === 'auto' || normal === 'off') return normal;
  if (isAbsolute(value)) return value;
  ctx.addIssue({ code: 'custom', message: `must be auto, off or an absolute path (got '${value}')` });
  return z.NEVER;
});

const flag = setting.transform((value, ctx) => {
  if (value === undefined) return false;
  const normal = value.toLowerCase();
  if (normal === '1' || normal === 'true') return true;
  if (normal === '0' || normal === 'false') return false;
  ctx.addIssue({ code: 'custom', message: `must be 1 or 0 (got '${value}')` });
  return z.NEVER;
});

const concurrency = setting.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const parsed = /^\d+$/.test(value) ? JobConcurrency.safeParse(Number(value)) : undefined;
  if (parsed?.success) return parsed.data;
  ctx.addIssue({
    code: 'custom',
    message: `must be a whole number from ${JobConcurrency.minValue} to ${JobConcurrency.maxValue} (got '${value}')`,
  });
  return z.NEVER;
});

const logLevel = setting.transform((value, ctx): LogLevel => {
  if (value === undefined) return 'warn';
  const level = LOG_LEVELS.find((known) => known === value.toLowerCase());
  if (level !== undefined) return level;
  ctx.addIssue({ code: 'custom', message: `must be one of ${LOG_LEVELS.join(', ')} (got '${value}')` });
  return z.NEVER;
});

const hostList = setting.transform((value) =>
  (value ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean),
);

const baseUrl = setting.transform((value, ctx) => {
  if (value === undefined) return undefined;
  if (HttpUrl.safeParse(value).success) return value;
  ctx.addIssue({ code: 'custom', message: `must be an absolute http(s) URL (got '${value}')` });
  return z.NEVER;
});

const proxy = setting.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const parsed = parseProxyUrl(value);
  if (typeof parsed !== 'string') return parsed;
  ctx.addIssue({ code: 'custom', message: parsed });
  return z.NEVER;
});

/** Parses a proxy URL (`http://user:pass@host:3128`, or a bare `host:port`) into Playwright's shape; a string says what is wrong. */
function parseProxyUrl(text: string): ProxyUrl | string {
  const candidate = text.includes('://') ? text : `http://${text}`;
  // The text may carry a password: the message never repeats it.
  if (!URL.canParse(candidate)) return 'is not a proxy URL (expected e.g. http://user:pass@host:3128)';
  const url = new URL(candidate);
  if (!['http:', 'https:', 'socks5:', 'socks4:'].includes(url.protocol) || !url.hostname) {
    return 'must be an http(s) or socks URL with a host (e.g. http://user:pass@host:3128)';
  }
  return {
    server: `${url.protocol}//${url.host}`,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

const EnvSchema = z.object({
  PORTICO_DATA_DIR: setting,
  PORTICO_ALLOWED_HOSTS: hostList,
  PORTICO_JOB_CONCURRENCY: concurrency,
  PORTICO_LOG_LEVEL: logLevel,
  PORTICO_CHROMIUM: setting,
  PORTICO_CHROMIUM_NO_SANDBOX: flag,
  PORTICO_HEADLESS_SHELL: headlessShell,
  PORTICO_FFMPEG: setting,
  PORTICO_HEADLESS: flag,
  PORTICO_DEFAULT_PROXY: proxy,
  PORTICO_VAULT_KEY: secretSetting,
  PORTICO_KEYCHAIN_SERVICE: setting,
  PORTICO_GMAIL_API_BASE: baseUrl,
  DISPLAY: setting,
  WAYLAND_DISPLAY: setting,
  APPDATA: setting,
  XDG_DATA_HOME: setting,
});

// One small schema per provider, keyed by its variables' names, so a problem names the variable.
const providerSchemas = MODEL_PROVIDERS.map((provider) => {
  const { apiKeyEnv, baseUrlEnv, sdkBaseUrlEnv } = providerEnvNames(provider);
  const shape: Record<string, z.ZodType> = { [apiKeyEnv]: setting, [baseUrlEnv]: baseUrl };
  if (sdkBaseUrlEnv) shape[sdkBaseUrlEnv] = baseUrl;
  return { provider, apiKeyEnv, baseUrlEnv, sdkBaseUrlEnv, schema: z.object(shape) };
});

/** Reads and validates the environment once; a bad value throws ConfigError naming every bad variable. */
export function readConfig(env: Env, options: ReadConfigOptions = {}): PorticoConfig {
  const platform = options.platform ?? process.platform;
  const parsed = EnvSchema.safeParse(env);
  const issues = parsed.success ? [] : [...parsed.error.issues];
  const providers: Partial<Record<ModelProvider, ProviderEnvValues>> = {};
  for (const { provider, apiKeyEnv, baseUrlEnv, sdkBaseUrlEnv, schema } of providerSchemas) {
    const values = schema.safeParse(env);
    const read = (name: string | undefined): string | undefined =>
      name === undefined || !values.success ? undefined : (values.data[name] as string | undefined);
    if (values.success)
      providers[provider] = { apiKey: read(apiKeyEnv), baseUrl: read(baseUrlEnv), sdkBaseUrl: read(sdkBaseUrlEnv) };
    else issues.push(...values.error.issues);
  }
  if (!parsed.success || issues.length > 0) {
    const problems = issues.map((issue) => `${String(issue.path[0] ?? 'environment')} ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const values = parsed.data;
  return {
    dataDir: values.PORTICO_DATA_DIR,
    defaultDataDir: platformDataDir({
      platform,
      home: options.home ?? homedir(),
      appData: values.APPDATA,
      xdgDataHome: values.XDG_DATA_HOME,
    }),
    allowedHosts: values.PORTICO_ALLOWED_HOSTS,
    jobConcurrency: values.PORTICO_JOB_CONCURRENCY,
    logLevel: values.PORTICO_LOG_LEVEL,
    chromiumPath: values.PORTICO_CHROMIUM,
    chromiumNoSandbox: values.PORTICO_CHROMIUM_NO_SANDBOX,
    headlessShell: values.PORTICO_HEADLESS_SHELL,
    ffmpegPath: values.PORTICO_FFMPEG,
    headless: values.PORTICO_HEADLESS,
    hasDisplay:
      platform === 'darwin' ||
      platform === 'win32' ||
      values.DISPLAY !== undefined ||
      values.WAYLAND_DISPLAY !== undefined,
    defaultProxy: values.PORTICO_DEFAULT_PROXY,
    vaultKey: values.PORTICO_VAULT_KEY,
    keychainService: values.PORTICO_KEYCHAIN_SERVICE,
    gmailApiBase: values.PORTICO_GMAIL_API_BASE,
    providers: providers as Record<ModelProvider, ProviderEnvValues>,
  };
}
