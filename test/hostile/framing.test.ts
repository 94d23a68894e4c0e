import type { Frame } from 'playwright-core';
import { describe, expect, test } from '../helpers/fixtures.ts';
import { startPageServer } from '../helpers/pageServer.ts';
import { until } from '../helpers/wait.ts';

/** Clickjacking: a page of another origin framing the console gets an empty, blocked frame in a real Chromium. */
describe('the console cannot be framed by another page', () => {
  test("frame-ancestors 'none' keeps the console out of the attacker's iframe while the console itself loads", async ({
    svc,
    page,
  }) => {
    const attacker = await startPageServer({
      '/frame': () => ({
        body: `<!doctype html><title>attacker</title><iframe id="console" src="${svc.url}/"></iframe><iframe id="control" src="${svc.url}/health"></iframe>`,
      }),
    });
    try {
      await page.goto(`${attacker.url}/frame`);
      const frameOf = (id: string): Promise<Frame> =>
        until(async () => (await (await page.$(`#${id}`))?.contentFrame()) ?? undefined, `the #${id} frame`);
      // The control frame (a JSON answer, no page headers) does load: framing as such works.
      const control = await frameOf('control');
      await until(
        async () => ((await control.textContent('body').catch(() => null)) ?? '').includes('"status":"ok"'),
        'the control frame to load',
      );
      const framed = await frameOf('console');
      await framed.waitForLoadState('load');
      expect(await framed.locator('#root').count()).toBe(0);
      expect(framed.url()).not.toBe(`${svc.url}/`);
      // Opened as a page of its own, the console renders.
      const direct = await page.context().newPage();
      await direct.goto(`${svc.url}/`);
      expect(await direct.locator('#root').count()).toBe(1);
    } finally {
      await attacker.close();
    }
  });
});
