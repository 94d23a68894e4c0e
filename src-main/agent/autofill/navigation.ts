import { MarkGone, whileMarked, type WaitBudget } from '../waitBudget.ts';
import type { Frame, Page, Request } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';

import type { HumanInput } from '../../browser/humanInput.ts';
import { clickSettled, fromJsonText, scanPageText } from '../injected/index.ts';
import type { ClickSettled, ClickSettledArgs } from '../injected/scanTypes.ts';
import type { FrameScan, ScannedButton } from './frameScan.ts';
import { loose } from './textNorm.ts';

export type ButtonKind = 'next' | 'submit';

export interface ChosenButton {
  frame: Frame;
  button: ScannedButton;
  kind: ButtonKind;
}

const IGNORE =
  /^(back|go back|previous|prev|cancel|reset|clear|clear form|sign out|log out|logout|change|edit|delete|remove|search|help|close|menu|skip to main content|print|save as draft|save draft|save for later|add another)\b|^(upload|upload file|browse|choose file|choose files)$|cookie|language/;
const NEXT =
  /\b(continue|next|proceed|start now|start|save and continue|save continue|go on|carry on|next step|next page)\b/;
const SUBMIT =
  /\b(submit|send|apply|register|sign up|confirm|finish|complete|accept and send|accept send|pay|place order|book|request|create account|done|save|declare|agree and submit|sign in|log in)\b/;

/** Classifies a button by its text: `next` moves a wizard on, `submit` ends it, null ignores it. */
export function classifyButton(text: string, type: string): ButtonKind | null {
  const t = loose(text);
  if (!t || IGNORE.test(t)) return null;
  // "Give feedback" (a phase banner's link, a survey button) moves no form on; a form's own submit
  // button that sends the feedback ("Send feedback") does.
  if (/feedback/.test(t) && !(type === 'submit' && SUBMIT.test(t))) return null;
  if (NEXT.test(t)) return 'next';
  if (SUBMIT.test(t)) return 'submit';
  return type === 'submit' || type === 'image' ? 'submit' : null;
}

/** The button that advances the form: a next/submit button, preferring the frame and form just filled. */
export function chooseButton(
  frames: Array<{ frame: Frame; scan: FrameScan }>,
  filledForms: Set<string>,
  filledFrames: Set<Frame>,
): ChosenButton | null {
  let best: { score: number; chosen: ChosenButton } | null = null;
  for (const { frame, scan } of frames) {
    scan.buttons.forEach((button, index) => {
      if (!button.visible || button.disabled) return;
      const kind = classifyButton(button.text, button.tag === 'a' ? 'link' : button.type);
      if (!kind) return;
      let score = 1;
      if (NEXT.test(loose(button.text)) || SUBMIT.test(loose(button.text))) score += 1;
      if (filledForms.has(button.formKey)) score += 2;
      if (filledFrames.has(frame)) score += 1;
      if (button.primary) score += 0.5;
      if (button.tag === 'a') score -= 0.5;
      score -= index * 0.001;
      if (!best || score > best.score) best = { score, chosen: { frame, button, kind } };
    });
  }
  return best ? (best as { chosen: ChosenButton }).chosen : null;
}

/** How long a click may go without changing the page before it is taken as a click that changed nothing. */
const CLICK_FIRST_MS = 500;
/**
 * After the page changed: it must hold still for two animation frames (the renders its handlers and
 * effects cause have run; counted again from each change) and at least this long (no node, text or
 * attribute change) to be read — unless a `next` click's change drew new controls (the next step's): then
 * the two frames are enough; or a change drew a confirmation: then the rest of this is waited for after the
 * page is read (`clickSettleArgs`). Requests the click sent are waited for on their own.
 */
const CLICK_QUIET_MS = 50;
/** A page that keeps changing is read after this long anyway (as it was read after a fixed pause before). */
const CLICK_MAX_MS = 2000;
/** How long the answers to the requests a click sent are waited for here (the submission watch waits longer). */
const CLICK_REQUESTS_MS = 5000;
/**
 * After those answers: how long the page may take to show what they brought (a confirmation, the next
 * step) before it is read anyway. A loaded machine draws a React app's answer late (300 ms was seen to
 * be too short at load ~19: the form was read unchanged and its submit button clicked again as it went
 * away); a page that changes ends the wait at once.
 */
const CLICK_ANSWERED_MS = 1000;
/** Requests that may carry a form or bring the next step (its data, its code loaded late): what a click's settling waits for. */
const PAGE_REQUESTS = new Set(['document', 'fetch', 'xhr', 'script']);

/** The wait for the page after a click, or after its requests were answered (then from the answer, up to CLICK_ANSWERED_MS). */
const CLICK_SETTLE: ClickSettledArgs = {
  start: false,
  firstMs: CLICK_FIRST_MS,
  quietMs: CLICK_QUIET_MS,
  maxMs: CLICK_MAX_MS,
};

/** Text that says the application went through (what `looksConfirmed` reads on a page). */
const CONFIRMED =
  /thank you|has been (submitted|received|sent)|successfully (submitted|sent|registered)|application (complete|submitted|received)|submission (received|complete)|we have received|confirmation (number|code)|your reference/i;

/**
 * How the wait for a click's own change ends (injected/clickSettled.ts). A `next` click's change that drew new
 * controls (the next step's) ends it without the quiet period. A change that drew a confirmation (`CONFIRMED`; a
 * final button may read "Start subscription", a `next`) ends it after two still frames too, and the rest of the
 * quiet period is the page's tail (`changedAfterRead`, before what was read meanwhile is trusted: a late error is
 * read as before). Other changes of a submit click wait the quiet period: it is also what lets the submission's
 * request (held by the submission watch's route) reach the service before the page is read again, so that a form
 * still showing is never taken for one to fill again (a confirmation is drawn from the request's answer).
 */
export function clickSettleArgs(kind: ButtonKind): ClickSettledArgs {
  return { ...CLICK_SETTLE, controlsEnd: kind === 'next', confirmed: CONFIRMED.source };
}

/**
 * The wait after the click's requests (`urls`) were answered: the click's watch, kept, counts the changes from
 * the answers' arrival in the page (so an answer drawn before this call is not waited for), up to
 * CLICK_ANSWERED_MS for a first change; one that drew a confirmation ends it as for the click's own wait.
 */
export function answeredSettleArgs(urls: string[]): ClickSettledArgs {
  return { ...CLICK_SETTLE, firstMs: CLICK_ANSWERED_MS, answered: urls, confirmed: CONFIRMED.source };
}

/**
 * Starts watching `frame` for what a click will change (injected/clickSettled.ts); true when the watch runs.
 * It counts changes only from the click's own input events on, so it may start while other work that does not
 * act on the page (the step's screenshot) is still under way.
 */
export function watchClick(frame: Frame): Promise<boolean> {
  return frame.evaluate(clickSettled, { start: true, firstMs: 0, quietMs: 0, maxMs: 0 }).then(
    () => true,
    () => false,
  );
}

/** What a click left to do: the frame whose page drew a confirmation when its wait ended (its tail to check), else null. */
export interface ClickDone {
  tail: Frame | null;
  /**
   * With `scan`: the clicked frame's page scan, made in the settle's own call as soon as it answered; null when
   * the click navigated, a request it sent is still unanswered, or the settle's call failed.
   */
  scan: FrameScan | null;
}

/**
 * Clicks and waits for what it caused (docs/autofill.md, "Performance"): a navigation of any frame
 * (then its load), else the page's own reaction — its DOM changing and then holding still
 * (injected/clickSettled.ts), and the requests the click sent (document, fetch, XHR, a script loaded
 * late) answered, then the page holding still again after the answers. A click that changes nothing is waited for `CLICK_FIRST_MS`, as long
 * as the fixed pause this replaces. A click whose page drew a confirmation ends before the quiet period
 * does: the caller reads the page, then asks `changedAfterRead` about the returned `tail`.
 */
export async function clickAndSettle(
  page: Page,
  chosen: ChosenButton,
  human: HumanInput | null,
  budget: WaitBudget,
  /** A watch started on `chosen.frame` already (watchClick), else one is started here. */
  started?: Promise<boolean>,
  /** Scan the clicked frame in the last settle call, as it answers (`ClickDone.scan`). */
  scan = false,
): Promise<ClickDone> {
  const loc = chosen.frame.locator(`[data-portico-id="${chosen.button.pid}"]`);
  let navigated = false;
  let ownNavigated = false;
  const onNavigated = (frame: Frame): void => {
    navigated = true;
    if (frame === chosen.frame) ownNavigated = true;
  };
  const inflight = new Set<Request>();
  const answered = new Set<string>();
  /** Called when the last request in flight is answered (the wait for the answers). */
  let allAnswered: (() => void) | null = null;
  const onRequest = (request: Request): void => {
    if (PAGE_REQUESTS.has(request.resourceType())) inflight.add(request);
  };
  const onDone = (request: Request): void => {
    if (!inflight.delete(request)) return;
    answered.add(request.url());
    if (!inflight.size) allAnswered?.();
  };
  page.on('framenavigated', onNavigated);
  page.on('request', onRequest);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  let settled: ClickSettled | null = null;
  let scanned: FrameScan | null = null;
  /** One settle call; with `withScan`, the page scan made as it answers comes back with it (`scanned`). */
  const settle = async (args: ClickSettledArgs, withScan: boolean): Promise<ClickSettled | null> => {
    scanned = null;
    if (!withScan) return chosen.frame.evaluate(clickSettled, args).catch(() => null);
    const text = await chosen.frame.evaluate(scanPageText, args).catch(() => null);
    if (text === null) return null;
    const both = fromJsonText<{ settled: ClickSettled; scan: FrameScan }>(text);
    scanned = both.scan;
    return both.settled;
  };
  try {
    // Watching starts before the click, so that no change it causes is missed.
    const watching = await (started ?? watchClick(chosen.frame));
    // A button a re-render replaced is never clicked: the wait ends (MarkGone) and the caller reads the page again.
    // Gone because its frame navigated: the click's own navigation (a click waits for it to commit) took it.
    await whileMarked(
      chosen.frame,
      loc,
      async () => {
        if (human) await human.click(loc);
        else await loc.click({ timeout: budget.ms() });
      },
      `'${chosen.button.text}'`,
    ).catch((error: unknown) => {
      if (!(error instanceof MarkGone) || !ownNavigated) throw error;
    });
    // A request already in flight keeps the watch for the wait after its answer.
    // The scan rides in the last settle call: this one when no request is in flight (none to wait for after it).
    if (watching) {
      const keep = inflight.size > 0;
      settled = await settle({ ...clickSettleArgs(chosen.kind), keep }, scan && !keep);
    }
    if (inflight.size) {
      // The click sent requests (the form's submission, the next step's data): their answers, then what the page made of them.
      await new Promise<void>((resolve) => {
        const end = (): void => {
          clearTimeout(timer);
          page.off('close', end);
          allAnswered = null;
          resolve();
        };
        const timer = setTimeout(end, CLICK_REQUESTS_MS);
        allAnswered = end;
        page.once('close', end);
        if (!inflight.size || page.isClosed()) end();
      });
      if (!page.isClosed()) settled = await settle(answeredSettleArgs([...answered]), scan);
    }
  } finally {
    page.off('framenavigated', onNavigated);
    page.off('request', onRequest);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
  }
  if (navigated) {
    await page.waitForLoadState('load', { timeout: 15000 }).catch(() => undefined);
    for (const frame of scriptableFrames(page))
      await frame.waitForLoadState('load', { timeout: 5000 }).catch(() => undefined);
  }
  return { tail: settled?.confirmed ? chosen.frame : null, scan: navigated || inflight.size ? null : scanned };
}

/**
 * After a click that ended on a confirmation drawn (`ClickDone.tail`) and a read of the page since: waits for the
 * rest of the quiet period (the page held still CLICK_QUIET_MS after its last change) and says whether the page
 * changed after that answer — an error drawn late —, then that read is not to be trusted: the page is read again.
 * True too when the watch is gone (the document was replaced): what the page did meanwhile is unknown.
 */
export async function changedAfterRead(frame: Frame): Promise<boolean> {
  const tail = await frame.evaluate(clickSettled, { ...CLICK_SETTLE, tail: true }).catch(() => null);
  return tail?.changed ?? true;
}

/** Text that says the application went through. */
export function looksConfirmed(text: string): boolean {
  return CONFIRMED.test(text);
}

/** A summary page that wants the answers confirmed. */
export function looksLikeReview(text: string): boolean {
  return /check your answers|review your (answers|application|details)|confirm your (answers|details)|summary of your/i.test(
    text,
  );
}
