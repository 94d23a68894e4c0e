import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src-main/base/logger.ts';
import { playwrightLoaded } from '../../src-main/browser/lazyChromium.ts';
import {
  DEFAULT_SESSION_SCREEN,
  type SessionBrowser,
  SessionBrowserPool,
} from '../../src-main/browser/sessionBrowsers.ts';
import { CHROMIUM_PATH } from '../helpers/chromium.ts';
import { FakeClock } from '../helpers/fakeClock.ts';

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
      // The session's page() loads Playwright; the refill waits for the session (it starts when the browser exits here).
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

// The pool's refill waits until the session that took a warm browser has got going (docs/decisions.md, "The
// warm pool refills once a session has got going"): its launch (~0.5 s of CPU) would compete with the
// session's first connect and navigation. Each case reads the pool's own count of waiting refills; time
// moves only on the injected clock.
describe("the warm pool's refill waits for the session that took a browser", () => {
  const QUIET_MS = 250;
  const MAX_MS = 3_000;
  const clock = new FakeClock();
  let dir = '';
  let pool: SessionBrowserPool;
  const taken: SessionBrowser[] = [];
  const take = async (): Promise<SessionBrowser> => {
    const { browser, warm } = await pool.take({ screen: DEFAULT_SESSION_SCREEN });
    taken.push(browser);
    expect(warm, 'a warm browser taken').toBe(true);
    return browser;
  };
  /** A fresh pool of one, its warm browser up. */
  const warmPool = async (): Promise<void> => {
    await pool?.close();
    pool = new SessionBrowserPool(
      {
        executablePath: () => CHROMIUM_PATH,
        noSandbox: true,
        tempDir: dir,
        clock,
        refill: { quietMs: QUIET_MS, maxMs: MAX_MS },
      },
      1,
    );
    pool.fill();
    await pool.ready();
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-pool-refill-'));
  });
  afterAll(async () => {
    await pool?.close();
    for (const browser of taken) await browser.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts once a cdp_url client has been quiet for the quiet period, not while nobody has connected', async () => {
    await warmPool();
    const browser = await take();
    expect(pool.waitingRefills, 'the refill waits after the take').toBe(1);
    expect(pool.running, 'no refill launched yet: only the taken browser runs').toBe(1);
    clock.advance(QUIET_MS * 2);
    expect(pool.waitingRefills, 'no client has connected: nothing says the session got going').toBe(1);

    // A cdp_url client connects (as the API's proxy hands it over) and is answered.
    const door = createServer();
    door.on('upgrade', (request, socket, head) => browser.acceptClient(request, socket, head));
    await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
    const ws = new WebSocket(`ws://127.0.0.1:${(door.address() as AddressInfo).port}/devtools/browser/x`);
    const answered = new Promise<string>((resolve, reject) => {
      ws.onmessage = (event) => resolve(String(event.data));
      ws.onerror = () => reject(new Error('the CDP client could not connect'));
    });
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    expect(await answered).toContain('"id":1');
    // Quiet from here: the refill starts within two quiet periods (one to see the count, one to see it unchanged).
    let steps = 0;
    while (pool.waitingRefills > 0 && steps < MAX_MS / QUIET_MS - 1) {
      clock.advance(QUIET_MS);
      steps += 1;
    }
    expect(pool.waitingRefills, `the refill started on the quiet client, not at the ${MAX_MS} ms bound`).toBe(0);
    expect(steps, 'quiet periods it took').toBeLessThanOrEqual(3);
    await pool.ready();
    expect(await pool.idlePids(), 'the refilled warm browser').toHaveLength(1);
    ws.close();
    door.close();
  });

  it('starts at the bound when no client ever connects, at the session end, or at once for the next session', async () => {
    await warmPool();
    await take();
    clock.advance(MAX_MS - 1);
    expect(pool.waitingRefills, 'before the bound').toBe(1);
    clock.advance(1);
    expect(pool.waitingRefills, 'at the bound').toBe(0);
    await pool.ready();

    // The session ends (its browser exits): the refill starts.
    const ending = await take();
    expect(pool.waitingRefills).toBe(1);
    await ending.close();
    expect(pool.waitingRefills, 'started when the taken browser exited').toBe(0);
    await pool.ready();

    // Another session asks while the refill waits: it starts at once, and that session gets it.
    await take();
    expect(pool.waitingRefills).toBe(1);
    const next = await take();
    expect(next.alive).toBe(true);
    expect(pool.waitingRefills, "the next session's refill waits in turn").toBe(1);
  });

  it("a closed browser's folder is removed after its close answers, and the pool's close waits for it", async () => {
    await warmPool();
    const browser = await take();
    const workDir = dirname(browser.downloadsDir);
    expect(existsSync(workDir)).toBe(true);
    await browser.close();
    expect(browser.alive, 'close answers once the process has exited').toBe(false);
    await pool.close();
    expect(existsSync(workDir), "the closed browser's folder after the pool's close").toBe(false);
  });
});
