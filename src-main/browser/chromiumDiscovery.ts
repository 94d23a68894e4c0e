import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

import type { HeadlessShellChoice } from '../base/config.ts';
import { ChromiumNotFoundError } from './browserErrors.ts';

/** What discovery may look at (the platform's install folders in `env`); injected so every platform can be tested on any machine. */
export interface ChromiumHost {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  exists(filePath: string): boolean;
}

export const CHROMIUM_ENV_VAR = 'PORTICO_CHROMIUM';

const LINUX_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/local/bin/chromium',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/opt/google/chrome/chrome',
  '/usr/bin/microsoft-edge',
  '/usr/bin/microsoft-edge-stable',
  '/opt/microsoft/msedge/msedge',
];

const MAC_BUNDLES = [
  'Google Chrome.app/Contents/MacOS/Google Chrome',
  'Chromium.app/Contents/MacOS/Chromium',
  'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
];

const WINDOWS_EXES = [
  'Google\\Chrome\\Application\\chrome.exe',
  'Chromium\\Application\\chrome.exe',
  'Microsoft\\Edge\\Application\\msedge.exe',
];

// Windows environment names are case-insensitive, but an injected plain object is not.
function envValue(host: ChromiumHost, name: string): string | undefined {
  const direct = host.env[name];
  if (direct !== undefined && direct !== '') return direct;
  if (host.platform !== 'win32') return undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(host.env)) {
    if (key.toLowerCase() === lower && value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** The install locations of Chrome, Chromium and Edge searched on `host.platform`, in order. */
export function chromiumInstallPaths(host: ChromiumHost): string[] {
  switch (host.platform) {
    case 'darwin': {
      const home = envValue(host, 'HOME');
      const roots = ['/Applications', ...(home ? [path.posix.join(home, 'Applications')] : [])];
      return roots.flatMap((root) => MAC_BUNDLES.map((bundle) => path.posix.join(root, bundle)));
    }
    case 'win32': {
      const roots = [
        envValue(host, 'LOCALAPPDATA'),
        envValue(host, 'ProgramFiles') ?? 'C:\\Program Files',
        envValue(host, 'ProgramFiles(x86)') ?? 'C:\\Program Files (x86)',
      ].filter((root): root is string => root !== undefined);
      return [...new Set(roots)].flatMap((root) => WINDOWS_EXES.map((exe) => path.win32.join(root, exe)));
    }
    default:
      return [...LINUX_PATHS];
  }
}

/** Where an explicit Chromium path may come from, in the order they win. */
export interface ChromiumChoice {
  /** The operator's saved path (console Settings, settings.json). */
  configuredPath?: string | undefined;
  /** PORTICO_CHROMIUM (read by base/config.ts). */
  envPath?: string | undefined;
}

/**
 * The Chromium-family executable to launch: the configured path, else `PORTICO_CHROMIUM`, else the
 * first install path that exists. An explicit path that does not exist is an error, not a hint:
 * silently running some other browser would hide the misconfiguration.
 */
export function findChromium(host: ChromiumHost, choice: ChromiumChoice = {}): string {
  const explicit = choice.configuredPath ?? choice.envPath;
  if (explicit !== undefined) {
    if (host.exists(explicit)) return explicit;
    const source = choice.configuredPath !== undefined ? 'The configured Chromium path' : CHROMIUM_ENV_VAR;
    throw new ChromiumNotFoundError(
      `Chromium was not found: ${source} points to ${explicit}, which does not exist. Set ${CHROMIUM_ENV_VAR} to the path of a Chrome, Chromium or Edge executable.`,
      [explicit],
    );
  }
  const tried = chromiumInstallPaths(host);
  const found = tried.find((candidate) => host.exists(candidate));
  if (found !== undefined) return found;
  throw new ChromiumNotFoundError(
    `Chromium was not found. Tried: ${tried.join(', ')}. Install Google Chrome, Chromium or Microsoft Edge, or set ${CHROMIUM_ENV_VAR} to the path of its executable.`,
    tried,
  );
}

export const HEADLESS_SHELL_ENV_VAR = 'PORTICO_HEADLESS_SHELL';

// Debian's and Ubuntu's chromium-headless-shell package: built from the same source package as chromium,
// same version, installed beside it (its /usr/bin wrapper runs this binary without exec).
const DEBIAN_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const DEBIAN_CHROMIUM = new Set(['/usr/bin/chromium', '/usr/lib/chromium/chromium']);
// Playwright's browser cache: the full build and the shell of one revision (older and newer folder names).
const PLAYWRIGHT_CHROMIUM = /^(.*)\/chromium-(\d+)\/(chrome-linux(?:64)?)\/chrome$/;

/**
 * The headless shell to launch instead of `chromiumPath` for a headless job, or undefined for the chosen
 * Chromium itself. `auto` only takes a shell known to be the same build (a profile a headed browser wrote
 * is opened by the same version); an explicit path must exist.
 */
export function findHeadlessShell(
  host: ChromiumHost,
  chromiumPath: string,
  choice: HeadlessShellChoice = 'auto',
): string | undefined {
  if (choice === 'off') return undefined;
  if (choice !== 'auto') {
    if (host.exists(choice)) return choice;
    throw new ChromiumNotFoundError(
      `Chromium's headless shell was not found: ${HEADLESS_SHELL_ENV_VAR} points to ${choice}, which does not exist. Set it to the path of a headless shell, 'auto' or 'off'.`,
      [choice],
    );
  }
  if (host.platform !== 'linux') return undefined;
  const candidates: string[] = [];
  if (DEBIAN_CHROMIUM.has(chromiumPath)) candidates.push(DEBIAN_SHELL);
  const playwright = PLAYWRIGHT_CHROMIUM.exec(chromiumPath);
  if (playwright) {
    const [, root, revision] = playwright;
    candidates.push(
      `${root}/chromium_headless_shell-${revision}/chrome-linux/headless_shell`,
      `${root}/chromium_headless_shell-${revision}/chrome-headless-shell-linux64/chrome-headless-shell`,
    );
  }
  return candidates.find((candidate) => host.exists(candidate));
}

// The platform's install folders only; Portico's own settings (PORTICO_CHROMIUM…) come through base/config.ts.
const PLATFORM_FOLDER_VARS = ['LOCALAPPDATA', 'ProgramFiles', 'ProgramFiles(x86)'];

/** The real host: this process's platform, its install folders, and executable files on disk. */
export function systemChromiumHost(): ChromiumHost {
  const env: Record<string, string | undefined> = { HOME: homedir() };
  for (const name of PLATFORM_FOLDER_VARS) env[name] = process.env[name];
  return {
    platform: process.platform,
    env,
    exists: (filePath) => {
      try {
        if (!statSync(filePath).isFile()) return false;
        if (process.platform !== 'win32') accessSync(filePath, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The Chromium switches every launch needs on this product's machines (closed networks included). */
export function chromiumArgs(options: { noSandbox: boolean; headed?: { width: number; height: number } }): string[] {
  const args = [
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
  if (options.noSandbox) args.unshift('--no-sandbox');
  if (options.headed) args.push(`--window-size=${options.headed.width},${options.headed.height}`);
  return args;
}

/**
 * Chromium's `--host-resolver-rules` switch making `host:port` pairs unresolvable (none: no switch). The
 * rules match IP literals too, and apply to every request of every page, navigations and fetches alike.
 */
export function blockedHostRules(hostPorts: readonly string[]): string[] {
  return hostPorts.length === 0
    ? []
    : [`--host-resolver-rules=${hostPorts.map((hostPort) => `MAP ${hostPort} ~NOTFOUND`).join(', ')}`];
}

/** Chromium's sandbox cannot start as root on Linux; elsewhere it stays on unless explicitly disabled (PORTICO_CHROMIUM_NO_SANDBOX). */
export function needsNoSandbox(
  platform: NodeJS.Platform,
  disabledByOperator: boolean,
  uid: number | undefined,
): boolean {
  if (disabledByOperator) return true;
  return platform === 'linux' && uid === 0;
}
