import type { WaitBudget } from '../waitBudget.ts';
import type { Frame, Locator, Page } from 'playwright-core';

import { PorticoError } from '../../base/errors.ts';
import { answerWithin } from '../../browser/frameAccess.ts';
import type { HumanInput } from '../../browser/humanInput.ts';
import {
  controlRead,
  pointerTarget,
  shownValue as shownValueInPage,
  type ControlReads,
  type ControlState,
  type FindListboxArgs,
} from '../injected/index.ts';
import type { ScannedControl } from './frameScan.ts';
import type { Target } from './targets.ts';
import type { PlacementHow } from './valueAdapter.ts';

/**
 * A value that cannot go into a control as given; the wizard asks a human or fails with `message`.
 * `none`: the value is none of the control's options; `several`: it means more than one of them;
 * `invalid`: it is not the kind of value the control takes.
 */
export class FillProblem extends PorticoError {
  readonly choices: string[];
  readonly kind: 'none' | 'several' | 'invalid';
  constructor(message: string, choices: string[] = [], kind: FillProblem['kind'] = 'invalid') {
    super(message);
    this.choices = choices;
    this.kind = kind;
  }
}

/** The problem of a value that matched no option (index -1) or several (-2) of a control's real options. */
export function optionProblem(target: Target, value: string, index: number, choices: string[]): FillProblem {
  return index === -2
    ? new FillProblem(`'${value}' matches more than one option of '${target.label}'`, choices, 'several')
    : new FillProblem(`'${value}' isn't one of the options for '${target.label}'`, choices, 'none');
}

/** What a fill put in the control, and how the value was adapted to get there. */
export interface FillResult {
  shown: string;
  how: PlacementHow;
  /** A list's options as read while it was open, and the values of those chosen (multi-select lists), for the submission check. */
  options?: Array<{ label: string; value: string }>;
  sent?: string[];
  /** A bare text box proved to be a tag input when filled: the key is checked as its tags (`sent`). */
  tags?: boolean;
  /**
   * The states of controls (by mark) read in the same round trip as the fill's own read-back, as the fill
   * left them: the submission check's reads of them (placedCheck.ts), not made a second time.
   */
  states?: Record<string, ControlState>;
}

export interface FillEnv {
  page: Page;
  /** Set on humanized URLs: clicks and typing go through it. */
  human: HumanInput | null;
  log(line: string): void;
  /** How long one action waits for its control to be ready: the job's remaining time (agent/waitBudget.ts). */
  budget: WaitBudget;
}

/** The Playwright locator of a scanned control (CSS pierces open shadow roots). */
export function locate(target: Target, control: ScannedControl = target.controls[0] as ScannedControl): Locator {
  return target.frame.locator(`[data-portico-id="${control.pid}"]`);
}

/** Where a scanned control is marked: its frame and its `data-portico-id` (what `readControl` finds it by). */
export interface MarkedControl {
  frame: Frame;
  pid: string;
}

/** The mark of a scanned control (`locate`'s element), for `readControl`. */
export function markOf(target: Target, control: ScannedControl = target.controls[0] as ScannedControl): MarkedControl {
  return { frame: target.frame, pid: control.pid };
}

/**
 * `read` (injected/controlRead.ts) of the scanned control `pid` in `frame`, in one round trip: the element is
 * found and read by one `frame.evaluate` in the page's world, where `locator.evaluate` costs about eight CDP
 * calls (and loads Playwright's injected script into the page's world). When the frame does not have exactly
 * one element with that id (gone, re-rendered, duplicated) or does not answer, `slow` — the locator's
 * evaluate, as before: it waits for the element, and refuses several.
 */
export async function readControl<K extends keyof ControlReads>(
  frame: Frame,
  pid: string,
  read: K,
  slow: () => Promise<ControlReads[K]>,
  extra: { listbox?: FindListboxArgs; guard?: 'on' | 'off' } = {},
): Promise<ControlReads[K]> {
  const fast = await answerWithin(frame, frame.evaluate(controlRead, { pid, read, ...extra })).catch(() => null);
  // The page answers the read named `read` (controlRead.ts's switch): its value is that read's type.
  if (fast?.found === 1 && fast.value !== undefined) return fast.value as ControlReads[K];
  return slow();
}

/** Clicks `loc` once it is ready (Playwright's actionability), waiting up to `timeoutMs` (default: the job's budget). */
export async function click(env: FillEnv, loc: Locator, timeoutMs = env.budget.ms()): Promise<void> {
  if (env.human) await env.human.click(loc);
  else await loc.click({ timeout: timeoutMs });
}

/** What a pointer at a control's centre hits (injected/pointerTarget.ts). */
export type PointerHit = 'self' | 'label' | 'hidden' | 'other';

/** What a pointer at `loc`'s centre hits now (`pointerReaches`' first look; 'other' when it could not be read). */
export function pointerHit(loc: Locator, at?: MarkedControl): Promise<PointerHit> {
  const slow = (): Promise<PointerHit> => loc.evaluate(pointerTarget);
  return (at ? readControl(at.frame, at.pid, 'pointerTarget', slow) : slow()).catch(() => 'other' as const);
}

/** How often a covered control is hit-tested again (about a frame), and the time kept for the trial click after. */
const COVERED_POLL_MS = 16;
const TRIAL_LAST_MS = 250;

/**
 * What a pointer click on `loc` reaches: answered at once by a hit test at its centre
 * (injected/pointerTarget.ts) when the control itself ('self') or its own label ('label') is on top,
 * or when the control is visually hidden under a drawn widget ('none'); otherwise Playwright's trial
 * click decides, retrying up to `trialMs` (an overlay or a closing popup may still go away): 'self',
 * or 'none'. A trial click on a control under its label, or on a visually hidden one, used to wait out
 * its whole timeout on every styled checkbox, radio and list trigger. `at`: `loc` is that scanned
 * control, read in one round trip (`readControl`). `first`: that hit test, already made (sent together with
 * other reads of the control); the waits below are the same.
 *
 * Covered by something else ('other': most often a popup still closing over it, as Material's select
 * menu fades out over the field below): with `at`, the same hit test is made again about every frame
 * until two reads in a row find the control (or its label) on top, for all but the last 250 ms of
 * `trialMs`; the trial click decides only a control still covered then. Playwright's trial retries 20 then 100 then 500 ms apart,
 * each try waiting two frames, and the click that follows it waits them again: a popup's close cost
 * both (~100-200 ms a control on the Material forms).
 */
export async function pointerReaches(
  loc: Locator,
  trialMs: number,
  at?: MarkedControl,
  first?: PointerHit,
): Promise<'self' | 'label' | 'none'> {
  const hit = first ?? (await pointerHit(loc, at));
  if (hit === 'hidden') return 'none';
  if (hit !== 'other') return hit;
  const started = Date.now();
  if (at) {
    const until = started + trialMs - TRIAL_LAST_MS;
    // The answer once two reads a frame apart agree that the control is reachable (a popup's close animation
    // still moving when the first read found it clear is waited out as the trial's stability check would).
    let clear: 'self' | 'label' | 'none' | null = null;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, COVERED_POLL_MS));
      // Only the page's own answer: a control gone or duplicated is left to the trial click (it waits, and refuses several).
      const again = await answerWithin(
        at.frame,
        at.frame.evaluate(controlRead, { pid: at.pid, read: 'pointerTarget' as const }),
      )
        .then((r) => (r.found === 1 ? (r.value as PointerHit | undefined) : undefined))
        .catch(() => undefined);
      if (again === undefined) break;
      const now = again === 'other' ? null : again === 'hidden' ? 'none' : again;
      if (now !== null && now === clear) return now;
      clear = now;
    }
  }
  return loc.click({ trial: true, timeout: Math.max(trialMs - (Date.now() - started), TRIAL_LAST_MS) }).then(
    () => 'self' as const,
    () => 'none' as const,
  );
}

/** Types key by key so widgets that listen to keydown/keypress (masks, pickers, editors) see real input. */
export async function typeKeys(env: FillEnv, loc: Locator, text: string): Promise<void> {
  await click(env, loc);
  await env.page.keyboard.press('ControlOrMeta+A');
  await env.page.keyboard.press('Backspace');
  if (env.human) await env.human.type(text);
  else await env.page.keyboard.type(text, { delay: 15 });
}

/** Polls `check` until it holds or `timeoutMs` passes (widgets update on their own schedule). */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 40): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * What a widget shows as its value: an input's value, else the visible text of the element or of
 * the wrapper around it holding no other field (react-select shows its choice beside the input),
 * leaving out live regions, option lists and visually hidden text. `at`: `loc` is that scanned
 * control, read in one round trip (`readControl`).
 */
export async function shownValue(loc: Locator, at?: MarkedControl): Promise<string> {
  const slow = (): Promise<string> => loc.evaluate(shownValueInPage);
  return at ? readControl(at.frame, at.pid, 'shownValue', slow) : slow();
}
