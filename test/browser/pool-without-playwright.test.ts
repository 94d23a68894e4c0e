import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src-main/base/logger.ts';
import { playwrightLoaded } from '../../src-main/browser/lazyChromium.ts';
import { DEFAULT_SESSION_SCREEN, SessionBrowserPool } from '../../src-main/browser/sessionBrowsers.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';

// An idle service does not load playwright-core (docs/decisions.md, "Nothing loads Playwright at start"):
// the sessions' warm browser is a Chromium on a pipe, and Portico's own Playwright connection to it is made
// when a session first uses it. (This file's own Playwright imports do not count: `playwrightLoaded` is
// whether Portico's lazy loader has loaded it, and this file's module graph is its own.)
describe('the warm session browser is launched without loading Playwright', () => {
  it('the pool warms a browser and Playwright stays unloaded; the session that takes it connects and drives it; the refill, up after that, is connected ahead', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-pool-pw-'));
    // Each launch waits at a gate (a shell script, until a file exists; it takes the file away as it passes), so
    // what Playwright's state is when a launch starts and when it is up is certain.
    const gate = join(dir, 'open');
    const launcher = join(dir, 'chromium-gated');
    await writeFile(
      launcher,
      `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.02; done\nrm -f '${gate}'\nexec '${CHROMIUM_PATH}' "$@"\n`,
      { mode: 0o755 },
    );
    const logged: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (message, fields) => void logged.push({ message, fields }),
      warn: () => undefined,
      error: () => undefined,
    };
    const pool = new SessionBrowserPool({ executablePath: () => launcher, noSandbox: true, tempDir: dir, logger }, 1);
    try {
      pool.fill();
      await writeFile(gate, '');
      await pool.ready();
      expect(playwrightLoaded(), 'playwright-core loaded by warming the pool').toBe(false);
      // The log says when the warm browser can be taken (bench/idle.bench.ts times warm sessions from it).
      const [pid] = await pool.idlePids();
      expect(logged, 'info lines logged while warming').toEqual([
        { message: 'warm session browser ready', fields: { pid } },
      ]);
      const { browser, warm } = await pool.take({ screen: DEFAULT_SESSION_SCREEN });
      expect(warm).toBe(true);
      expect(browser.connected).toBe(false);
      // The refill started with the take, Playwright not loaded yet; the session's page() loads it.
      const page = await browser.page();
      expect(playwrightLoaded()).toBe(true);
      await page.setContent('<title>Warm</title>');
      expect(await page.title()).toBe('Warm');
      await browser.close();
      await writeFile(gate, '');
      await pool.ready();
      const next = await pool.take({ screen: DEFAULT_SESSION_SCREEN });
      expect(next.warm).toBe(true);
      expect(next.browser.connected, 'the refill (up after Playwright was loaded) connected before it was taken').toBe(
        true,
      );
      await next.browser.close();
    } finally {
      // The refill the last take started waits at the gate: let it through, so closing the pool need not wait for its launch to time out.
      await writeFile(gate, '');
      await pool.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
