import type { Page, Response } from 'playwright-core';

/**
 * What Chromium answers a navigation whose connection or host lookup was under way when the machine's network
 * changed (an address or link added or removed: a Wi-Fi switch, a VPN coming up, a virtual link made by another
 * program). Playwright reports it as the net error itself or, when Chromium's error page commits first, as the
 * navigation "interrupted by another navigation to chrome-error://chromewebdata/".
 */
const NETWORK_CHANGED = /net::ERR_NETWORK_CHANGED|interrupted by another navigation to chrome-error:\/\//;

export type GotoOptions = NonNullable<Parameters<Page['goto']>[1]>;

/** Whether `error` is a navigation that failed only because the network changed under it. */
export function isNetworkChanged(error: unknown): boolean {
  return error instanceof Error && NETWORK_CHANGED.test(error.message);
}

/**
 * Times a navigation is opened again after the network changed under it. A change often comes as several (a
 * link added, its address, the link brought up: each one a change Chromium reports), and each can fail the
 * attempt under way; the first failure's error page can also commit after the next attempt started, which
 * Playwright reports for that attempt as "interrupted by another navigation to chrome-error://". Two were
 * not enough in CI under load (three steps of one change, spread out).
 */
const REOPENS = 4;
/** The pause before the first re-open, doubled before each next one (50, 100, 200, 400 ms): a burst of changes passes. */
const REOPEN_PAUSE_MS = 50;

/**
 * `page.goto`, opened again when the network changed under the attempt — what Chrome's own error page does
 * for that error (it reloads by itself). Any other failure, or a change that keeps failing it, is thrown as it was.
 * `onRetry` hears each failed attempt's error (a job logs it).
 */
export async function openUrl(
  page: Page,
  url: string,
  options: GotoOptions,
  onRetry?: (error: Error) => void,
): Promise<Response | null> {
  for (let reopened = 0; ; reopened += 1) {
    try {
      return await page.goto(url, options);
    } catch (error) {
      if (reopened >= REOPENS || !isNetworkChanged(error) || page.isClosed()) throw error;
      onRetry?.(error as Error);
      await new Promise((resolve) => setTimeout(resolve, REOPEN_PAUSE_MS * 2 ** reopened));
    }
  }
}
