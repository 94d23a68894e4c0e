import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserRuntime } from '../../src-main/browser/browserRuntime.ts';
import { stepScreenshot } from '../../src-main/browser/pageScreenshot.ts';
import {
  html,
  scratchDir,
  startPageServer,
  startRecordingProxy,
  type LocalServer,
} from '../helpers/browserFixtures.ts';
import { until } from '../helpers/wait.ts';

/** A warm runtime keeps one fresh context ready; every job still gets a context nobody used before. */
describe('BrowserRuntime spare context', () => {
  const data = scratchDir('portico-spare-');
  const downloads = scratchDir('portico-spare-dl-');
  const runtime = new BrowserRuntime({ dataDir: data.path, spareContext: true });
  let site: LocalServer;

  beforeAll(async () => {
    site = await startPageServer({
      '/set': html(
        '<title>set</title><script>document.cookie = "seen=1; max-age=600"; localStorage.setItem("k", "v")</script>',
      ),
      '/read': html('<title>read</title>'),
      '/file': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="a.txt"' })
          .end('spare download'),
      '/dl': html('<a id="dl" href="/file" download>get</a>'),
    });
    await runtime.warm();
  });
  afterAll(async () => {
    await runtime.close();
    await site.close();
    expect(runtime.resources()).toEqual({ leases: 0, browsers: 0, contexts: 0, tempDirs: 0, sharedBrowser: false });
    data.cleanup();
    downloads.cleanup();
  });

  it('a lease after warm() starts on the ready context at once, and the next lease gets a different, clean one', async () => {
    // A lease that does not fit the spare (another size) shows what creating a context costs right now.
    let started = performance.now();
    const fresh = await runtime.lease({
      downloadsDir: join(downloads.path, '0'),
      viewport: { width: 1000, height: 700 },
    });
    const freshMs = performance.now() - started;
    await fresh.close();
    started = performance.now();
    const first = await runtime.lease({ downloadsDir: join(downloads.path, '1') });
    expect(performance.now() - started).toBeLessThan(freshMs / 2);
    await first.page.goto(site.url('/set'));
    const firstContext = first.context;
    await first.close();
    await until(async () => {
      const second = await runtime.lease({ downloadsDir: join(downloads.path, '2') });
      try {
        expect(second.context).not.toBe(firstContext);
        await second.page.goto(site.url('/read'));
        expect(await second.page.evaluate(() => ({ cookie: document.cookie, k: localStorage.getItem('k') }))).toEqual({
          cookie: '',
          k: null,
        });
        return true;
      } finally {
        await second.close();
      }
    }, 'a second clean lease');
  });

  it("a spare's page comes with its capture session: the lease's first step screenshot opens no CDP session", async () => {
    // The spare refilled after the last lease is taken (take() waits for one being made).
    const lease = await runtime.lease({ downloadsDir: join(downloads.path, 'shot') });
    try {
      let opened = 0;
      const open = lease.context.newCDPSession.bind(lease.context);
      lease.context.newCDPSession = (...args: Parameters<typeof open>) => {
        opened += 1;
        return open(...args);
      };
      await lease.page.goto(site.url('/read'));
      const png = await stepScreenshot(lease.page);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(opened).toBe(0);
    } finally {
      await lease.close();
    }
  });

  it("downloads on a spare context land in the lease's folder", async () => {
    const dir = join(downloads.path, 'dl');
    const lease = await runtime.lease({ downloadsDir: dir });
    try {
      await lease.page.goto(site.url('/dl'));
      const download = lease.page.waitForEvent('download');
      await lease.page.click('#dl');
      await (await download).path();
      await until(() => lease.downloads().length > 0, 'the download to be captured');
      expect(readFileSync(lease.downloads()[0]?.path ?? '', 'utf8')).toBe('spare download');
    } finally {
      await lease.close();
    }
  });

  it('a lease with a proxy does not take the spare (it gets its own context with the proxy)', async () => {
    const proxy = await startRecordingProxy();
    try {
      const lease = await runtime.lease({ downloadsDir: join(downloads.path, 'p'), proxy: { server: proxy.server } });
      try {
        await lease.page.goto('http://through.proxy.invalid/page');
        expect(await lease.page.title()).toBe('via proxy');
        expect(proxy.requests.some((r) => r.url === 'http://through.proxy.invalid/page')).toBe(true);
      } finally {
        await lease.close();
      }
    } finally {
      await proxy.close();
    }
  });
});
