import { errors } from 'playwright-core';

/** Whether `error` is Playwright's TimeoutError (an action or wait that ran out of time). Playwright stays in browser/. */
export function isPlaywrightTimeout(error: unknown): error is Error {
  return error instanceof errors.TimeoutError;
}
