import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.PORTICO_TEST_CHROMIUM ?? '/usr/bin/chromium';

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
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return {
    browser,
    newContext: () => browser.newContext({ viewport: { width: 1100, height: 900 } }),
    close: () => browser.close(),
  };
}
