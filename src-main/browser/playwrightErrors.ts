import { lazyRequire } from '../base/lazyRequire.ts';

// Required at the first check, not imported: nothing loads playwright-core at start (browser/lazyChromium.ts).
const playwright = lazyRequire<typeof import('playwright-core')>('playwright-core');

/** Whether `error` is Playwright's TimeoutError (an action or wait that ran out of time). Playwright stays in browser/. */
export function isPlaywrightTimeout(error: unknown): error is Error {
  return error instanceof playwright().errors.TimeoutError;
}
