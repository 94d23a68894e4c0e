// /public sessions on a remote Playwright browser server (issue 22), the host in its own network namespace
// (needs root + iproute2, as in CI): the session's cdp_url stays on Portico, Playwright's connectOverCDP
// drives the remote browser through it (puppeteer too: test/hosts/hosts-sessions.test.ts), the guard still
// refuses what it refuses locally, and the host's address never reaches the client.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NetnsBrowserHost, netnsAvailable, startBrowserHosts } from '../helpers/netns.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, makeDataDir, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

describe.skipIf(!netnsAvailable())(
  'sessions on a remote Playwright server (needs root: ip netns)',
  { timeout: 120_000 },
  () => {
    let hosts: NetnsBrowserHost[] = [];
    let closeHosts = () => {};
    let pages: PageServer;
    let svc: TestService;

    const create = async (json: Record<string, unknown> = {}) =>
      jsonOf(await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json }));
    const terminate = async (id: string) =>
      jsonOf(await svc.api(`/public/sessions/${id}/terminate`, { method: 'POST', key: svc.accountKey }));
    const hostsNow = async () =>
      (
        (await (
          await svc.api('/admin/hosts', { key: null, headers: { 'x-console-token': svc.consoleToken } })
        ).json()) as { hosts: { name: string; reachable: boolean; browsers_in_use: number }[] }
      ).hosts;

    beforeAll(async () => {
      const started = await startBrowserHosts([{ engine: 'playwright' }]);
      hosts = started.hosts;
      closeHosts = started.close;
      const pw = hosts[0]!;
      pages = await startPageServer(
        {
          '/a': (req) => ({ body: `<!doctype html><title>Page A</title><p id="from">${req.socket.remoteAddress}</p>` }),
        },
        { host: '0.0.0.0', urlHost: pw.gateway },
      );
      const dataDir = await makeDataDir();
      // Every session browser on the host: the local Chromium takes none.
      await writeFile(
        join(dataDir, 'settings.json'),
        JSON.stringify({
          local_max_browsers: 0,
          browser_hosts: [{ name: 'pw', kind: 'playwright', url: pw.url, max_browsers: 1 }],
        }),
      );
      svc = await startService(dataDir, { hostProbeIntervalMs: 60_000 });
      await until(
        async () => (await hostsNow()).find((host) => host.name === 'pw')?.reachable,
        'the host to answer its first probe',
      );
    });

    afterAll(async () => {
      await svc?.dispose();
      closeHosts();
      await pages?.close();
    });

    it('connectOverCDP drives the remote browser through Portico; the host is never named; full is 429 naming the hosts', async () => {
      const { status, body } = await create();
      expect(status).toBe(200);
      const session = body as { session_id: string; cdp_url: string };
      expect(session.cdp_url.startsWith(svc.url.replace(/^http/, 'ws'))).toBe(true);
      expect(JSON.stringify(body)).not.toContain(hosts[0]!.address);
      expect((await hostsNow()).find((host) => host.name === 'pw')?.browsers_in_use).toBe(1);

      const pw = await chromium.connectOverCDP(session.cdp_url);
      const context = pw.contexts()[0]!;
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${pages.url}/a`);
      // The page was loaded by the host, from its own address.
      expect(await page.textContent('#from')).toBe(hosts[0]!.address);

      expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([1280, 800]);
      // The guard holds for a remote browser as for a local one.
      await expect(page.goto('file:///etc/passwd')).rejects.toThrow(
        /Portico refused Page.navigate: url: file: URLs are not allowed/,
      );
      await pw.close();

      // The only host is full: a second session is refused naming it.
      const refused = await create();
      expect(refused.status).toBe(429);
      expect((refused.body as { detail: string }).detail).toBe(
        'Every browser host is full or unavailable: local runs no browsers (local_max_browsers 0) (0/0 in use); pw 1/1 in use',
      );

      expect((await terminate(session.session_id)).body).toMatchObject({ status: 'terminated', cdp_url: null });
      await until(
        async () => (await hostsNow()).find((host) => host.name === 'pw')?.browsers_in_use === 0,
        'the slot to come back',
      );
    });
  },
);
