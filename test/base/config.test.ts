// tier: unit
import { describe, expect, it } from 'vitest';
import { ConfigError, providerEnvNames, readConfig } from '../../src-main/base/config.ts';
import { PROVIDERS } from '../../src-main/llm/index.ts';

const linux = { platform: 'linux' as const, home: '/home/ana' };

function configError(env: Record<string, string>): string {
  try {
    readConfig(env, linux);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('readConfig accepted a bad environment');
}

describe('readConfig: the one reading of the environment', () => {
  it('an empty environment gives the documented defaults', () => {
    expect(readConfig({}, linux)).toEqual({
      dataDir: undefined,
      defaultDataDir: '/home/ana/.local/share/portico',
      allowedHosts: [],
      jobConcurrency: undefined,
      logLevel: 'warn',
      chromiumPath: undefined,
      chromiumNoSandbox: false,
      headlessShell: 'auto',
      headless: false,
      hasDisplay: false,
      defaultProxy: undefined,
      vaultKey: undefined,
      keychainService: undefined,
      providers: {
        anthropic: { apiKey: undefined, baseUrl: undefined },
        openai: { apiKey: undefined, baseUrl: undefined },
        moonshot: { apiKey: undefined, baseUrl: undefined },
        'openai-compatible': { apiKey: undefined, baseUrl: undefined },
      },
    });
  });

  it("reads every Portico variable and the providers' keys and base URLs", () => {
    const config = readConfig(
      {
        PORTICO_DATA_DIR: '/data/portico',
        PORTICO_ALLOWED_HOSTS: ' portico.lan, ,box.local ',
        PORTICO_JOB_CONCURRENCY: '4',
        PORTICO_LOG_LEVEL: 'INFO',
        PORTICO_CHROMIUM: '/opt/chrome/chrome',
        PORTICO_CHROMIUM_NO_SANDBOX: '1',
        PORTICO_HEADLESS_SHELL: '/opt/chrome-headless-shell/chrome-headless-shell',
        PORTICO_HEADLESS: 'true',
        PORTICO_DEFAULT_PROXY: 'http://user:p%40ss@proxy.lan:3128',
        PORTICO_VAULT_KEY: ' spaced passphrase ',
        PORTICO_KEYCHAIN_SERVICE: 'Portico-dev',
        ANTHROPIC_API_KEY: ' sk-ant ',
        PORTICO_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1',
        DISPLAY: ':0',
      },
      linux,
    );
    expect(config).toMatchObject({
      dataDir: '/data/portico',
      allowedHosts: ['portico.lan', 'box.local'],
      jobConcurrency: 4,
      logLevel: 'info',
      chromiumPath: '/opt/chrome/chrome',
      chromiumNoSandbox: true,
      headlessShell: '/opt/chrome-headless-shell/chrome-headless-shell',
      headless: true,
      hasDisplay: true,
      defaultProxy: { server: 'http://proxy.lan:3128', username: 'user', password: 'p@ss' },
      // A passphrase keeps its exact bytes; everything else is trimmed.
      vaultKey: ' spaced passphrase ',
      keychainService: 'Portico-dev',
    });
    expect(config.providers.anthropic).toEqual({ apiKey: 'sk-ant', baseUrl: undefined });
    expect(config.providers['openai-compatible']).toEqual({ apiKey: undefined, baseUrl: 'http://127.0.0.1:11434/v1' });
  });

  it('an empty variable counts as unset', () => {
    expect(
      readConfig(
        { PORTICO_JOB_CONCURRENCY: '', PORTICO_DATA_DIR: ' ', PORTICO_VAULT_KEY: '', PORTICO_HEADLESS: '' },
        linux,
      ),
    ).toMatchObject({ jobConcurrency: undefined, dataDir: undefined, vaultKey: undefined, headless: false });
  });

  it('PORTICO_HEADLESS_SHELL is auto unless set to off or an absolute path', () => {
    expect(readConfig({}, linux).headlessShell).toBe('auto');
    expect(readConfig({ PORTICO_HEADLESS_SHELL: ' OFF ' }, linux).headlessShell).toBe('off');
    expect(readConfig({ PORTICO_HEADLESS_SHELL: 'Auto' }, linux).headlessShell).toBe('auto');
    expect(configError({ PORTICO_HEADLESS_SHELL: 'shell/headless_shell' })).toContain(
      "PORTICO_HEADLESS_SHELL must be auto, off or an absolute path (got 'shell/headless_shell')",
    );
  });

  it('a bad value fails with a message naming the variable, the rule and the value', () => {
    expect(configError({ PORTICO_JOB_CONCURRENCY: 'abc' })).toBe(
      "Invalid environment: PORTICO_JOB_CONCURRENCY must be a whole number from 1 to 32 (got 'abc')",
    );
    for (const value of ['0', '33', '1.5', '-2'])
      expect(configError({ PORTICO_JOB_CONCURRENCY: value })).toContain(
        `PORTICO_JOB_CONCURRENCY must be a whole number from 1 to 32 (got '${value}')`,
      );
    expect(configError({ PORTICO_LOG_LEVEL: 'loud' })).toContain(
      "PORTICO_LOG_LEVEL must be one of debug, info, warn, error, silent (got 'loud')",
    );
    expect(configError({ PORTICO_HEADLESS: 'yes please' })).toContain(
      "PORTICO_HEADLESS must be 1 or 0 (got 'yes please')",
    );
    expect(configError({ PORTICO_ANTHROPIC_BASE_URL: 'localhost:8080' })).toContain(
      "PORTICO_ANTHROPIC_BASE_URL must be an absolute http(s) URL (got 'localhost:8080')",
    );
  });

  it('every bad variable is named at once, and a proxy password is never repeated', () => {
    const message = configError({
      PORTICO_JOB_CONCURRENCY: 'abc',
      PORTICO_CHROMIUM_NO_SANDBOX: 'maybe',
      PORTICO_DEFAULT_PROXY: 'ftp://user:hunter2@proxy.lan',
    });
    expect(message).toMatch(
      /PORTICO_JOB_CONCURRENCY .*; PORTICO_CHROMIUM_NO_SANDBOX .*; PORTICO_DEFAULT_PROXY must be an http\(s\) or socks URL with a host/,
    );
    expect(message).not.toContain('hunter2');
  });

  it('the data folder default follows the platform', () => {
    expect(readConfig({ XDG_DATA_HOME: '/xdg' }, linux).defaultDataDir).toBe('/xdg/portico');
    expect(readConfig({}, { platform: 'darwin', home: '/Users/ana' }).defaultDataDir).toBe(
      '/Users/ana/Library/Application Support/Portico',
    );
    expect(
      readConfig({ APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, { platform: 'win32', home: 'C:\\Users\\ana' })
        .defaultDataDir,
    ).toMatch(/Roaming.Portico$/);
    expect(readConfig({}, { platform: 'darwin', home: '/Users/ana' }).hasDisplay).toBe(true);
  });

  it('the provider registry names the variables this reading reads', () => {
    for (const info of Object.values(PROVIDERS)) {
      expect({ apiKeyEnv: info.apiKeyEnv, baseUrlEnv: info.baseUrlEnv, sdkBaseUrlEnv: info.sdkBaseUrlEnv }).toEqual(
        providerEnvNames(info.name),
      );
      const sdk = info.sdkBaseUrlEnv ? { [info.sdkBaseUrlEnv]: `http://sdk-${info.name}.test/v1` } : {};
      const config = readConfig(
        { [info.apiKeyEnv]: `key-of-${info.name}`, [info.baseUrlEnv]: `http://${info.name}.test/v1`, ...sdk },
        linux,
      );
      expect(config.providers[info.name]).toEqual({
        apiKey: `key-of-${info.name}`,
        baseUrl: `http://${info.name}.test/v1`,
        sdkBaseUrl: info.sdkBaseUrlEnv ? `http://sdk-${info.name}.test/v1` : undefined,
      });
    }
    expect(PROVIDERS.anthropic).toMatchObject({
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      baseUrlEnv: 'PORTICO_ANTHROPIC_BASE_URL',
      sdkBaseUrlEnv: 'ANTHROPIC_BASE_URL',
    });
    expect(PROVIDERS.openai).toMatchObject({ sdkBaseUrlEnv: 'OPENAI_BASE_URL' });
    expect(PROVIDERS['openai-compatible']).toMatchObject({
      apiKeyEnv: 'OPENAI_COMPATIBLE_API_KEY',
      baseUrlEnv: 'PORTICO_OPENAI_COMPATIBLE_BASE_URL',
    });
  });
});
