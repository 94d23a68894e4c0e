import { execFile } from 'node:child_process';
import { ValidationError } from '../base/errors.ts';
import { systemChromiumHost } from './chromiumDiscovery.ts';

const VERSION_TIMEOUT_MS = 10_000;

/**
 * Runs `<path> --version` and returns what it printed (e.g. "Chromium 140.0.7339.185"), so a path the
 * operator typed is known to be a working browser before it is saved; 422 naming the reason otherwise.
 */
export async function chromiumVersion(path: string, field = 'body.chromium_path'): Promise<string> {
  if (!systemChromiumHost().exists(path)) throw new ValidationError(`${field}: ${path} does not exist or is not an executable file`);
  const output = await new Promise<string>((resolve, reject) => {
    execFile(path, ['--version'], { timeout: VERSION_TIMEOUT_MS, windowsHide: true }, (error, stdout) => {
      if (error) reject(new ValidationError(`${field}: running '${path} --version' failed: ${error.message.split('\n')[0]}`));
      else resolve(stdout.trim());
    });
  });
  if (!/\d+\.\d+/.test(output)) throw new ValidationError(`${field}: '${path} --version' did not print a browser version (got '${output.slice(0, 120)}')`);
  return output;
}
