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
