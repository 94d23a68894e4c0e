// The browser-host harness itself (needs network namespaces: root + iproute2, as in CI): each engine runs in
// its own namespace and address, a root-namespace page is reachable from it, and kill() is a dead host.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  NETNS_SCRIPT,
  type NetnsBrowserHost,
  PLAYWRIGHT_VERSION,
  netnsAvailable,
  startBrowserHost,
  startBrowserHosts,
} from '../helpers/netns.ts';
import { type PageServer, startPageServer } from '../helpers/pageServer.ts';

const TOKEN = 'tok-harness-5b1e';

describe.skipIf(!netnsAvailable())('browser hosts in network namespaces (needs root: ip netns)', () => {
  let hosts: NetnsBrowserHost[] = [];
  let closeHosts = () => {};
  let pages: PageServer;

  beforeAll(async () => {
    const started = await startBrowserHosts([
      { engine: 'playwright' },
      { engine: 'cdp' },
      { engine: 'cdp-provider', token: TOKEN, maxConnections: 1 },
    ]);
    hosts = started.hosts;
    closeHosts = started.close;
    const gateway = hosts[0]!.gateway;
    pages = await startPageServer(
      { '/hello': (req) => ({ body: `<title>root page</title><p id="from">${req.socket.remoteAddress}</p>` }) },
      { host: '0.0.0.0', urlHost: gateway },
    );
  });

  afterAll(async () => {
    closeHosts();
    await pages?.close();
  });

  test('each host has its own namespace and address, and they differ', () => {
    const [pw, cdp, provider] = hosts;
    expect(new Set(hosts.map((h) => h.namespace)).size).toBe(3);
    expect(pw!.url).toBe(`ws://${pw!.address}:3000/`);
    expect(cdp!.url).toBe(`http://${cdp!.address}:9222`);
    expect(provider!.url).toBe(`ws://${provider!.address}:9222/?token=${TOKEN}`);
    for (const host of hosts) expect(host.address).toMatch(/^10\.200\.\d+\.2$/);
  });

  test('chromium.connect to the Playwright server loads a root-namespace page from the host address', async () => {
    const browser = await chromium.connect(hosts[0]!.url);
    try {
      expect(browser.version()).toMatch(/^\d+\./);
      const page = await browser.newPage();
      await page.goto(`${pages.url}/hello`);
      expect(await page.title()).toBe('root page');
      // The request came from the namespace, not from loopback.
      expect(await page.textContent('#from')).toContain(hosts[0]!.address);
    } finally {
      await browser.close();
    }
    expect(PLAYWRIGHT_VERSION).toMatch(/^1\./);
  });

  test('connectOverCDP to the Chromium debugging host (through the TCP forward) reaches a page served for another host', async () => {
    const version = (await (await fetch(`${hosts[1]!.httpUrl}/json/version`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    expect(version.webSocketDebuggerUrl).toContain(`ws://${hosts[1]!.address}:9222/devtools/browser/`);
    const browser = await chromium.connectOverCDP(hosts[1]!.url);
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      // The page server's URL names host 0's gateway: every namespace routes 10.200.0.0/16 to the root.
      await page.goto(`${pages.url}/hello`);
      expect(await page.textContent('#from')).toContain(hosts[1]!.address);
      await context.close();
    } finally {
      await browser.close();
    }
  });

  test('the CDP provider wants its token (401), hands out token URLs, and answers 429 when full', async () => {
    const provider = hosts[2]!;
    expect((await fetch(`${provider.httpUrl}/json/version`)).status).toBe(401);
    const version = (await (await fetch(`${provider.httpUrl}/json/version?token=${TOKEN}`)).json()) as {
      webSocketDebuggerUrl: string;
    };
    expect(version.webSocketDebuggerUrl).toMatch(new RegExp(`/devtools/browser/[\\w-]+\\?token=${TOKEN}$`));
    await expect(chromium.connectOverCDP(`ws://${provider.address}:9222/`, { timeout: 5000 })).rejects.toThrow(/401/);

    const first = await chromium.connectOverCDP(provider.url);
    try {
      await expect(chromium.connectOverCDP(provider.url, { timeout: 5000 })).rejects.toThrow(/429/);
      const page = await first.newPage();
      await page.goto(`${pages.url}/hello`);
      expect(await page.title()).toBe('root page');
    } finally {
      await first.close();
    }
    // The slot is free again once the first client left; puppeteer takes the handed-out URL.
    const viaPuppeteer = await puppeteer.connect({ browserWSEndpoint: version.webSocketDebuggerUrl });
    try {
      const page = await viaPuppeteer.newPage();
      await page.goto(`${pages.url}/hello`);
      expect(await page.title()).toBe('root page');
      await page.close();
    } finally {
      await viaPuppeteer.disconnect();
    }
  });

  test('kill() is a dead host (refused); unplug() leaves it silent (timeouts); the other hosts still serve', async () => {
    const doomed = await startBrowserHost({ engine: 'cdp' });
    try {
      expect((await fetch(`${doomed.httpUrl}/json/version`)).ok).toBe(true);
      doomed.kill();
      // Killed: the machine is there but nothing listens: a kept-alive connection is reset, a new one refused, at once.
      const refused = await fetch(`${doomed.httpUrl}/json/version`, { signal: AbortSignal.timeout(5000) }).then(
        () => 'answered',
        (error: Error) => (error.cause as { code?: string } | undefined)?.code,
      );
      expect(['ECONNREFUSED', 'ECONNRESET']).toContain(refused);
      doomed.unplug();
      // Unplugged: no answer at all (a timeout, not a refusal).
      await expect(fetch(`${doomed.httpUrl}/json/version`, { signal: AbortSignal.timeout(500) })).rejects.toThrow(
        /timeout|aborted/i,
      );
      const browser = await chromium.connect(hosts[0]!.url);
      expect(browser.isConnected()).toBe(true);
      await browser.close();
    } finally {
      doomed.close();
    }
    const index = doomed.namespace.replace('portico-h', '');
    expect(existsSync(`/run/portico-netns/${index}`)).toBe(false);
  });

  test('what a crashed run left behind is reaped by the next run', () => {
    // A shell takes a namespace and exits without closing it, as a killed test worker would.
    const crashed = spawnSync('bash', ['-c', `${NETNS_SCRIPT} up $$`], { encoding: 'utf8' });
    const index = crashed.stdout.trim();
    // `up` prints N only once the namespace and its link exist. (Any run's next `up` may reap it from here on.)
    expect(index).toMatch(/^\d+$/);
    expect(spawnSync(NETNS_SCRIPT, ['reap']).status).toBe(0);
    expect(spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout).not.toContain(`portico-h${index} `);
    expect(existsSync(`/run/portico-netns/${index}`)).toBe(false);
    // Live owners' namespaces are left alone.
    for (const host of hosts) expect(existsSync(`/run/netns/${host.namespace}`)).toBe(true);
  });

  test("a host cannot see this machine's /tmp (its own is empty), as another machine could not", async () => {
    const mark = `portico-netns-mark-${process.pid}`;
    writeFileSync(join(tmpdir(), mark), 'here');
    try {
      const browser = await chromium.connect(hosts[0]!.url);
      try {
        const page = await browser.newPage();
        // The host's browser reads file:// from the host's own file system.
        const answer = await page.goto(`file://${join(tmpdir(), mark)}`).then(
          () => page.textContent('body'),
          (error: Error) => error.message,
        );
        expect(answer).not.toBe('here');
      } finally {
        await browser.close();
      }
    } finally {
      rmSync(join(tmpdir(), mark), { force: true });
    }
  });

  test('a namespace is owned by this process until closed (another run cannot take or reap it)', () => {
    for (const host of hosts) {
      const [pid] = readFileSync(`/run/portico-netns/${host.namespace.replace('portico-h', '')}`, 'utf8').split(' ');
      expect(Number(pid)).toBe(process.pid);
    }
  });
});
