import type { Frame, Locator } from 'playwright-core';

import { isPlaywrightTimeout } from '../browser/playwrightErrors.ts';

/**
 * How long one action on the page (fill, click, select, press…) may wait for its control to be ready —
 * Playwright's own actionability checks (attached, visible, stable, enabled, editable) are the page's
 * readiness. Not a constant: what is left of the job's `timeout_minutes`, less a reserve so the job can
 * still say which wait it gave up on before its own timeout ends it (docs/decisions.md, "Waits follow
 * the page and the job's time").
 */
export interface WaitBudget {
  /** Milliseconds the next wait may take (at least 1). */
  ms(): number;
  /** The job's error for a wait that used the whole budget; `detail` says what was waited for. */
  exhausted(detail: string): string;
}

/** The reserve kept back from waits: a quarter of the job's time, at most 15 s. */
function reserveMs(totalMs: number): number {
  return Math.min(15_000, totalMs / 4);
}

/**
 * The budget of a job: `remainingMs()` is its active time left (waiting for a human does not count),
 * `totalMs` its `timeout_minutes` in ms.
 */
export function jobWaitBudget(remainingMs: () => number, totalMs: number, timeoutMinutes: number): WaitBudget {
  const reserve = reserveMs(totalMs);
  return {
    ms: () => Math.max(1, Math.floor(remainingMs() - reserve)),
    exhausted: (detail) =>
      `The page was not ready within the job's time (timeout_minutes ${timeoutMinutes}, ${Math.round(reserve / 100) / 10} s kept to report): ${detail}`,
  };
}

/** Outside a job (an agent run by a test or a tool without one): Playwright-like 30 s per wait. */
export const DEFAULT_WAIT_BUDGET: WaitBudget = Object.freeze({
  ms: () => 30_000,
  exhausted: (detail: string) => `The page was not ready within 30 s: ${detail}`,
});

/** Whether `error` is a Playwright action that timed out (its control never became ready). */
export function isWaitTimeout(error: unknown): error is Error {
  return isPlaywrightTimeout(error);
}

/**
 * What a Playwright timeout waited for, in one line: the action and the reason its call log gives last
 * ("element is not enabled", "… intercepts pointer events"). Never the rest of the log: it spells out
 * the value being typed (`fill("…")`).
 */
export function describeWaitTimeout(error: Error): string {
  // The call log is coloured with ANSI codes.
  const lines = error.message.split('\n').map((line) => line.replace(/\u001b\[\d+m/g, '').trim());
  const action = (lines[0] ?? '').replace(/: Timeout \d+ms exceeded\.?$/, '');
  const reason = [...lines]
    .reverse()
    .find((line) => /^- element (is|was) /.test(line) || /^- .* intercepts pointer events$/.test(line));
  return reason ? `${action} waited for the control (${reason.slice(2)})` : `${action} waited for the control`;
}

/** How often an element an action waits for is looked for while the action still waits. */
const MARK_CHECK_MS = 500;

/** The element an action waited for left the page (a re-render replaced it: the new one carries no mark). */
export class MarkGone extends Error {}

/**
 * Runs `action` on the element `marked` finds (a scanned `data-portico-id`) and, while the action still waits,
 * looks every 500 ms whether that element is still on the page: Playwright waits its whole timeout for a
 * mark a re-render took away, so a gone mark ends the wait with `MarkGone` instead of using the budget.
 * `marked` finding nothing is gone, and so is its `frame` detached. The abandoned action can match nothing
 * later: marks are never reused (injected/scanFields.ts).
 */
export async function whileMarked<T>(
  frame: Frame,
  marked: Locator,
  action: () => Promise<T>,
  what: string,
): Promise<T> {
  const work = action();
  let done = false;
  const finished = work.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, MARK_CHECK_MS)))]);
    clearTimeout(timer);
    if (done) return work;
    const gone = await marked.count().then(
      (n) => n === 0,
      () => frame.isDetached(),
    );
    if (gone && !done) {
      void work.catch(() => undefined);
      throw new MarkGone(`${what} left the page`);
    }
  }
}
