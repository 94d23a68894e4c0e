import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, PAGE_CHROMIUM_PATH } from '../helpers/chromium.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { RENDERER_DIR, startService, waitForJob, type TestService } from '../helpers/service.ts';

// The built console (`npm test` builds it; PORTICO_TEST_RENDERER_DIR points at another build).
const rendererDir = process.env.PORTICO_TEST_RENDERER_DIR ?? RENDERER_DIR;

describe('console job page plays the recording (real Chromium on the built console)', () => {
  let svc: TestService;
  let pages: PageServer;
  let browser: Browser;

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Test form</title><input id="colour">' });
    [svc, browser] = await Promise.all([
      startService(undefined, { agents: scriptedRegistry, rendererDir }),
      chromium.launch({ executablePath: PAGE_CHROMIUM_PATH, args: CHROMIUM_ARGS }),
    ]);
    for (const [name, record] of [
      ['rec', true],
      ['norec', false],
      ['norec-default', null],
    ] as const) {
      const res = await svc.send('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: name, start_url: `${pages.url}/form`, task: 'script:visit', record_video: record },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.dispose();
    await pages?.close();
  });

  const run = async (endpoint: string): Promise<string> => {
    const started = (await (
      await svc.request('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body: { form_data: {} } })
    ).json()) as { job_id: string };
    await waitForJob(svc, endpoint, started.job_id, ['completed']);
    return started.job_id;
  };

  it("a recorded job shows a video that loads at the job's size; an unrecorded one shows none", async () => {
    const recorded = await run('rec');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/#token=${svc.consoleToken}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/jobs/rec/${recorded}`);
    const video = page.getByLabel('Screen recording of the job');
    await video.waitFor();
    // Fetched with the console token as a blob (a plain src could not carry the token), and playable.
    expect(await video.getAttribute('src')).toMatch(/^blob:/);
    await page.waitForFunction(() => {
      const v = document.querySelector('video');
      return v !== null && v.readyState >= 1 && v.videoWidth === 1280 && v.videoHeight === 800;
    });
    const plain = await run('norec');
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/jobs/norec/${plain}`);
    await page.getByText('Completed', { exact: true }).first().waitFor();
    await page.getByRole('list', { name: 'Step screenshots' }).waitFor();
    expect(await page.locator('video').count()).toBe(0);
    await page.close();
  });

  it('Settings turns the recording default on and off', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/#token=${svc.consoleToken}`);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.evaluate(() => {
      window.location.hash = '#/settings';
    });
    const box = page.getByLabel('Record jobs and sessions by default');
    await expect.poll(async () => box.isEnabled(), { timeout: 15_000 }).toBe(true);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    const settings = async () =>
      (await svc.send('getSettings', {}, { key: null, headers: { 'x-console-token': svc.consoleToken } })).body as {
        record_video: boolean;
      };
    await expect.poll(async () => (await settings()).record_video, { timeout: 15_000 }).toBe(true);
    const jobId = await run('norec-default');
    expect((await waitForJob(svc, 'norec-default', jobId, ['completed'])).video_recording_url).toMatch(
      /\/recording\?job_id=/,
    );
    await expect.poll(async () => box.isEnabled(), { timeout: 15_000 }).toBe(true);
    await box.uncheck();
    await expect.poll(async () => (await settings()).record_video, { timeout: 15_000 }).toBe(false);
    await page.close();
  });
});
