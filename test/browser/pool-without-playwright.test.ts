import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { playwrightLoaded } from '../../src-main/browser/lazyChromium.ts';
import { DEFAULT_SESSION_SCREEN, SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';

// An idle service does not load playwright-core (docs/decisions.md, "Nothing loads Playwright at start"):
// the sessions' warm browser is a Chromium on a pipe, and Portico's own Playwright connection to it is made
// when a session first uses it. (This file's own Playwright imports do not count: `playwrightLoaded` is
// whether Portico's lazy loader has loaded it, and this file's module graph is its own.)
describe('the warm session browser is launched without loading Playwright', () => {
  it('the pool warms a browser and Playwright stays unloaded; the session that takes it connects and drives it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-pool-pw-'));
    const pool = new SessionBrowserPool({ executablePath: () => CHROMIUM_PATH, noSandbox: true, tempDir: dir }, 1);
    try {
      pool.fill();
      await pool.ready();
      expect(playwrightLoaded(), 'playwright-core loaded by warming the pool').toBe(false);
      const { browser, warm } = await pool.take({ screen: DEFAULT_SESSION_SCREEN });
      expect(warm).toBe(true);
      const page = await browser.page();
      expect(playwrightLoaded()).toBe(true);
      await page.setContent('<title>Warm</title>');
      expect(await page.title()).toBe('Warm');
      await browser.close();
    } finally {
      await pool.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
