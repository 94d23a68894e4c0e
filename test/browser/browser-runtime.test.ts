import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  BrowserDisconnectedError,
  BrowserRuntimeClosedError,
  ProfileInUseError,
} from '../../src-main/browser/browserErrors.ts';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { findChromium, findHeadlessShell, systemChromiumHost } from '../../src-main/browser/chromiumDiscovery.ts';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';
import {
  browserProcessId,
  html,
  killBrowserProcess,
  scratchDir,
  startPageServer,
  startRecordingProxy,
  type LocalServer,
} from '../helpers/browserFixtures.ts';
import { until } from '../helpers/wait.ts';

/** The executable the context's browser process runs (Linux: /proc/<pid>/exe). */
async function browserExecutable(context: BrowserContext): Promise<string> {
  return readlinkSync(`/proc/${await browserProcessId(context)}/exe`);
}

// path → size and mtime of every file, to prove a folder was not touched.
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out[relative(root, full)] = `${statSync(full).size}@${statSync(full).mtimeMs}`;
    }
  };
  walk(root);
  return out;
}

describe('BrowserRuntime', () => {
  const data = scratchDir('portico-data-');
  const temp = scratchDir('portico-tmp-');
  const downloads = scratchDir('portico-downloads-');
  const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: temp.path });
  let pages: LocalServer;

  beforeAll(async () => {
    pages = await startPageServer({
      '/': html('<p id="home">home</p>'),
      '/screen': html('<p>screen</p>'),
      '/login': html(`<p>logged in</p><script>localStorage.setItem('who', 'ana')</script>`, {
        'set-cookie': 'session=abc123; Max-Age=86400; Path=/',
      }),
      '/extra': html('<p>extra</p>', { 'set-cookie': 'extra=1; Max-Age=86400; Path=/' }),
      '/files': html('<a id="get" href="/report.csv">report</a>'),
      '/report.csv': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="report.csv"' })
          .end('a,b\n1,2\n');
      },
    });
    await runtime.warm();
  });

  afterEach(() => {
    const open = runtime.resources();
    expect(open).toMatchObject({ leases: 0, contexts: 0, tempDirs: 0 });
    expect(open.browsers).toBe(open.sharedBrowser ? 1 : 0);
    expect(runtime.locks.heldCount).toBe(0);
    expect(temp.entries()).toEqual([]);
  });

  afterAll(async () => {
    await runtime.close();
    expect(runtime.resources()).toEqual({ leases: 0, browsers: 0, contexts: 0, tempDirs: 0, sharedBrowser: false });
    await pages.close();
    data.cleanup();
    temp.cleanup();
    downloads.cleanup();
  });

  it('serves two leases from the warm shared browser, each with its own cookies, at 1280x800 by default', async () => {
    const [first, second] = await Promise.all([runtime.lease(), runtime.lease()]);
    try {
      expect(first.kind).toBe('shared');
      expect(first.context.browser()).toBe(second.context.browser());
      await first.page.goto(pages.url('/login'));
      await second.page.goto(pages.url('/'));
      expect((await first.context.cookies()).map((c) => c.name)).toEqual(['session']);
      expect(await second.context.cookies()).toEqual([]);
      const size = await second.page.evaluate(() => [
        window.innerWidth,
        window.innerHeight,
        screen.width,
        screen.height,
      ]);
      expect(size).toEqual([1280, 800, 1280, 800]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('applies a requested viewport and screen size', async () => {
    const lease = await runtime.lease({ viewport: { width: 800, height: 600 } });
    try {
      await lease.page.goto(pages.url('/screen'));
      expect(
        await lease.page.evaluate(() => [window.innerWidth, window.innerHeight, screen.width, screen.height]),
      ).toEqual([800, 600, 800, 600]);
    } finally {
      await lease.close();
    }
  });

  it('a profile keeps its cookie and localStorage from one lease to the next', async () => {
    const first = await runtime.lease({ profileId: 'keeps-state' });
    expect(first.kind).toBe('profile');
    expect(first.userDataDir).toBe(join(data.path, 'profiles', 'keeps-state'));
    await first.page.goto(pages.url('/login'));
    await first.close();
    await first.close();

    const second = await runtime.lease({ profileId: 'keeps-state' });
    try {
      await second.page.goto(pages.url('/'));
      expect((await second.context.cookies()).find((c) => c.name === 'session')?.value).toBe('abc123');
      expect(await second.page.evaluate(() => localStorage.getItem('who'))).toBe('ana');
    } finally {
      await second.close();
    }
  });

  it('headless leases run the headless shell of the same build when installed (off: the chosen Chromium); a profile moves between the full Chromium and the shell with its cookies', async () => {
    const host = systemChromiumHost();
    const full = findChromium(host);
    const shell = findHeadlessShell(host, full);
    const folder = join(data.path, 'profiles', 'shell-shared');
    // A login window (the full build) opens the profile folder a headless job's browser opens next, and back.
    const openInFull = async (path: string): Promise<BrowserContext> => {
      const context = await chromium.launchPersistentContext(folder, {
        executablePath: full,
        headless: true,
        args: ['--no-sandbox'],
      });
      await (context.pages()[0] ?? (await context.newPage())).goto(pages.url(path));
      return context;
    };
    const login = await openInFull('/login');
    expect((await login.cookies()).map((c) => c.name)).toContain('session');
    await login.close();

    const shared = await runtime.lease();
    const profile = await runtime.lease({ profileId: 'shell-shared' });
    try {
      for (const lease of [shared, profile]) {
        const exe = await browserExecutable(lease.context);
        if (shell !== undefined) expect(exe, `${lease.kind} lease`).toBe(shell);
        else expect(exe, `${lease.kind} lease`).not.toMatch(/headless/);
      }
      await profile.page.goto(pages.url('/extra'));
      const cookies = await profile.context.cookies();
      expect(cookies.find((c) => c.name === 'session')?.value, "the login window's cookie in the job").toBe('abc123');
    } finally {
      await shared.close();
      await profile.close();
    }
    const again = await openInFull('/');
    try {
      const extra = (await again.cookies()).find((c) => c.name === 'extra')?.value;
      expect(extra, "the job's cookie in the full build").toBe('1');
    } finally {
      await again.close();
    }

    const off = new BrowserRuntime({ dataDir: data.path, tempDir: temp.path, headlessShell: 'off' });
    try {
      const lease = await off.lease();
      try {
        const exe = await browserExecutable(lease.context);
        expect(exe).not.toMatch(/headless/);
        expect(exe).toMatch(/chrom/i);
      } finally {
        await lease.close();
      }
    } finally {
      await off.close();
    }
  });

  it('a second lease on a profile waits until the first closes, and a waiting lease can be aborted', async () => {
    const order: string[] = [];
    const first = await runtime.lease({ profileId: 'one-at-a-time' });
    const second = runtime.lease({ profileId: 'one-at-a-time' }).then((lease) => {
      order.push('second opened');
      return lease;
    });
    const controller = new AbortController();
    const third = runtime.lease({ profileId: 'one-at-a-time', signal: controller.signal });
    // Both wait on the profile's lock, which the first lease holds: neither has opened a browser.
    await until(() => runtime.locks.waiting('one-at-a-time') === 2, 'the second and third leases to queue on the lock');
    expect(order).toEqual([]);
    controller.abort(new Error('job cancelled while queued'));
    await expect(third).rejects.toThrow('job cancelled while queued');

    order.push('first closing');
    await first.close();
    const opened = await second;
    try {
      expect(order).toEqual(['first closing', 'second opened']);
      await opened.page.goto(pages.url('/'));
    } finally {
      await opened.close();
    }
  });

  it('with saveProfile false runs on a throwaway copy, needs no lock and leaves the profile folder unchanged', async () => {
    const setup = await runtime.lease({ profileId: 'copied' });
    await setup.page.goto(pages.url('/login'));
    await setup.close();
    const folder = runtime.profileDir('copied');
    const before = snapshot(folder);

    const busy = runtime.locks.tryAcquire('copied');
    const copy = await runtime.lease({ profileId: 'copied', saveProfile: false });
    try {
      expect(copy.kind).toBe('profile-copy');
      expect(copy.userDataDir?.startsWith(temp.path)).toBe(true);
      expect(runtime.resources().tempDirs).toBe(1);
      await copy.page.goto(pages.url('/extra'));
      const names = (await copy.context.cookies()).map((c) => c.name).sort();
      expect(names).toEqual(['extra', 'session']);
    } finally {
      await copy.close();
      busy?.release();
    }
    expect(snapshot(folder)).toEqual(before);
    expect(existsSync(copy.userDataDir ?? '')).toBe(false);
  });

  it('deleting a profile folder is refused with 409 while a browser has it open', async () => {
    const lease = await runtime.lease({ profileId: 'to-delete' });
    await expect(runtime.deleteProfileFolder('to-delete')).rejects.toBeInstanceOf(ProfileInUseError);
    await lease.close();
    await runtime.deleteProfileFolder('to-delete');
    expect(existsSync(runtime.profileDir('to-delete'))).toBe(false);
  });

  it('rejects profile ids that could leave the profiles folder', async () => {
    await expect(runtime.lease({ profileId: '../escape' })).rejects.toMatchObject({ status: 422 });
  });

  it("sends the page's requests through the lease's proxy, with its credentials", async () => {
    const proxy = await startRecordingProxy({ username: 'ana', password: 's3cret' });
    const lease = await runtime.lease({ proxy: { server: proxy.server, username: 'ana', password: 's3cret' } });
    try {
      await lease.page.goto('http://portico-proxy-check.test/hello');
      expect(await lease.page.textContent('#url')).toBe('http://portico-proxy-check.test/hello');
      const hits = proxy.requests.filter((r) => r.url === 'http://portico-proxy-check.test/hello');
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.at(-1)?.proxyAuthorization).toBe(`Basic ${Buffer.from('ana:s3cret').toString('base64')}`);
    } finally {
      await lease.close();
      await proxy.close();
    }
  });

  it("saves the page's downloads into the lease's downloads folder", async () => {
    const folder = join(downloads.path, 'job-1');
    const lease = await runtime.lease({ downloadsDir: folder });
    try {
      await lease.page.goto(pages.url('/files'));
      const download = lease.page.waitForEvent('download');
      await lease.page.click('#get');
      await download;
    } finally {
      await lease.close();
    }
    expect(lease.downloads().map((d) => d.suggestedFilename)).toEqual(['report.csv']);
    expect(readFileSync(join(folder, 'report.csv'), 'utf8')).toBe('a,b\n1,2\n');
  });

  it('a killed shared browser disconnects its leases, and the next lease gets a fresh browser', async () => {
    const victim = await runtime.lease();
    const oldBrowser = victim.context.browser();
    const disconnected = new Promise<BrowserDisconnectedError>((resolve) => victim.onDidDisconnect(resolve));
    await killBrowserProcess(victim.context);
    const error = await disconnected;
    expect(error).toBeInstanceOf(BrowserDisconnectedError);
    expect(victim.signal.aborted).toBe(true);
    expect(victim.signal.reason).toBe(error);
    await victim.close();

    const next = await runtime.lease();
    try {
      expect(next.context.browser()).not.toBe(oldBrowser);
      await next.page.goto(pages.url('/'));
      expect(await next.page.textContent('#home')).toBe('home');
    } finally {
      await next.close();
    }
  });
  it('a killed profile browser disconnects its lease, and once closed the profile opens again', async () => {
    const victim = await runtime.lease({ profileId: 'crashes' });
    await victim.page.goto(pages.url('/login'));
    const disconnected = new Promise<BrowserDisconnectedError>((resolve) => victim.onDidDisconnect(resolve));
    await killBrowserProcess(victim.context);
    expect(await disconnected).toBeInstanceOf(BrowserDisconnectedError);
    expect(runtime.locks.isHeld('crashes')).toBe(true);
    await victim.close();

    const next = await runtime.lease({ profileId: 'crashes' });
    try {
      await next.page.goto(pages.url('/'));
      expect(await next.page.textContent('#home')).toBe('home');
    } finally {
      await next.close();
    }
  });
});

describe('BrowserRuntime.close', () => {
  it('closes every lease still open, removes throwaway copies and refuses new leases', async () => {
    const data = scratchDir('portico-data-');
    const temp = scratchDir('portico-tmp-');
    const runtime = new BrowserRuntime({ dataDir: data.path, tempDir: temp.path });
    try {
      const leases = await Promise.all([
        runtime.lease(),
        runtime.lease({ profileId: 'open-at-shutdown' }),
        runtime.lease({ profileId: 'open-at-shutdown', saveProfile: false }),
      ]);
      expect(runtime.resources()).toEqual({ leases: 3, browsers: 3, contexts: 3, tempDirs: 1, sharedBrowser: true });
      await runtime.close();
      expect(runtime.resources()).toEqual({ leases: 0, browsers: 0, contexts: 0, tempDirs: 0, sharedBrowser: false });
      expect(temp.entries()).toEqual([]);
      expect(leases.every((lease) => !lease.signal.aborted)).toBe(true);
      await expect(runtime.lease()).rejects.toBeInstanceOf(BrowserRuntimeClosedError);
    } finally {
      await runtime.close();
      data.cleanup();
      temp.cleanup();
    }
  });
});
