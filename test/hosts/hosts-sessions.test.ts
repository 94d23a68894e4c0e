// /public sessions on remote browser hosts (issue 22): one on a Playwright server, one on a Chromium debugging
// host; each is driven by Playwright and by puppeteer through Portico's cdp_url, never seeing the host. On the
// debugging host (one browser every connection shares) the session sees its own browser context only. When
// every host is full, 429 says so; terminating frees the slot. Hosts run in network namespaces (needs root:
// ip netns, as in CI).
import { type Browser as PwBrowser, chromium } from 'playwright-core';
import puppeteer, { type Browser as PptrBrowser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { netnsAvailable } from '../helpers/netns.ts';
import { jsonOf } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type HostRig, startHostRig } from './hostRig.ts';

interface Session {
  session_id: string;
  cdp_url: string;
}

describe.skipIf(!netnsAvailable())(
  'sessions on remote browser hosts (needs root: ip netns)',
  { timeout: 120_000 },
  () => {
    let rig: HostRig;
    const visits: string[] = [];

    beforeAll(async () => {
      rig = await startHostRig({
        hosts: [
          { name: 'pw-1', engine: 'playwright', max_browsers: 1 },
          { name: 'cdp-1', engine: 'cdp', max_browsers: 1 },
        ],
        localMaxBrowsers: 0,
        handlers: {
          '/whoami': (req, res) => {
            visits.push(String(req.socket.remoteAddress));
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end(`<title>whoami</title><p id="from">${req.socket.remoteAddress}</p>`);
          },
          '/other': (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' }).end('<title>someone else</title>');
          },
        },
      });
    });
    afterAll(async () => {
      await rig?.close();
    });

    const create = async () =>
      jsonOf(await rig.svc.api('/public/sessions', { method: 'POST', key: rig.svc.accountKey, json: {} }));
    const terminate = async (id: string) =>
      jsonOf(await rig.svc.api(`/public/sessions/${id}/terminate`, { method: 'POST', key: rig.svc.accountKey }));
    const inUse = async (name: string) => {
      const res = await rig.svc.api('/admin/hosts', {
        key: null,
        headers: { 'x-console-token': rig.svc.consoleToken },
      });
      const body = (await res.json()) as { hosts: { name: string; browsers_in_use: number }[] };
      return body.hosts.find((h) => h.name === name)?.browsers_in_use;
    };

    /** Loads /whoami with Playwright over cdp_url; returns the address the page was fetched from. */
    async function viaPlaywright(cdpUrl: string): Promise<string | null> {
      const browser: PwBrowser = await chromium.connectOverCDP(cdpUrl);
      try {
        const context = browser.contexts()[0]!;
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(rig.forms.url('/whoami'));
        expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1280, 800]);
        return await page.textContent('#from');
      } finally {
        await browser.close();
      }
    }

    /** The same with puppeteer: the session's first page is found (target discovery through the proxy), and a new one opens. */
    async function viaPuppeteer(cdpUrl: string): Promise<{ from: string; titles: string[] }> {
      const browser: PptrBrowser = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
      try {
        const pages = await browser.pages();
        expect(pages.length).toBeGreaterThanOrEqual(1);
        const page = pages[0]!;
        await page.goto(rig.forms.url('/whoami'));
        expect(await page.title()).toBe('whoami');
        const second = await browser.newPage();
        await second.goto(rig.forms.url('/whoami'));
        const from = await second.$eval('#from', (el) => el.textContent ?? '');
        await second.close();
        const titles = await Promise.all((await browser.pages()).map((p) => p.title()));
        return { from, titles };
      } finally {
        await browser.disconnect();
      }
    }

    it('two sessions land on the two hosts; Playwright and puppeteer drive each through cdp_url on Portico', async () => {
      // Someone else on the debugging host (a job's context, say), connected straight to it: the session must not see it.
      const direct = await chromium.connectOverCDP(rig.hosts[1]!.url);
      const pagesThere = async () =>
        (await (await direct.newBrowserCDPSession()).send('Target.getTargets')).targetInfos.filter(
          (t) => t.type === 'page',
        );
      const before = (await pagesThere()).map((t) => t.targetId);
      const a = await create();
      const b = await create();
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      const [sa, sb] = [a.body as Session, b.body as Session];
      for (const s of [sa, sb]) {
        // The client sees Portico only: neither a host address nor anything of the host's URL.
        expect(s.cdp_url.startsWith(rig.svc.url.replace(/^http/, 'ws'))).toBe(true);
        for (const host of rig.hosts) expect(JSON.stringify(s)).not.toContain(host.address);
      }
      expect(await inUse('pw-1')).toBe(1);
      expect(await inUse('cdp-1')).toBe(1);
      const [pw, cdp] = [rig.hosts[0]!, rig.hosts[1]!];

      const otherContext = await direct.newContext();
      const otherPage = await otherContext.newPage();
      await otherPage.goto(rig.forms.url('/other'));

      expect(await viaPlaywright(sa.cdp_url)).toBe(pw.address);
      expect(await viaPlaywright(sb.cdp_url)).toBe(cdp.address);
      const onPw = await viaPuppeteer(sa.cdp_url);
      expect(onPw.from).toBe(pw.address);
      const onCdp = await viaPuppeteer(sb.cdp_url);
      expect(onCdp.from).toBe(cdp.address);
      expect(onCdp.titles).toEqual(['whoami']);

      // Through the raw protocol too: the other context's targets are neither listed nor attachable.
      const raw = await chromium.connectOverCDP(sb.cdp_url);
      try {
        const session = await raw.newBrowserCDPSession();
        const { targetInfos } = await session.send('Target.getTargets');
        expect(targetInfos.map((t) => t.title)).not.toContain('someone else');
        const other = (await pagesThere()).find((t) => t.title === 'someone else');
        expect(other).toBeDefined();
        await expect(
          session.send('Target.attachToTarget', { targetId: other!.targetId, flatten: true }),
        ).rejects.toThrow(/Portico refused Target.attachToTarget: No target with given id found/);
        await expect(session.send('Browser.close')).rejects.toThrow(/the browser is shared on its host/);
        // Clearing storage from the session clears its own context only: cookies of the host's default
        // context and of another client's context survive; a clear naming no context is refused.
        const origin = new URL(rig.forms.url('/other')).origin;
        const cookie = (name: string) => ({ name, value: '1', url: origin });
        await direct.contexts()[0]!.addCookies([cookie('default-context')]);
        await otherContext.addCookies([cookie('other-context')]);
        await session.send('Storage.setCookies', { cookies: [cookie('mine')] });
        expect((await session.send('Storage.getCookies')).cookies.map((c) => c.name)).toEqual(['mine']);
        await session.send('Storage.clearCookies');
        expect((await session.send('Storage.getCookies')).cookies).toEqual([]);
        await expect(session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })).rejects.toThrow(
          /Portico refused Storage.clearDataForOrigin: the browser is shared on its host/,
        );
        expect((await direct.contexts()[0]!.cookies(origin)).map((c) => c.name)).toEqual(['default-context']);
        expect((await otherContext.cookies(origin)).map((c) => c.name)).toEqual(['other-context']);
      } finally {
        await raw.close();
      }

      // Every host is full now: the next session is refused with 429, naming the hosts' state.
      const refused = await create();
      expect(refused.status).toBe(429);
      const detail = String((refused.body as { detail: string }).detail);
      expect(detail).toContain('pw-1 1/1 in use');
      expect(detail).toContain('cdp-1 1/1 in use');

      // Ending the debugging host's session closes its pages there, and nobody else's.
      expect((await terminate(sb.session_id)).status).toBe(200);
      await until(async () => (await inUse('cdp-1')) === 0, 'the cdp-1 slot to come back');
      const left = (await pagesThere()).filter((t) => !before.includes(t.targetId));
      expect(left.map((t) => t.title)).toEqual(['someone else']);
      await direct.close();

      const again = await create();
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(await viaPlaywright((again.body as Session).cdp_url)).toBe(cdp.address);
      expect((await terminate((again.body as Session).session_id)).status).toBe(200);
      expect((await terminate(sa.session_id)).status).toBe(200);
      expect(visits.map((v) => rig.placeOf(v))).toContain('cdp-1');
    });
  },
);

describe.skipIf(!netnsAvailable())(
  'a session on a CDP provider that wants a token (needs root: ip netns)',
  { timeout: 120_000 },
  () => {
    const TOKEN = 'prov-token-5d1e9a';
    let rig: HostRig;
    const visits: string[] = [];

    beforeAll(async () => {
      rig = await startHostRig({
        hosts: [
          { name: 'prov', engine: 'cdp-provider', token: TOKEN, maxConnections: 1, max_browsers: 2 },
          { name: 'cdp-1', engine: 'cdp', max_browsers: 4 },
        ],
        localMaxBrowsers: 0,
        tokens: { prov: TOKEN },
        handlers: {
          '/whoami': (req, res) => {
            visits.push(String(req.socket.remoteAddress));
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end(`<title>whoami</title><p id="from">${req.socket.remoteAddress}</p>`);
          },
        },
      });
    });
    afterAll(async () => {
      await rig?.close();
    });

    const create = async () =>
      jsonOf(await rig.svc.api('/public/sessions', { method: 'POST', key: rig.svc.accountKey, json: {} }));
    const hostsNow = async () => {
      const res = await rig.svc.api('/admin/hosts', {
        key: null,
        headers: { 'x-console-token': rig.svc.consoleToken },
      });
      const text = await res.text();
      expect(text).not.toContain(TOKEN);
      return (JSON.parse(text) as { hosts: { name: string; browsers_in_use: number; last_error: string | null }[] })
        .hosts;
    };

    it('a provider full for other clients (429) hands the session to the next host; once free, the session runs there with the vault token, shown nowhere', async () => {
      // Another client of the provider holds its only connection (taken once free: Portico's own 15 s probe of
      // the provider holds it for a moment, and a connect then is refused with 429 too).
      const other = await until(
        () => chromium.connectOverCDP(rig.hosts[0]!.url).catch(() => undefined),
        "the provider's only connection",
      );
      const first = await create();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      let hosts = await hostsNow();
      expect(hosts.find((h) => h.name === 'cdp-1')?.browsers_in_use).toBe(1);
      expect(hosts.find((h) => h.name === 'prov')).toMatchObject({
        browsers_in_use: 0,
        last_error: expect.stringMatching(/429/),
      });
      await other.close();

      const second = await create();
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      hosts = await hostsNow();
      expect(hosts.find((h) => h.name === 'prov')?.browsers_in_use).toBe(1);
      const session = second.body as Session;
      expect(JSON.stringify(session)).not.toContain(TOKEN);
      for (const host of rig.hosts) expect(session.cdp_url).not.toContain(host.address);
      const browser = await chromium.connectOverCDP(session.cdp_url);
      try {
        const context = browser.contexts()[0]!;
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(rig.forms.url('/whoami'));
        expect(await page.textContent('#from')).toBe(rig.hosts[0]!.address);
      } finally {
        await browser.close();
      }
      for (const made of [first, second])
        expect(
          (
            await rig.svc.api(`/public/sessions/${(made.body as Session).session_id}/terminate`, {
              method: 'POST',
              key: rig.svc.accountKey,
            })
          ).status,
        ).toBe(200);
      expect(rig.logs.join('\n')).not.toContain(TOKEN);
      expect(rig.logs.join('\n')).toMatch(/refused the browser: .*429/);
    });
  },
);
