import { writeFile } from 'node:fs/promises';
import type { CDPSession, Locator, Page } from 'playwright-core';

const sessions = new WeakMap<Page, Promise<CDPSession>>();

/**
 * A full-page PNG of `page` written to `path`. Without anything to mask it asks Chromium directly
 * (one layout query and one capture tuned for speed, about half of Playwright's full-page path,
 * which matters because every job step takes one); with `mask` it uses Playwright's screenshot,
 * which paints the masked elements over.
 */
export async function fullPageScreenshot(page: Page, path: string, mask: Locator[]): Promise<void> {
  if (mask.length) {
    await page.screenshot({ path, fullPage: true, type: 'png', mask, timeout: 15_000 });
    return;
  }
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
  }
  try {
    const cdp = await session;
    const { cssContentSize } = await cdp.send('Page.getLayoutMetrics');
    const clip = { x: 0, y: 0, width: Math.max(1, Math.ceil(cssContentSize.width)), height: Math.max(1, Math.ceil(cssContentSize.height)), scale: 1 };
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, optimizeForSpeed: true, clip });
    await writeFile(path, Buffer.from(data, 'base64'));
  } catch {
    // A session that cannot be opened or has gone (navigation to another process, a closed target): Playwright's way.
    sessions.delete(page);
    await page.screenshot({ path, fullPage: true, type: 'png', timeout: 15_000 });
  }
}
