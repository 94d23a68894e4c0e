import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startFormServer, type FormServer, type Handler } from '../helpers/formServer.ts';

/**
 * The hooks every autofill test file needs: one Chromium and one form server per file (the
 * handlers are made in beforeAll), a fresh context and page per test, all closed afterwards.
 */
export function useFormBrowser(
  handlers: () => Record<string, Handler>,
  use: { server(server: FormServer): void; page(page: Page): void },
): void {
  let browser: Awaited<ReturnType<typeof launchTestBrowser>> | undefined;
  let server: FormServer | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    [browser, server] = await Promise.all([launchTestBrowser(), startFormServer(handlers())]);
    use.server(server);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    if (!browser) throw new Error('the test browser did not start');
    context = await browser.newContext();
    use.page(await context.newPage());
  });
  afterEach(async () => {
    await context?.close();
  });
}
