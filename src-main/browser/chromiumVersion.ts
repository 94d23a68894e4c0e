import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { chromium } from './lazyChromium.ts';
import { ValidationError } from '../base/errors.ts';
import { chromiumArgs, needsNoSandbox, systemChromiumHost } from './chromiumDiscovery.ts';

const VERSION_TIMEOUT_MS = 10_000;
// "Chromium 140.0.7339.185", "Google Chrome 140.0…", "Google Chrome for Testing 140.0…", "Microsoft Edge 140.0…", "HeadlessChrome …".
const CHROMIUM_FAMILY = /(?:chrom(?:e|ium)|\bedge)\b[^\d]*\d+\.\d+/i;
// What a launched browser reports as its product: "HeadlessChrome/140.0…", "Chrome/140.0…", "HeadlessEdg/140.0…".
const LAUNCHED_FAMILY = /(?:chrom(?:e|ium)|edg)\b[^\d]*\d+\.\d+/i;

/**
 * Runs `<path> --version` and returns the first line it printed (e.g. "Chromium 140.0.7339.185"), so a
 * path the operator typed is known to be a working Chrome, Chromium or Edge before it is saved; 422
 * naming the reason otherwise (missing, failing, no version, or another program).
 */
export async function chromiumVersion(
  path: string,
  field = 'body.chromium_path',
  platform: NodeJS.Platform = process.platform,
): Promise<string> {
  if (!systemChromiumHost().exists(path))
    throw new ValidationError(`${field}: ${path} does not exist or is not an executable file`);
  const output = await new Promise<string>((resolve, reject) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error)
        reject(new ValidationError(`${field}: running '${path} --version' failed: ${error.message.split('\n')[0]}`));
      else resolve(stdout.trim());
    });
  });
  const firstLine = output.split('\n')[0]?.trim() ?? '';
  // chrome.exe and msedge.exe on Windows print nothing for --version (they open a window and detach):
  // there the browser is asked itself, by launching it headless once.
  if (firstLine === '' && platform === 'win32') return launchedVersion(path, field);
  if (!/\d+\.\d+/.test(firstLine))
    throw new ValidationError(
      `${field}: '${path} --version' did not print a browser version (got '${firstLine.slice(0, 120)}')`,
    );
  // Any program may answer --version (GNU `true` prints "true (GNU coreutils) 9.1"): the browser must say which one it is.
  if (!CHROMIUM_FAMILY.test(firstLine)) {
    throw new ValidationError(
      `${field}: ${path} is not Chrome, Chromium or Edge ('--version' printed '${firstLine.slice(0, 120)}')`,
    );
  }
  return firstLine;
}

/** The product and version a browser reports over the DevTools protocol after a headless launch ("Chrome/140.0…" becomes "Chrome 140.0…"). */
async function launchedVersion(path: string, field: string): Promise<string> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const browser = await chromium
    .launch({
      executablePath: path,
      headless: true,
      timeout: VERSION_TIMEOUT_MS,
      args: chromiumArgs({ noSandbox: needsNoSandbox(process.platform, false, uid) }),
    })
    .catch((error: unknown) => {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new ValidationError(
        `${field}: ${path} printed no version and did not start as Chrome, Chromium or Edge (${reason})`,
      );
    });
  try {
    const session = await browser.newBrowserCDPSession();
    const { product } = await session.send('Browser.getVersion');
    const line = product.replace('/', ' ');
    if (!LAUNCHED_FAMILY.test(line))
      throw new ValidationError(
        `${field}: ${path} is not Chrome, Chromium or Edge (it reported '${line.slice(0, 120)}')`,
      );
    return line;
  } finally {
    await browser.close().catch(() => undefined);
  }
}

/**
 * `chromiumVersion` remembered per executable path while the file is unchanged (same mtime and size):
 * `GET /admin/hosts` and `GET /admin/settings` show the local browser's version on every call (the console's Refresh), and running
 * `chromium --version` takes seconds on a loaded machine. A replaced or updated executable (new mtime or
 * size) is asked again; a failed probe is not remembered. Concurrent asks share one probe.
 */
export class ChromiumVersionCache {
  readonly #probe: (path: string, field: string) => Promise<string>;
  readonly #entries = new Map<string, { stamp: string; version: Promise<string> }>();

  constructor(probe: (path: string, field: string) => Promise<string> = (path, field) => chromiumVersion(path, field)) {
    this.#probe = probe;
  }

  version(path: string, field = 'body.chromium_path'): Promise<string> {
    let stamp: string;
    try {
      const stat = statSync(path);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      // Missing or unreadable: the probe says so in its own words (never remembered).
      return this.#probe(path, field);
    }
    const known = this.#entries.get(path);
    if (known?.stamp === stamp) return known.version;
    const version = this.#probe(path, field);
    this.#entries.set(path, { stamp, version });
    version.catch(() => {
      if (this.#entries.get(path)?.version === version) this.#entries.delete(path);
    });
    return version;
  }
}
