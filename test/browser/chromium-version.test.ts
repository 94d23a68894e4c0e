import { chmodSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src-main/base/errors.ts';
import { ChromiumVersionCache, chromiumVersion } from '../../src-main/browser/chromiumVersion.ts';
import { scratchDir } from '../helpers/browserFixtures.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { jsonOf, startService } from '../helpers/service.ts';

/** A real executable that prints `output` for `--version`. */
function fakeProgram(dir: string, name: string, output: string, exitCode = 0): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' '${output}'\nexit ${exitCode}\n`);
  chmodSync(path, 0o755);
  return path;
}

async function refusal(path: string): Promise<string> {
  const error = await chromiumVersion(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).status).toBe(422);
  return (error as ValidationError).detail;
}

describe('chromiumVersion: a Chromium path must run and name Chrome, Chromium or Edge', () => {
  const bin = scratchDir('portico-version-');
  afterAll(() => bin.cleanup());

  it('accepts the real Chromium and returns its version line', async () => {
    expect(await chromiumVersion(CHROMIUM_PATH)).toMatch(/^Chromium \d+\.\d+/);
  });

  it.each([
    ['google-chrome', 'Google Chrome 140.0.7339.185'],
    ['chrome-for-testing', 'Google Chrome for Testing 140.0.7339.185'],
    ['msedge', 'Microsoft Edge 140.0.3485.54'],
    ['chromium-snap', 'Chromium 140.0.7339.185 snap'],
  ])('accepts %s printing %j', async (name, output) => {
    expect(await chromiumVersion(fakeProgram(bin.path, name, output))).toBe(output);
  });

  it('refuses /bin/true, whose --version prints a version but not a browser', async () => {
    if (process.platform === 'win32') return;
    expect(await refusal('/bin/true')).toMatch(
      /^body\.chromium_path: \/bin\/true is not Chrome, Chromium or Edge \('--version' printed 'true \(GNU coreutils\) \d+\.\d+'\)$/,
    );
  });

  it.each([
    [
      'firefox',
      'Mozilla Firefox 128.0',
      /is not Chrome, Chromium or Edge \('--version' printed 'Mozilla Firefox 128\.0'\)$/,
    ],
    ['chromedriver', 'ChromeDriver 140.0.7339.185 (abc)', /is not Chrome, Chromium or Edge/],
    ['silent', '', /did not print a browser version \(got ''\)$/],
  ])('refuses %s', async (name, output, detail) => {
    expect(await refusal(fakeProgram(bin.path, name, output))).toMatch(detail);
  });

  it('on Windows, where chrome.exe prints nothing for --version, asks the launched browser itself', async () => {
    // A real Chromium behind a wrapper that, like chrome.exe, answers --version with nothing.
    const silentChrome = join(bin.path, 'chrome-silent');
    writeFileSync(silentChrome, `#!/bin/sh\n[ "$1" = "--version" ] && exit 0\nexec '${CHROMIUM_PATH}' "$@"\n`);
    chmodSync(silentChrome, 0o755);
    expect(await chromiumVersion(silentChrome, 'body.chromium_path', 'win32')).toMatch(/^(Headless)?Chrome \d+\.\d+/);
    // Elsewhere silence is still a refusal, and on Windows a silent program that is no browser is refused too.
    expect(await refusal(silentChrome)).toMatch(/did not print a browser version/);
    const silent = fakeProgram(bin.path, 'silent-win', '');
    const error = await chromiumVersion(silent, 'body.chromium_path', 'win32').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).detail).toMatch(
      /printed no version and did not start as Chrome, Chromium or Edge/,
    );
  });

  it('refuses a program that fails, and a path that is missing', async () => {
    expect(await refusal(fakeProgram(bin.path, 'broken', 'Chromium 140.0', 3))).toMatch(
      /running '.*broken --version' failed/,
    );
    expect(await refusal(join(bin.path, 'missing'))).toMatch(/does not exist or is not an executable file$/);
  });

  it('PATCH /admin/settings with /bin/true is 422 {detail} and changes nothing, not even the other fields', async () => {
    if (process.platform === 'win32') return;
    const svc = await startService();
    try {
      const asConsole = { key: null, headers: { 'x-console-token': svc.consoleToken } };
      const before = await jsonOf(await svc.api('/admin/settings', asConsole));
      const refused = await jsonOf(
        await svc.api('/admin/settings', {
          ...asConsole,
          method: 'PATCH',
          json: { chromium_path: '/bin/true', job_concurrency: 5 },
        }),
      );
      expect(refused.status).toBe(422);
      expect((refused.body as { detail: string }).detail).toMatch(
        /^body\.chromium_path: \/bin\/true is not Chrome, Chromium or Edge/,
      );
      expect(await jsonOf(await svc.api('/admin/settings', asConsole))).toEqual(before);
      const saved = (() => {
        try {
          return readFileSync(join(svc.dataDir, 'settings.json'), 'utf8');
        } catch {
          return '';
        }
      })();
      expect(saved).not.toContain('/bin/true');
    } finally {
      await svc.dispose();
    }
  });
});

describe('ChromiumVersionCache: GET /admin/hosts probes the local browser once per executable', () => {
  const bin = scratchDir('portico-version-cache-');
  afterAll(() => bin.cleanup());

  it('runs `--version` once for repeated and concurrent asks, again when the file changes, never remembers a failure', async () => {
    const runs = join(bin.path, 'runs');
    writeFileSync(runs, '');
    const path = join(bin.path, 'chromium');
    writeFileSync(path, `#!/bin/sh\necho run >> '${runs}'\nprintf '%s\\n' 'Chromium 140.0.7339.185'\n`);
    chmodSync(path, 0o755);
    const probes = () => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;
    const cache = new ChromiumVersionCache();

    expect(await cache.version(path, 'chromium')).toBe('Chromium 140.0.7339.185');
    expect(await cache.version(path, 'chromium')).toBe('Chromium 140.0.7339.185');
    expect(await Promise.all([cache.version(path), cache.version(path)])).toEqual([
      'Chromium 140.0.7339.185',
      'Chromium 140.0.7339.185',
    ]);
    expect(probes()).toBe(1);

    // An updated browser (new mtime) is asked again.
    utimesSync(path, new Date(), new Date(Date.now() + 60_000));
    expect(await cache.version(path)).toBe('Chromium 140.0.7339.185');
    expect(probes()).toBe(2);

    // A failing probe is not remembered: the next ask runs it again.
    writeFileSync(path, `#!/bin/sh\necho run >> '${runs}'\nexit 3\n`);
    await expect(cache.version(path, 'chromium')).rejects.toThrow(/chromium: running .* --version' failed/);
    await expect(cache.version(path, 'chromium')).rejects.toThrow(/failed/);
    expect(probes()).toBe(4);
  });
});
