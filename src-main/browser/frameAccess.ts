import type { Frame, Page } from 'playwright-core';
import { PorticoError } from '../base/errors.ts';

/** How long a frame's script may take to answer before the caller gives up on it (a page's own loop can hold its thread for good). */
export const FRAME_ANSWER_MS = 10_000;

/**
 * The frames a script can reach: attached, with a committed document. Chromium never commits a frame it
 * refused to load (`file:` or `chrome:` under a web page), and Playwright waits for such a frame's
 * execution context forever: asking it anything would hang the caller.
 */
export function scriptableFrames(page: Page): Frame[] {
  return page.frames().filter((frame) => !frame.isDetached() && frame.url() !== '');
}

/** A frame whose script did not answer within the bound. */
export class FrameDidNotAnswer extends PorticoError {
  constructor(frame: Frame, ms: number) {
    super(`a frame of the page (${frame.url() || 'not loaded'}) did not answer within ${Math.round(ms / 1000)} s`);
  }
}

/** `work` (a call into `frame`), or a FrameDidNotAnswer rejection after `ms` of wall time; the call itself is left to fail on its own. */
export function answerWithin<T>(frame: Frame, work: Promise<T>, ms = FRAME_ANSWER_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FrameDidNotAnswer(frame, ms)), ms);
    timer.unref();
  });
  work.catch(() => undefined);
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}
