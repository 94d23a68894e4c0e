import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** The full Chromium: what the product itself launches in tests (jobs, session browsers, hosts, version checks). */
export const CHROMIUM_PATH = process.env.PORTICO_TEST_CHROMIUM ?? '/usr/bin/chromium';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/**
 * The browser a test drives pages in by itself (launchTestBrowser: form pages, the React corpus, the console
 * under test): Chromium's headless shell when installed (Debian's `chromium-headless-shell`, the same
 * Blink and V8 as `chromium`; it is what Playwright itself launches for `headless: true`), else the full
 * Chromium. Measured here: a launch with one page costs the shell ~0.2 s of CPU against ~0.7 s, and a page
 * filled while an animation runs ~0.7 s against ~2.5 s; the tests' own browsers are most of CI's CPU
 * (docs/performance.md, "CI time"). PORTICO_TEST_PAGE_CHROMIUM overrides; PORTICO_TEST_CHROMIUM sets both.
 */
export const PAGE_CHROMIUM_PATH =
  process.env.PORTICO_TEST_PAGE_CHROMIUM ??
  process.env.PORTICO_TEST_CHROMIUM ??
  (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM_PATH);

/** The flags every test Chromium runs with (also the namespace hosts' debugging Chromium, test/helpers/netns.ts). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** One headless Chromium for a test file; call `newContext()` per test and `close()` in afterAll. */
export async function launchTestBrowser(): Promise<{
  browser: Browser;
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}> {
  const browser = await chromium.launch({ executablePath: PAGE_CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return {
    browser,
    newContext: () => browser.newContext({ viewport: { width: 1100, height: 900 } }),
    close: () => browser.close(),
  };
}
