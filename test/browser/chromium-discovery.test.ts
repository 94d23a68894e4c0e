// tier: unit
import { describe, expect, it } from 'vitest';

import { ChromiumNotFoundError } from '../../src-main/browser/browserErrors.ts';
import {
  chromiumArgs,
  chromiumInstallPaths,
  findChromium,
  findHeadlessShell,
  needsNoSandbox,
  systemChromiumHost,
  type ChromiumHost,
} from '../../src-main/browser/chromiumDiscovery.ts';

function host(platform: NodeJS.Platform, installed: string[], env: Record<string, string> = {}): ChromiumHost {
  const present = new Set(installed);
  return { platform, env, exists: (path) => present.has(path) };
}

describe('findChromium', () => {
  it('on Linux finds Google Chrome when Chromium is not installed', () => {
    expect(findChromium(host('linux', ['/usr/bin/google-chrome-stable']))).toBe('/usr/bin/google-chrome-stable');
  });

  it('on Linux prefers Chromium over Chrome and Edge, and knows the snap path', () => {
    expect(findChromium(host('linux', ['/usr/bin/microsoft-edge', '/usr/bin/chromium']))).toBe('/usr/bin/chromium');
    expect(findChromium(host('linux', ['/snap/bin/chromium']))).toBe('/snap/bin/chromium');
  });

  it('on macOS looks in /Applications and in ~/Applications', () => {
    const userChromium = '/Users/ana/Applications/Chromium.app/Contents/MacOS/Chromium';
    expect(findChromium(host('darwin', [userChromium], { HOME: '/Users/ana' }))).toBe(userChromium);
    const systemEdge = '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge';
    expect(findChromium(host('darwin', [systemEdge], { HOME: '/Users/ana' }))).toBe(systemEdge);
  });

  it("on Windows looks under LocalAppData, Program Files and Program Files (x86), whatever the env names' case", () => {
    const env = {
      LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local',
      programfiles: 'D:\\Apps',
      'ProgramFiles(x86)': 'C:\\Program Files (x86)',
    };
    const edge = 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe';
    expect(findChromium(host('win32', [edge], env))).toBe(edge);
    const userChrome = 'C:\\Users\\ana\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe';
    expect(findChromium(host('win32', [userChrome, edge], env))).toBe(userChrome);
    expect(chromiumInstallPaths(host('win32', [], env))).toContain('D:\\Apps\\Chromium\\Application\\chrome.exe');
  });

  it('on Windows falls back to the default Program Files folders when the env does not name them', () => {
    const chrome = 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe';
    expect(findChromium(host('win32', [chrome]))).toBe(chrome);
  });

  it('uses PORTICO_CHROMIUM before any install path, and a configured path before PORTICO_CHROMIUM', () => {
    const machine = host('linux', ['/usr/bin/chromium', '/opt/custom/chrome', '/opt/configured/chrome']);
    expect(findChromium(machine, { envPath: '/opt/custom/chrome' })).toBe('/opt/custom/chrome');
    expect(findChromium(machine, { configuredPath: '/opt/configured/chrome', envPath: '/opt/custom/chrome' })).toBe(
      '/opt/configured/chrome',
    );
  });

  it('refuses a PORTICO_CHROMIUM that does not exist instead of silently using another browser', () => {
    const machine = host('linux', ['/usr/bin/chromium']);
    expect(() => findChromium(machine, { envPath: '/nowhere/chrome' })).toThrow(
      /PORTICO_CHROMIUM points to \/nowhere\/chrome, which does not exist/,
    );
  });

  it('when nothing is installed fails with a 503 naming every path tried and PORTICO_CHROMIUM', () => {
    const machine = host('darwin', [], { HOME: '/Users/ana' });
    let error: unknown;
    try {
      findChromium(machine);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ChromiumNotFoundError);
    const notFound = error as ChromiumNotFoundError;
    expect(notFound.status).toBe(503);
    expect(notFound.tried).toEqual(chromiumInstallPaths(machine));
    expect(notFound.tried).toHaveLength(6);
    for (const path of notFound.tried) expect(notFound.detail).toContain(path);
    expect(notFound.detail).toContain('set PORTICO_CHROMIUM');
  });

  it('finds a real executable on this machine', () => {
    expect(findChromium(systemChromiumHost())).toMatch(/chrom|edge/i);
  });
});

describe('findHeadlessShell (what a headless job runs)', () => {
  const debianShell = '/usr/lib/chromium/chromium-headless-shell';

  it("auto takes Debian's chromium-headless-shell beside Debian's chromium, the same build", () => {
    expect(findHeadlessShell(host('linux', ['/usr/bin/chromium', debianShell]), '/usr/bin/chromium')).toBe(debianShell);
    expect(findHeadlessShell(host('linux', ['/usr/bin/chromium']), '/usr/bin/chromium')).toBeUndefined();
  });

  it('auto never pairs a shell with another browser: Chrome, Edge or a snap keep their own build', () => {
    for (const browser of ['/usr/bin/google-chrome-stable', '/snap/bin/chromium', '/usr/bin/microsoft-edge'])
      expect(findHeadlessShell(host('linux', [browser, debianShell]), browser)).toBeUndefined();
    const mac = '/Applications/Chromium.app/Contents/MacOS/Chromium';
    expect(findHeadlessShell(host('darwin', [mac, debianShell]), mac)).toBeUndefined();
  });

  it("auto finds Playwright's shell of the same revision, in either folder layout", () => {
    const root = '/home/ana/.cache/ms-playwright';
    const chrome = `${root}/chromium-1187/chrome-linux/chrome`;
    const oldShell = `${root}/chromium_headless_shell-1187/chrome-linux/headless_shell`;
    const newShell = `${root}/chromium_headless_shell-1187/chrome-headless-shell-linux64/chrome-headless-shell`;
    expect(findHeadlessShell(host('linux', [chrome, oldShell]), chrome)).toBe(oldShell);
    expect(findHeadlessShell(host('linux', [chrome, newShell]), chrome)).toBe(newShell);
    const otherRevision = `${root}/chromium_headless_shell-1186/chrome-linux/headless_shell`;
    expect(findHeadlessShell(host('linux', [chrome, otherRevision]), chrome)).toBeUndefined();
  });

  it('off never uses a shell; an explicit path is used as given, and one that does not exist is an error', () => {
    expect(findHeadlessShell(host('linux', ['/usr/bin/chromium', debianShell]), '/usr/bin/chromium', 'off')).toBe(
      undefined,
    );
    expect(findHeadlessShell(host('darwin', ['/opt/shell']), '/Applications/x', '/opt/shell')).toBe('/opt/shell');
    expect(() => findHeadlessShell(host('linux', []), '/usr/bin/chromium', '/opt/missing')).toThrow(
      /PORTICO_HEADLESS_SHELL points to \/opt\/missing, which does not exist/,
    );
  });
});

describe('Chromium switches', () => {
  it('disable the sandbox only for root on Linux or when PORTICO_CHROMIUM_NO_SANDBOX=1', () => {
    expect(needsNoSandbox('linux', false, 0)).toBe(true);
    expect(needsNoSandbox('linux', false, 1000)).toBe(false);
    expect(needsNoSandbox('darwin', false, 0)).toBe(false);
    expect(needsNoSandbox('win32', true, undefined)).toBe(true);
  });

  it('always keep Chromium off the network on its own', () => {
    const args = chromiumArgs({ noSandbox: false });
    expect(args).toEqual(
      expect.arrayContaining([
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ]),
    );
    expect(args).not.toContain('--no-sandbox');
    expect(chromiumArgs({ noSandbox: true })).toContain('--no-sandbox');
  });
});
