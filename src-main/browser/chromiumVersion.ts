import { execFile } from 'node:child_process';
import { ValidationError } from '../base/errors.ts';
import { systemChromiumHost } from './chromiumDiscovery.ts';

const VERSION_TIMEOUT_MS = 10_000;
// "Chromium 140.0.7339.185", "Google Chrome 140.0…", "Google Chrome for Testing 140.0…", "Microsoft Edge 140.0…", "HeadlessChrome …".
const CHROMIUM_FAMILY = /(?:chrom(?:e|ium)|\bedge)\b[^\d]*\d+\.\d+/i;

/**
 * Runs `<path> --version` and returns the first line it printed (e.g. "Chromium 140.0.7339.185"), so a
 * path the operator typed is known to be a working Chrome, Chromium or Edge before it is saved; 422
 * naming the reason otherwise (missing, failing, no version, or another program).
 */
export async function chromiumVersion(path: string, field = 'body.chromium_path'): Promise<string> {
  if (!systemChromiumHost().exists(path)) throw new ValidationError(`${field}: ${path} does not exist or is not an executable file`);
  const output = await new Promise<string>((resolve, reject) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error) reject(new ValidationError(`${field}: running '${path} --version' failed: ${error.message.split('\n')[0]}`));
      else resolve(stdout.trim());
    });
  });
  const firstLine = output.split('\n')[0]?.trim() ?? '';
  if (!/\d+\.\d+/.test(firstLine)) throw new ValidationError(`${field}: '${path} --version' did not print a browser version (got '${firstLine.slice(0, 120)}')`);
  // Any program may answer --version (GNU `true` prints "true (GNU coreutils) 9.1"): the browser must say which one it is.
  if (!CHROMIUM_FAMILY.test(firstLine)) {
    throw new ValidationError(`${field}: ${path} is not Chrome, Chromium or Edge ('--version' printed '${firstLine.slice(0, 120)}')`);
  }
  return firstLine;
}
