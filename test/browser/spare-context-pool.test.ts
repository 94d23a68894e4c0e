import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpareContextPool, type SpareContext } from '../../src-main/browser/spareContextPool.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';

/** SpareContextPool against real Chromium: hand-out, refill, stale spares, drop and close. */
describe('SpareContextPool', () => {
  let shared: Awaited<ReturnType<typeof launchTestBrowser>>;

  beforeAll(async () => {
    shared = await launchTestBrowser();
  });
  afterAll(async () => {
    await shared?.close();
  });

  /** A pool making contexts in `browser`, counting what it made. */
  const poolOn = (browser: Browser) => {
    const made: SpareContext[] = [];
    const pool = new SpareContextPool(async () => {
      const context = await browser.newContext();
      const spare = { context, page: await context.newPage() };
      made.push(spare);
      return spare;
    });
    return { pool, made };
  };

  it('hands a ready context out once; the next is made only on refill, and is another context with only its own page', async () => {
    const { pool, made } = poolOn(shared.browser);
    expect(await pool.take()).toBeUndefined();
    pool.refill();
    pool.refill();
    await pool.ready();
    expect(made).toHaveLength(1);
    expect(pool.stocked).toBe(true);
    const first = await pool.take();
    expect(first).toBe(made[0]);
    expect(pool.stocked).toBe(false);
    expect(await pool.take()).toBeUndefined();

    pool.refill();
    const second = await pool.take();
    expect(made).toHaveLength(2);
    expect(second?.context).not.toBe(first?.context);
    expect(second?.page.isClosed()).toBe(false);
    expect(second?.context.pages()).toEqual([second?.page]);
    await first?.context.close();
    await second?.context.close();
  });

  it('a spare whose page closed or whose browser died is closed, not handed out', async () => {
    const { pool, made } = poolOn(shared.browser);
    pool.refill();
    await pool.ready();
    await made[0]?.page.close();
    expect(await pool.take()).toBeUndefined();
    expect(shared.browser.contexts()).not.toContain(made[0]?.context);

    const doomed = await launchTestBrowser();
    const onDoomed = poolOn(doomed.browser);
    onDoomed.pool.refill();
    await onDoomed.pool.ready();
    await doomed.close();
    expect(await onDoomed.pool.take()).toBeUndefined();
  });

  it('a failed make leaves the pool empty; the next refill tries again', async () => {
    let fail = true;
    const pool = new SpareContextPool(async () => {
      if (fail) throw new Error('no browser yet');
      const context = await shared.browser.newContext();
      return { context, page: await context.newPage() };
    });
    pool.refill();
    await pool.ready();
    expect(await pool.take()).toBeUndefined();
    fail = false;
    pool.refill();
    const spare = await pool.take();
    expect(spare?.page.isClosed()).toBe(false);
    await spare?.context.close();
  });

  it('drop closes the spare and allows a new one; close closes it and refuses refills', async () => {
    const { pool, made } = poolOn(shared.browser);
    pool.refill();
    await pool.drop();
    expect(made).toHaveLength(1);
    expect(made[0]?.page.isClosed()).toBe(true);
    expect(shared.browser.contexts()).not.toContain(made[0]?.context);
    pool.refill();
    await pool.ready();
    expect(made).toHaveLength(2);
    await pool.close();
    expect(made[1]?.page.isClosed()).toBe(true);
    pool.refill();
    await pool.ready();
    expect(made).toHaveLength(2);
    expect(await pool.take()).toBeUndefined();
  });
});
