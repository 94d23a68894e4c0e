import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makePortal, runJob, SHOTS, useConsoleWorld } from './harness.ts';

/** How far the page itself scrolls sideways (0 when nothing is wider than the window). */
const sidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('narrow windows: a top bar instead of the sidebar, tables scroll in their panel (console item 8)', () => {
  const world = useConsoleWorld();

  it('at 600 px every page fits the width, the navigation is a bar on top, and wide tables scroll inside themselves', async () => {
    const endpoint = world.unique('a-portal-with-a-rather-long-endpoint-name');
    await makePortal(world, endpoint, 'script:visit', {
      webhook_url: 'https://example.org/a/webhook/receiver/with/a/very/long/path/that/does/not/wrap',
    });
    await runJob(world, endpoint, { form_data: {} }, ['completed']);
    const documents = new FormData();
    documents.append(
      'files',
      new Blob(['City,Phone\nLeeds,0113 496 0002\n'], { type: 'text/csv' }),
      'an-address-file-with-a-rather-long-name-that-does-not-wrap.csv',
    );
    const uploaded = await world.svc.api('/documents/default', { method: 'POST', body: documents });
    expect(uploaded.status).toBe(200);
    const { document_bundle_id: bundle } = (await uploaded.json()) as { document_bundle_id: string };
    const page = await world.openConsole({ width: 600, height: 800 });
    const nav = page.getByRole('navigation', { name: 'Main' });
    const box = await nav.boundingBox();
    const content = await page.locator('main#main').boundingBox();
    expect(box && content && box.y + box.height <= content.y + 1).toBe(true);
    expect(content?.x ?? 99).toBeLessThan(20);
    for (const hash of [
      '#/jobs',
      '#/portals',
      `#/portals/${endpoint}`,
      `#/portals/${endpoint}/edit`,
      '#/profiles',
      '#/skills',
      '#/settings',
      '#/documents',
      `#/documents/${bundle}`,
    ]) {
      await page.evaluate((h) => {
        window.location.hash = h;
      }, hash);
      await page.locator('main#main h1').first().waitFor();
      await expect.poll(() => sidewaysScroll(page), { message: `${hash} scrolls sideways` }).toBe(0);
    }
    await page.evaluate((h) => {
      window.location.hash = h;
    }, '#/jobs');
    const table = page.getByRole('region', { name: 'Jobs table' });
    await table.getByRole('table').waitFor();
    // The table is wider than the window; its own panel scrolls, the page does not.
    expect(await table.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(await sidewaysScroll(page)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'narrow-jobs-600x800.png') });
  });
});
