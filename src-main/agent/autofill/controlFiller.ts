import type { Locator } from 'playwright-core';

import { answerWithin } from '../../browser/frameAccess.ts';

import { AgentFailure } from '../agentTypes.ts';
import {
  calendarOpen,
  twoFrames,
  controlState,
  enterGuard,
  hasFocus,
  markFocused,
  readAndLeave,
  segmentReading,
  selectedLabel,
  sliderSettled,
  sliderSettledAt,
  tagChips,
  takeMarked,
} from '../injected/index.ts';
import { fillCalendar } from './calendarFiller.ts';
import { fillEditable, fillListbox, fillMultiListbox, setAriaChecked } from './ariaFiller.ts';
import {
  DATE_FORMATS,
  dateFormatForLang,
  dateFormatFromExample,
  dateFormatFromHint,
  dateFormatFromPattern,
  formatDate,
  looksLikeDateField,
  parseDateValue,
  parseMonthYear,
} from './dates.ts';
import {
  click,
  FillProblem,
  locate,
  markOf,
  optionProblem,
  pointerHit,
  pointerReaches,
  readControl,
  shownValue,
  typeKeys,
  waitFor,
  type FillEnv,
  type FillResult,
} from './fillBase.ts';
import type { ControlState, SegmentedField } from '../injected/index.ts';
import type { ScannedControl } from './frameScan.ts';
import { dateRangeValue, formatDateRange, numericMeaning, plainNumber, showsDateRange } from './rangeAndNumber.ts';
import {
  readSegments,
  sameSegmentValue,
  segmentGoal,
  segmentKeys,
  segmentText,
  type SegmentKeys,
  type SegmentReading,
} from './segments.ts';
import { readControls } from './placedCheck.ts';
import { planSliderKeys, sameSliderValue, sliderGoal } from './slider.ts';
import { mayTakeTags, selectChoices, type DateSplitParts, type Target } from './targets.ts';
import {
  digitSlots,
  digitsForMask,
  fillDigitSlots,
  formatTwelveHour,
  parseTimeOfDay,
  readBackMatches,
  wantsTwelveHour,
  type ReadBackKind,
  type TimeOfDay,
} from './widgetValues.ts';
import { loose } from './textNorm.ts';
import {
  asBoolean,
  asText,
  filePayloads,
  findChoice,
  fitToMask,
  matchChoice,
  monthChoiceValues,
  patternAccepts,
  realChoices,
  sameValue as sameText,
  withoutAffixes,
  type ChoiceLike,
  type PlacementHow,
} from './valueAdapter.ts';

export { FillProblem, locate, type FillEnv, type FillResult };

export interface FillOptions {
  /** Date pattern to use for a text date field (set by the validation retry loop). */
  dateFormat?: string;
  /** Schema format of the value (`date` makes a text field a date field). */
  format?: string;
}

const OPTION_SELECTOR =
  '[role="option"]:visible, [role="listbox"] li:visible, ul.ui-autocomplete li:visible, .autocomplete__option:visible';

/**
 * The format a text date field most likely wants, so the common case needs no second submit: one
 * named in its hints ("DD/MM/YYYY"), else one an example shows ("For example, 27 3 2007"), else
 * the page language's (lang="de" → DD.MM.YYYY), else ISO; an input `pattern` vetoes candidates
 * it rejects. The validation loop (validationReader) still corrects a wrong guess.
 */
export function textDateFormat(c: ScannedControl): string {
  const hints = [c.placeholder, c.describedBy, c.title, ...c.labels, c.hintText].join(' ');
  const byLang = dateFormatForLang(c.lang);
  const order = byLang && !byLang.startsWith('Y') ? (byLang.startsWith('D') ? 'DMY' : 'MDY') : null;
  const candidates = [dateFormatFromHint(hints), dateFormatFromExample(hints, order), byLang].filter(
    (f): f is string => !!f,
  );
  if (c.pattern)
    return dateFormatFromPattern(c.pattern, [...candidates, ...DATE_FORMATS]) ?? candidates[0] ?? 'YYYY-MM-DD';
  return candidates[0] ?? 'YYYY-MM-DD';
}

/** The text a text-like control should receive for `value`. */
export function textFor(target: Target, value: unknown, options: FillOptions): string {
  const c = target.controls[0] as ScannedControl;
  const date = parseDateValue(value);
  if (target.kind === 'date' && date) return formatDate(date, 'YYYY-MM-DD');
  if (
    date &&
    (options.format === 'date' ||
      looksLikeDateField([target.label, c.placeholder, c.describedBy, c.name, c.id].join(' ')))
  ) {
    return formatDate(date, options.dateFormat ?? textDateFormat(c));
  }
  if (c.type === 'number' && typeof value === 'string') return value.replace(/[^\d.\-]/g, '');
  const text = withoutAffixes(asText(value), c.affixes);
  // A time into a 12-hour time picker ("hh:mm AM") is written the way it shows times: "15:00" → "03:00 PM".
  const time = typeof value === 'string' ? parseTimeOfDay(text) : null;
  if (time && wantsTwelveHour(timeHints(target))) return formatTwelveHour(time);
  // A masked input (SSN "___ __ ____", phone "(___) ___-____") gets the value in its shape, unless the value already fits.
  const template = c.mask || c.placeholder;
  if (template && (c.pattern ? patternAccepts(c.pattern, text) !== true : true)) {
    const fitted = fitToMask(text, template, c.pattern);
    if (fitted !== null) return fitted;
    // A digit mask takes exactly its digits: a national number from an international one ("+1 503 555 0182"
    // → 5035550182), else the value does not fit and typing it would shift or drop digits.
    const slots = digitSlots(template);
    if (slots !== null && /\d/.test(text)) {
      const digits = digitsForMask(text, slots);
      if (digits === null)
        throw new FillProblem(
          `'${text}' has ${text.replace(/\D/g, '').length} digits; '${target.label}' takes exactly ${slots} (${template})`,
        );
      return fillDigitSlots(template, digits) ?? digits;
    }
  }
  return text;
}

function timeHints(target: Target): string {
  const c = target.controls[0] as ScannedControl;
  return [c.placeholder, c.describedBy, c.title, c.hintText, c.value].join(' ');
}

/** How a text fill is read back: digits for a digit mask, a time of day for a time, else as text. */
function readBackKind(target: Target, value: unknown): ReadBackKind | null {
  const c = target.controls[0] as ScannedControl;
  if (digitSlots(c.mask || c.placeholder) !== null && /\d/.test(asText(value))) return 'digits';
  if (typeof value === 'string' && parseTimeOfDay(value) && wantsTwelveHour(timeHints(target))) return 'time';
  return null;
}

async function fillText(
  env: FillEnv,
  target: Target,
  control: ScannedControl,
  text: string,
  check: ReadBackKind | null = null,
  states?: Record<string, ControlState>,
): Promise<string> {
  const c = target.controls[0] as ScannedControl;
  const loc = locate(target, control);
  // With `states`: the control's state as left is read in the same round trip, for the submission check.
  const readAndLeaveIt = async (): Promise<string> => {
    const read = await readControl(target.frame, control.pid, 'readAndLeaveState', async () => ({
      shown: await loc.evaluate(readAndLeave),
      state: null,
    }));
    if (states) {
      if (read.state) states[control.pid] = read.state;
      else delete states[control.pid];
    }
    return read.shown;
  };
  const digits = c.type === 'tel' || /phone|mobile|tel/i.test(`${c.name} ${c.id} ${target.label}`);
  // A number is read back by what it means: "$12,500" is 12500 (a formatting input adds the sign and separators).
  const meant = digits ? null : plainNumber(text);
  const sameValue = (shown: string, intended: string, digitsOnly: boolean): boolean =>
    sameText(shown, intended, digitsOnly) || (meant !== null && numericMeaning(shown) === meant);
  // Typing into native date/time inputs depends on the locale's segment order: always fill those.
  const native = /^(date|datetime-local|month|time|week|color|range)$/.test(c.type);
  if (env.human && native) {
    await env.human.click(loc);
    await loc.fill(text, { timeout: env.budget.ms() });
  } else if (env.human) await env.human.fill(loc, text);
  else await loc.fill(text, { timeout: env.budget.ms() });
  // One round trip reads what stuck and leaves the field (blur is when many sites validate).
  let shown = await readAndLeaveIt();
  if (!sameValue(shown, text, digits)) {
    // fill() sets the value in one go; masks and pickers that only react to key events lose it.
    env.log(`${target.label}: value did not stick after fill, typing key by key`);
    await typeKeys(env, loc, text);
    shown = await readAndLeaveIt();
    if (!sameValue(shown, text, digits)) {
      // A different number is a wrong value, never a formatting: it does not stay unsaid.
      if (meant !== null && numericMeaning(shown) !== null)
        throw new AgentFailure(`'${target.label}' shows '${shown}' after typing ${text}`);
      env.log(`${target.label}: control shows a different value after typing`);
    }
  }
  // Masks and time pickers rewrite what is typed: what they show must still mean the value, or nothing is claimed.
  if (check && !readBackMatches(check, text, shown)) {
    throw new AgentFailure(
      `'${target.label}' shows '${shown}' after typing '${text}' (${check === 'digits' ? 'the digits differ' : 'a different time'}); the value was not placed`,
    );
  }
  return shown;
}

async function fillCombobox(env: FillEnv, target: Target, loc: Locator, value: unknown): Promise<FillResult> {
  // A combobox whose whole list is known (it drives a hidden select) is matched before typing: a value
  // that is none of its options is asked about with all of them, not with what a few letters suggest.
  const known = realChoices(target.choices);
  const preMatch = known.length ? findChoice(value, known) : null;
  if (preMatch && !('how' in preMatch))
    throw optionProblem(
      target,
      asText(value),
      preMatch.index,
      known.map((c) => c.label),
    );
  const text = preMatch && 'how' in preMatch ? (known[preMatch.index] as ChoiceLike).label : asText(value);
  const options = target.frame.locator(OPTION_SELECTOR);
  const listed = async (timeoutMs: number): Promise<string[]> => {
    let openSince = 0;
    // The options' texts are the look itself (one read where a count came first, then the texts).
    let texts: string[] = [];
    const there = await waitFor(
      async () => {
        texts = await options.allInnerTexts();
        if (texts.length > 0) return true;
        // An open list showing no option ("No options") answers too, after a moment for async results.
        if ((await loc.getAttribute('aria-expanded')) !== 'true') return false;
        openSince ||= Date.now();
        return Date.now() - openSince > 300;
      },
      timeoutMs,
      100,
    );
    if (!there || !texts.length) texts = await options.allInnerTexts();
    return texts.map((t) => t.replace(/\s+/g, ' ').trim());
  };
  const tryTyping = async (typed: string): Promise<string[]> => {
    await typeKeys(env, loc, typed);
    return listed(2000);
  };
  // Most comboboxes filter on the input event, which fill() sends in one go; key-by-key typing is
  // the fallback for those listening to key events only (and the only way on humanized pages).
  let seen: string[] = [];
  if (!env.human) {
    // Pasted but for its last character, which is typed as a key: a combobox that opens on key events (not on
    // the input event a paste sends) opens at once, where it was waited for 700 ms and then typed key by key.
    const chars = Array.from(text);
    await loc.fill(chars.slice(0, -1).join(''), { timeout: env.budget.ms() });
    if (chars.length) await loc.pressSequentially(chars.at(-1) as string, { timeout: env.budget.ms() });
    seen = await listed(700);
  }
  if (!seen.length) seen = await tryTyping(text);
  if (!seen.length && text.length > 3) seen = await tryTyping(text.slice(0, 3));
  if (!seen.length) {
    // Nothing suggested. A combobox that only takes its own options (react-select) still lists them
    // on ArrowDown with an empty input; then the value is none of them. Otherwise it is free text.
    await typeKeys(env, loc, '');
    await env.page.keyboard.press('ArrowDown');
    const all = await listed(500);
    if (all.length) {
      await env.page.keyboard.press('Escape');
      throw optionProblem(target, text, -1, all);
    }
    await typeKeys(env, loc, text);
    await loc.blur().catch(() => undefined);
    const typed = await loc.inputValue();
    return { shown: typed, how: typed === text ? 'exact' : 'normalised' };
  }
  /** The list once two readings 150 ms apart agree (an async list that was still loading re-renders). */
  const settledList = async (): Promise<string[]> => {
    let last = await listed(1000);
    for (let round = 0; round < 10; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const again = await listed(300);
      if (again.join('\n') === last.join('\n')) return again;
      last = again;
    }
    return last;
  };
  let match: ReturnType<typeof findChoice>;
  let label: string;
  for (let attempt = 0; ; attempt += 1) {
    match = findChoice(
      text,
      seen.map((l) => ({ label: l, value: l })),
    );
    if (!('how' in match)) {
      // The suggestions are what the typed text brought up; the question offers the whole list when it opens on ArrowDown.
      await env.page.keyboard.press('Escape');
      throw optionProblem(target, text, match.index, seen);
    }
    label = seen[match.index] as string;
    // Async and filtering lists re-render while they settle: the option clicked must still be the one
    // matched (by its accessible name), never whatever now sits at that position. A list that changed
    // is read again once it settles (twice at most), and matched again.
    const option = options.nth(match.index);
    // The list as it is now, without waiting: a row that is gone (the list re-rendered or closed) reads as
    // nothing at once, where a wait for it would last until the job's time ran out.
    const current = await options.allInnerTexts().catch(() => [] as string[]);
    const now = (current[match.index] ?? '').replace(/\s+/g, ' ').trim();
    if (now === label) {
      await click(env, option);
      break;
    }
    if (attempt >= 2) {
      await env.page.keyboard.press('Escape');
      throw new AgentFailure(
        `'${target.label}': the list changed while choosing '${label}' (that place now shows '${now}'); nothing was chosen`,
      );
    }
    env.log(`${target.label}: the list changed while choosing '${label}'; reading it again`);
    seen = await settledList();
  }
  // Most widgets put the choice in the input; react-select clears the input and shows it beside.
  let shown = '';
  const took = await waitFor(async () => {
    shown = await shownValue(loc, markOf(target));
    return loose(shown).includes(loose(label));
  }, 800);
  if (!took) throw new AgentFailure(`'${target.label}' shows '${shown}' after choosing '${label}' from its list`);
  return { shown: shown || label, how: preMatch && 'how' in preMatch ? preMatch.how : match.how };
}

/**
 * Checks or unchecks a native checkbox or radio, and waits until the control itself says so. The
 * control's state is what counts: after a click (on the input, or on its label when the input is drawn
 * by the label — React Aria, USWDS tiles), its `checked` state is polled for as long as the job's wait
 * budget allows (agent/waitBudget.ts): a loaded machine or a widget that commits its state a render later
 * is waited for, never second-guessed with another click or a forced state, which would toggle it back
 * or claim a state the widget did not take. A control that is still not as wanted when the budget ends
 * fails the job saying so. The state is read whole (injected/controlState.ts, one round trip): the one
 * that was as wanted is returned, for the submission check.
 */
async function checkControl(
  env: FillEnv,
  target: Target,
  control: ScannedControl,
  checked: boolean,
): Promise<ControlState | null> {
  const loc = locate(target, control);
  const last: { state: ControlState | null } = { state: null };
  const isAsWanted = async (): Promise<boolean> => {
    last.state = await readControl(target.frame, control.pid, 'controlState', () =>
      loc.evaluate(controlState, undefined, { timeout: 2000 }),
    ).catch(() => null);
    return last.state?.checked === checked;
  };
  const label = control.id
    ? target.frame.locator(`label[for="${control.id}"]`)
    : loc.locator('xpath=ancestor::label[1]');
  // Sent with the first state read (one round trip; neither waits): a control drawn by its label has its
  // labels counted, any other its hit test made (pointerReaches' first look, which it is given; a covered
  // control is waited for there, only once a click is needed).
  const at = markOf(target, control);
  const [asWanted, labels, hit] = await Promise.all([
    isAsWanted(),
    control.labelOnly ? label.count().catch(() => 0) : Promise.resolve(0),
    control.labelOnly || env.human ? Promise.resolve(undefined) : pointerHit(loc, at),
  ]);
  if (asWanted) return last.state;
  let clicked: string;
  if (env.human) {
    // A humanized click toggles: the state was read just above.
    await env.human.click(control.labelOnly && labels >= 1 ? label.first() : loc);
    clicked = control.labelOnly ? 'its label' : 'it';
  } else if (control.labelOnly) {
    // The input is off-screen or under its label: a person clicks the label, and so does this.
    if (!labels) throw new AgentFailure(`'${target.label}': the control is drawn by a label it does not have`);
    await click(env, label.first());
    clicked = 'its label';
  } else {
    // A styled input hidden under its label cannot take a pointer click: its label can.
    const onInput = (await pointerReaches(loc, 1000, at, hit)) === 'self';
    if (onInput || !(await label.count())) {
      await click(env, loc);
      clicked = 'it';
    } else {
      await click(env, label.first());
      clicked = 'its label';
    }
  }
  if (await waitFor(isAsWanted, env.budget.ms(), 50)) return last.state;
  throw new AgentFailure(
    `'${target.label}': ${control.type === 'radio' ? 'the option' : 'the checkbox'} stayed ${checked ? 'unchecked' : 'checked'} after clicking ${clicked} (its state did not change; no state was forced)`,
  );
}

/** The index and match of the option meaning `value`; a FillProblem offering the real options when there is none. */
function choose(target: Target, value: unknown, choices: ChoiceLike[]): { index: number; how: PlacementHow } {
  const real = realChoices(choices);
  const match = findChoice(value, real);
  if (!('how' in match))
    throw optionProblem(
      target,
      asText(value),
      match.index,
      real.map((c) => c.label),
    );
  return { index: choices.indexOf(real[match.index] as ChoiceLike), how: match.how };
}

/** The weakest of several matches (one adapted value makes the whole placement adapted). */
function weakest(hows: PlacementHow[]): PlacementHow {
  const order: PlacementHow[] = ['exact', 'normalised', 'synonym', 'answer'];
  return hows.reduce<PlacementHow>((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'exact');
}

async function fillSelectLike(
  env: FillEnv,
  loc: Locator,
  target: Target,
  control: ScannedControl,
  wanted: unknown[],
): Promise<FillResult> {
  const choices = selectChoices(control);
  const matches = wanted.map((w) => choose(target, w, choices));
  const picked = matches.map((m) => choices[m.index] as ChoiceLike);
  // force: select2/chosen-style widgets hide the native select but still listen to its change event.
  await loc.selectOption(
    picked.map((p) => ({ value: p.value })),
    { timeout: env.budget.ms(), force: true },
  );
  return { shown: picked.map((p) => p.label).join(', '), how: weakest(matches.map((m) => m.how)) };
}

async function fillDateSplit(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const parts = target.dateParts as DateSplitParts;
  const date = parseDateValue(value) ?? (parts.day ? null : parseMonthYear(value));
  if (!date)
    throw new FillProblem(
      `'${asText(value)}' is not a date (e.g. YYYY-MM-DD${parts.day ? '' : ' or YYYY-MM'}) for '${target.label}'`,
    );
  const put = async (control: ScannedControl, texts: string[]): Promise<void> => {
    const loc = locate(target, control);
    if (control.aria) {
      // A custom dropdown: the first spelling its options have (a month by name or number).
      const part: Target = {
        ...target,
        kind: 'listbox',
        controls: [control],
        id: control.pid,
        label: `${target.label} (${control.labelledBy || control.ariaLabel || 'part'})`,
        choices: [],
      };
      for (const [i, text] of texts.entries()) {
        try {
          await fillListbox(env, part, text);
          return;
        } catch (error) {
          if (!(error instanceof FillProblem) || i === texts.length - 1) throw error;
        }
      }
      return;
    }
    if (control.tag === 'select') {
      const choices = control.options.filter((o) => !o.disabled);
      const index = texts.map((t) => matchChoice(t, choices)).find((i) => i >= 0);
      if (index === undefined)
        throw new FillProblem(`no option for '${texts[0]}' in the ${control.name || 'date'} list of '${target.label}'`);
      await loc.selectOption({ value: (choices[index] as ChoiceLike).value }, { force: true });
    } else {
      await fillText(env, target, control, texts[0] as string);
    }
  };
  const { day, month, year } = parts;
  const monthValues = monthChoiceValues(date.month);
  if (month.tag !== 'select' && (month.maxLength === 2 || /mm/i.test(month.placeholder)))
    monthValues.unshift(monthValues[1] as string);
  if (day && 'day' in date)
    await put(day, [
      day.maxLength === 2 || /dd/i.test(day.placeholder) ? String(date.day).padStart(2, '0') : String(date.day),
    ]);
  await put(month, monthValues);
  await put(year, [year.maxLength === 2 ? String(date.year % 100).padStart(2, '0') : String(date.year)]);
  const yearMonth = `${date.year}-${String(date.month).padStart(2, '0')}`;
  // A full date into month and year boxes drops only the day the form does not ask for.
  return {
    shown: day && 'day' in date ? `${yearMonth}-${String(date.day).padStart(2, '0')}` : yearMonth,
    how: 'normalised',
  };
}

/**
 * Between two key presses: after two animation frames in which the slider's value did not change (the
 * app's effect and the value it hands back have run), nothing more; the value reached must then hold
 * for SLIDER_FINAL_FRAMES, and is planned again from if it moved.
 */
const SLIDER_KEY_FRAMES = 2;
/**
 * After the last key: the value must hold for this many animation frames (counted again from each change)
 * before it is taken as what the app keeps. A controlled slider whose app follows it one render late
 * moves back within a frame or two; frames are the page's own pace (a loaded machine draws them later),
 * where a fixed 250 ms hold was here before.
 */
const SLIDER_FINAL_FRAMES = 6;
/** How long a slider may keep changing by itself before the filler stops waiting for it. */
const SLIDER_SETTLE_MAX_MS = 3000;

/**
 * Moves a slider to the value by keys, the way a keyboard user does (docs/autofill.md, Sliders): plan
 * the presses from the value it reports; with the step of an `<input type=range>` known, the first plan's keys are pressed back to
 * back and the page let settle once, after the last; any later plan presses one key at a time and lets
 * the page settle after each (an app whose state follows the slider one render late loses keys pressed
 * faster than that, and a controlled slider may then swing between two values), read aria-valuenow (or the range input's
 * value) once it holds, and plan again from there, until it reports the value and keeps it. A value
 * outside its range or between two of its steps is a FillProblem (asked or failed), never the nearest
 * value; a slider that will not hold still fails the job.
 */
async function fillSlider(target: Target, loc: Locator, value: unknown): Promise<FillResult> {
  const c = target.controls[0] as ScannedControl;
  const facts = { ...(c.slider as NonNullable<ScannedControl['slider']>) };
  const wanted = sliderGoal(value, facts);
  if ('problem' in wanted) throw new FillProblem(`${wanted.problem} for '${target.label}'`);
  const settled = async (frames: number, focus = false): Promise<number> => {
    // Animation frames with no change (the app's own handlers and re-renders have run). Found by its mark in
    // the same page call (one round trip), focused first in it when asked, else through the locator (it waits
    // for the element, refuses several).
    const args = { aria: c.aria, frames, maxMs: SLIDER_SETTLE_MAX_MS };
    let s = await answerWithin(
      target.frame,
      target.frame.evaluate(sliderSettledAt, { ...args, pid: c.pid, focus }),
    ).catch(() => null);
    if (!s) {
      if (focus) await loc.focus();
      s = await loc.evaluate(sliderSettled, args);
    }
    if (!s.stable)
      throw new AgentFailure(
        `'${target.label}' kept changing by itself (${s.seen.slice(-6).join(', ')}) after moving it towards ${wanted.goal}; it was left, not claimed`,
      );
    return s.now;
  };
  // Focus, not click: a click moves a slider to wherever it lands. Each `press` focuses the slider first (what
  // `locator.focus` does), so no call of its own focuses it: with the step to learn, the start read focuses it in
  // its own page call and is read after two frames from there (the step is one press's move from here, so here
  // must be what the slider holds once focused); with a known step, the value the scan read (the plan is made
  // again from every reading after a key, and a value reached must hold SLIDER_FINAL_FRAMES, so a start that
  // moved since — on focus, say — costs keys, never a claim).
  const known = facts.step > 0 && Number.isFinite(facts.now);
  let now = known ? facts.now : await settled(SLIDER_KEY_FRAMES, true);
  /** How many still frames the value had held when `now` was read (none: not read since the scan). */
  let heldFrames = known ? 0 : SLIDER_KEY_FRAMES;
  /** Whether `now` was read from the slider (not the scan's): keys that leave it there do not move it. */
  let nowRead = !known;
  let arrowsOnly = false;
  let held = false;
  /**
   * Whether a known-step plan's keys for an `<input type=range>` are pressed back to back and settled once (the
   * first such round), not one at a time with a settle after each. A slider whose app loses keys pressed that
   * fast ends the round elsewhere (or where it started): every later round presses one key at a time. Either
   * way the value reached must hold SLIDER_FINAL_FRAMES before it is claimed. Not a `role=slider`: Carbon's
   * (carbon-gym-membership) keeps its own value and the app's in step by effects, and keys pressed back to back
   * set the two chasing each other (4, 3, 4, 3…) for good: the job failed.
   */
  let together = true;
  for (let round = 0; round < 8; round += 1) {
    if (sameSliderValue(now, wanted.goal)) {
      // Reached: it must hold the value once the app has caught up, else plan again from where it went.
      if (heldFrames < SLIDER_FINAL_FRAMES) {
        now = await settled(SLIDER_FINAL_FRAMES);
        heldFrames = SLIDER_FINAL_FRAMES;
      }
      held = sameSliderValue(now, wanted.goal);
      if (held) break;
      continue;
    }
    const { keys } = planSliderKeys(now, wanted.goal, facts, arrowsOnly);
    if (keys.length > 500)
      throw new FillProblem(`'${target.label}' would need ${keys.length} key presses to reach ${wanted.goal}`);
    let after = now;
    const batch = together && !c.aria && facts.step > 0 && keys.length > 1;
    if (batch) together = false;
    for (const [i, key] of keys.entries()) {
      await loc.press(key);
      if (batch && i < keys.length - 1) continue;
      // After the last key of a whole plan (the step known), the wait is the final one: the value read must hold that long.
      heldFrames = i === keys.length - 1 && facts.step > 0 ? SLIDER_FINAL_FRAMES : SLIDER_KEY_FRAMES;
      after = await settled(heldFrames);
    }
    // Keys pressed together that left the slider short of the goal: the next round presses one at a time.
    if (batch && !sameSliderValue(after, wanted.goal)) {
      now = after;
      nowRead = true;
      continue;
    }
    if (facts.step <= 0 && !sameSliderValue(after, now)) {
      // The step learnt from one press: a value between two steps is not one the slider can show.
      facts.step = Math.abs(after - now);
      const again = sliderGoal(value, facts);
      if ('problem' in again) throw new FillProblem(`${again.problem} for '${target.label}'`);
    }
    // A slider that ignores Home/End is moved by arrows from where it is.
    if (keys.some((k) => k === 'Home' || k === 'End') && !sameSliderValue(after, wanted.goal)) arrowsOnly = true;
    else if (nowRead && sameSliderValue(after, now)) break;
    now = after;
    nowRead = true;
  }
  if (!held) throw new AgentFailure(`'${target.label}' reports ${now} after moving it towards ${wanted.goal}`);
  return { shown: String(now), how: typeof value === 'number' ? 'exact' : 'normalised' };
}

/** What each segment of a sectioned field shows now. */
async function readSegmentsNow(target: Target, field: SegmentedField): Promise<SegmentReading[]> {
  // The segments' reads are sent together, each one page call (readControl), not one round trip after another.
  const reads = await Promise.all(
    field.list.map((s) =>
      readControl(target.frame, s.pid, 'segmentReading', () =>
        target.frame.locator(`[data-portico-id="${s.pid}"]`).evaluate(segmentReading),
      ),
    ),
  );
  return field.list.map((s, i) => {
    const read = reads[i] as (typeof reads)[number];
    return {
      kind: s.kind,
      part: s.part,
      text: read.text,
      now: read.now !== null && Number.isFinite(read.now) ? read.now : null,
      valueText: read.valueText,
    };
  });
}

/**
 * A sectioned date/time field (docs/autofill.md, Sectioned date and time fields): each segment is
 * focused and typed the way a person types it (its digits, A or P for AM/PM), then every segment is
 * read back and the whole field must show the value meant; a segment that did not take is typed
 * once more, then the job fails naming what the field shows. A value the field cannot hold (a time
 * for a date, a month 13) is a FillProblem: asked or failed, nothing typed.
 */
const PERIOD = { AM: /^a\.?\s?m\.?$/i, PM: /^p\.?\s?m\.?$/i };

/**
 * Chooses AM or PM in a time field's AM/PM dropdown (docs/autofill.md, "Hours and minutes as number
 * boxes"): a native select by its option, a custom dropdown by opening it and clicking the option
 * named so. A dropdown offering no such option is a problem (asked or failed), never the other one.
 */
async function choosePeriod(
  env: FillEnv,
  target: Target,
  pid: string,
  kind: 'select' | 'listbox',
  period: 'AM' | 'PM',
): Promise<void> {
  const loc = target.frame.locator(`[data-portico-id="${pid}"]`);
  if (kind === 'select') {
    const texts = (await loc.locator('option').allInnerTexts()).map((t) => t.trim());
    const index = texts.findIndex((t) => PERIOD[period].test(t));
    if (index < 0) throw new FillProblem(`the AM/PM part of '${target.label}' offers no ${period}`, texts);
    await loc.selectOption({ index }, { timeout: env.budget.ms() });
    return;
  }
  await click(env, loc);
  const options = target.frame.locator('[role=option]:visible');
  if (!(await waitFor(async () => (await options.count()) > 0, 3000)))
    throw new FillProblem(`the AM/PM part of '${target.label}' opened no list of options`);
  const texts = (await options.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  const index = texts.findIndex((t) => PERIOD[period].test(t));
  if (index < 0) {
    await env.page.keyboard.press('Escape');
    throw new FillProblem(`the AM/PM part of '${target.label}' offers no ${period}`, texts);
  }
  await click(env, options.nth(index));
}

async function fillSegments(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const field = (target.controls[0] as ScannedControl).segments as SegmentedField;
  const wanted = segmentGoal(field, value);
  if ('problem' in wanted) throw new FillProblem(`${wanted.problem} for '${target.label}'`);
  const plan = segmentKeys(field, wanted.goal);
  if ('problem' in plan) throw new FillProblem(`${plan.problem} for '${target.label}'`);
  /**
   * Types each part. `quick` (the first try): a number box is focused by the select-all key's own press (no
   * pointer click: Playwright's click waits two frames for the box to hold still, ~35 ms a box) and its digits
   * go in without a pause in a key, as a script fills it; the other parts as below. A box that then reads
   * otherwise (one that takes keys only after a pointer press, or loses keys sent that fast) is typed again on
   * the retry, clicked and with the pause, as every part was before.
   */
  const type = async (steps: SegmentKeys[], quick = false): Promise<void> => {
    for (const step of steps) {
      const segment = field.list.find((s) => s.pid === step.pid);
      if (segment?.choice) {
        await choosePeriod(env, target, step.pid, segment.choice, step.keys === 'A' ? 'AM' : 'PM');
        continue;
      }
      const part = target.frame.locator(`[data-portico-id="${step.pid}"]`);
      if (quick && segment?.input && !env.human) {
        await part.press('ControlOrMeta+A', { timeout: env.budget.ms() });
        await env.page.keyboard.type(step.keys);
        continue;
      }
      await click(env, part);
      // A number box holds its value as text: selected first, so the keys replace it.
      if (segment?.input) await env.page.keyboard.press('ControlOrMeta+A');
      if (env.human) await env.human.type(step.keys);
      else await env.page.keyboard.type(step.keys, { delay: 15 });
    }
  };
  // Segments that move the focus on by themselves once complete (the ARIA spinbutton segments of a date
  // field: React Aria's) take all the keys typed into the first, as a person types a date; the reading
  // says whether they did. Number boxes and AM/PM dropdowns are typed segment by segment (number boxes
  // focused by a key, not clicked: `type`'s quick try). The first try types the keys without a pause in each
  // (as a script does: each key is dispatched once the page has handled the one before; the 15 ms pause was
  // ~120 ms a date); a field that shows something else is typed again segment by segment, clicked and with
  // the pause, below.
  const whole = field.list.length > 1 && field.list.every((s) => !s.input && !s.choice);
  if (whole) {
    await click(env, target.frame.locator(`[data-portico-id="${plan.keys[0]?.pid}"]`));
    const keys = plan.keys.map((k) => k.keys).join('');
    if (env.human) await env.human.type(keys);
    else await env.page.keyboard.type(keys);
  } else await type(plan.keys, true);
  let readings = await readSegmentsNow(target, field);
  let shown = readSegments(field, readings);
  // A quick first try (parts typed at once, or number boxes focused by a key with no pause) is followed by up to
  // two tries part by part, clicked and with the pause; otherwise one more such try.
  const quick = whole || (!env.human && field.list.some((s) => s.input));
  for (let again = quick ? 2 : 1; again > 0 && !sameSegmentValue(field, shown, wanted.goal); again -= 1) {
    // Typed (once more) segment by segment: segments that keep the focus, or a field that re-rendered under the first keys.
    await type(plan.keys);
    readings = await readSegmentsNow(target, field);
    shown = readSegments(field, readings);
  }
  const text = segmentText(field, wanted.goal);
  if (!sameSegmentValue(field, shown, wanted.goal)) {
    const showing = readings.map((r) => r.text).join(' ');
    throw new AgentFailure(
      `'${target.label}' shows '${showing}' after typing ${text} into its parts; the value was not placed`,
    );
  }
  await target.frame
    .locator(`[data-portico-id="${plan.keys.at(-1)?.pid}"]`)
    .blur()
    .catch(() => undefined);
  return { shown: text, how: text === asText(value) ? 'exact' : 'normalised' };
}

/**
 * A row of one-character boxes taking one code (docs/autofill.md, "One character per box"): the
 * code's characters (spaces and hyphens between groups dropped) must be exactly one per box, else it
 * is a problem (asked or failed, nothing typed). The code is typed into the first box, as a person
 * types into boxes that move the focus on their own (with no pause in a key); when the boxes do not hold it in order, each box
 * is given its character. Every box is read back (the reads sent together) and the row must hold the code, in order.
 */
async function fillBoxes(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const pids = (target.controls[0] as ScannedControl).boxes ?? [];
  const code = asText(value).replace(/[\s-]+/g, '');
  if ([...code].length !== pids.length) {
    throw new FillProblem(
      `'${asText(value)}' has ${[...code].length} characters; '${target.label}' takes exactly ${pids.length}, one per box`,
    );
  }
  const box = (pid: string): Locator => target.frame.locator(`[data-portico-id="${pid}"]`);
  const chars = [...code];
  // Each box must hold its own character: a first box holding the whole code is not the code in the boxes.
  const read = async (): Promise<{ shown: string; holds: boolean }> => {
    const states = await readControls(target, pids);
    const values = pids.map((pid) => states[pid]?.value ?? '');
    return { shown: values.join(''), holds: values.every((v, i) => v === chars[i]) };
  };
  // The first box is focused by its select-all key's own press, not clicked (Playwright's click waits two frames
  // for the box to hold still, ~35 ms): a row taking keys only after a pointer press shows nothing, and is typed
  // box by box below, each box clicked.
  if (env.human) {
    await click(env, box(pids[0] as string));
    await env.page.keyboard.press('ControlOrMeta+A');
  } else await box(pids[0] as string).press('ControlOrMeta+A', { timeout: env.budget.ms() });
  // No pause in a key (as a hand script types; each key is dispatched once the page handled the one before): a row
  // whose focus moves on later than that shows other characters in its boxes, and is typed box by box below.
  if (env.human) await env.human.type(code);
  else await env.page.keyboard.type(code);
  let { shown, holds } = await read();
  if (!holds) {
    // Boxes that keep the focus: each box is clicked and given its own character.
    env.log(
      `${target.label}: the boxes show '${target.controls.some((c) => c.type === 'password') ? '…' : shown}' after typing the code into the first box; typing box by box`,
    );
    for (const [i, ch] of chars.entries()) {
      await click(env, box(pids[i] as string));
      await env.page.keyboard.press('ControlOrMeta+A');
      if (env.human) await env.human.type(ch);
      else await env.page.keyboard.type(ch);
    }
    ({ shown, holds } = await read());
  }
  if (!holds)
    throw new AgentFailure(
      `'${target.label}' shows '${shown}' in its boxes after typing the ${pids.length}-character code; the value was not placed`,
    );
  await box(pids.at(-1) as string)
    .blur()
    .catch(() => undefined);
  return { shown, how: shown === asText(value) ? 'exact' : 'normalised' };
}

/**
 * A tag (chip) input (docs/autofill.md, Tag and chip inputs): each value of the list is typed into the
 * box and turned into a chip with Enter (a comma when Enter made none), the way a person adds tags,
 * while a guard keeps that Enter from submitting the form (enterGuard.ts): the submission check is not
 * armed while filling, so no request may leave then. The chips are read back and must be exactly the
 * values, in order; a box that makes no chip, or chips that differ, fail the job (the typed text is
 * cleared, never left to go as one joined value).
 */
async function fillTags(env: FillEnv, target: Target, loc: Locator, value: unknown, bare = false): Promise<FillResult> {
  const wanted = (Array.isArray(value) ? value : [value]).map((v) => asText(v).trim()).filter(Boolean);
  if (!wanted.length) throw new FillProblem(`no tag to add to '${target.label}'`);
  const { frame, pid } = markOf(target);
  const chips = async (): Promise<string[]> =>
    readControl(frame, pid, 'tagChips', () => loc.evaluate(tagChips)).catch(() => []);
  const guard = (mode: 'on' | 'off'): Promise<number> =>
    readControl(frame, pid, 'enterGuard', () => loc.evaluate(enterGuard, mode), { guard: mode });
  const same = (a: string, b: string): boolean => sameText(a, b, false);
  const before = await chips();
  const stray = before.filter((c) => !wanted.some((w) => same(w, c)));
  if (stray.length)
    throw new AgentFailure(
      `'${target.label}' already shows the tag(s) ${stray.map((c) => `'${c}'`).join(', ')}, which form_data does not give; nothing was added`,
    );
  await guard('on');
  let stopped = 0;
  // Once a comma made a tag here (Enter made none), the next values go in with a comma at once: Enter is
  // not tried again on every value (each try waited a second for a chip that never came).
  let byComma = false;
  /** The chips as read when the last tag was seen made (nothing touched the page since); null: read them again. */
  let seen: string[] | null = before;
  /** Whether the box held the focus when the last tag was seen made (read with its chips); then it is not clicked again. */
  let focusKept = false;
  /** Whether the next value is the box's first, given without a click (`fill` focuses the box itself). */
  let unclicked = !env.human;
  try {
    for (const tag of wanted) {
      const current = seen ?? (await chips());
      seen = null;
      if (current.some((c) => same(tag, c))) continue;
      const count = current.length;
      // A tag is made when a chip was added and the box emptied: both read in one page call, with the box's focus.
      const made = async (): Promise<boolean> =>
        waitFor(async () => {
          const {
            chips: now,
            text,
            focused,
          } = await readControl(frame, pid, 'tagBox', async () => {
            const [shown, typed, focus] = await Promise.all([
              chips(),
              loc.inputValue(),
              loc.evaluate(hasFocus).catch(() => false),
            ]);
            return { chips: shown, text: typed, focused: focus };
          });
          if (now.length <= count || text !== '') return false;
          seen = now;
          focusKept = focused;
          return true;
        }, 1000);
      const kept = focusKept;
      focusKept = false;
      if (byComma) {
        await typeKeys(env, loc, `${tag},`);
        if (await made()) continue;
        // No tag on a comma this time: the way below (Enter, then a comma) decides, as for the first value.
        await typeKeys(env, loc, '');
      }
      // The first value is typed without a click: `fill` focuses the box itself, and a click is a pointer round
      // trip and two frames of Playwright's actionability wait (~40 ms) that change nothing in a box taking keys
      // when focused. A box that kept the focus after the last tag was made is typed into at once too; one that
      // dropped it is clicked, as a person does. A box that made no tag of its unclicked first value on Enter or
      // a comma (the comma's try clicks it) is given the value again and Enter, before anything is concluded.
      const quick = unclicked;
      unclicked = false;
      if ((!kept && !quick) || env.human) await click(env, loc);
      if (env.human) await env.human.fill(loc, tag);
      else await loc.fill(tag, { timeout: env.budget.ms() });
      await loc.press('Enter');
      if (!(await made())) {
        // Some tag inputs add on a comma rather than Enter.
        await typeKeys(env, loc, `${tag},`);
        byComma = true;
        if (!(await made())) {
          await typeKeys(env, loc, '');
          if (quick) {
            // Clicked by the comma's try (typeKeys): Enter once more, as the first value always was given.
            await loc.fill(tag, { timeout: env.budget.ms() });
            await loc.press('Enter');
            if (await made()) {
              byComma = false;
              continue;
            }
            await typeKeys(env, loc, '');
          }
          // A bare box that made no tag of the first value is a text box, not a tag input: a list is not
          // one text, so what it should hold is asked (or the job fails), never the list joined.
          if (bare && !(await chips()).length)
            throw new FillProblem(
              `'${target.label}' made no tag of '${tag}' on Enter or a comma, so it takes one text, not the list ${wanted.map((w) => `'${w}'`).join(', ')}`,
            );
          throw new AgentFailure(
            `'${target.label}' made no tag of '${tag}' on Enter or a comma; it does not take the list as tags, nothing was placed`,
          );
        }
      }
    }
  } finally {
    stopped = await guard('off').catch(() => 0);
  }
  if (stopped) env.log(`${target.label}: Enter would have submitted the form (${stopped}×); stopped`);
  const shown = await chips();
  const exact = shown.length === wanted.length && shown.every((c, i) => same(wanted[i] as string, c));
  if (!exact)
    throw new AgentFailure(
      `'${target.label}' shows the tags ${shown.map((c) => `'${c}'`).join(', ') || '(none)'} after adding ${wanted.map((w) => `'${w}'`).join(', ')}; the value was not placed`,
    );
  await loc.blur().catch(() => undefined);
  if (bare) env.log(`${target.label}: a tag input (each value made a tag on Enter or a comma)`);
  return {
    shown: shown.join(', '),
    how: shown.every((c, i) => c === wanted[i]) ? 'exact' : 'normalised',
    options: shown.map((c) => ({ label: c, value: c })),
    sent: shown,
    ...(bare ? { tags: true } : {}),
  };
}

/**
 * A 12-hour time box with its AM/PM select beside it (docs/autofill.md, Time pickers): "13:30" is typed
 * as "01:30" (or "1:30" when the box's pattern takes only that) and PM is chosen in the select; then
 * both are read back and must mean the same time, else the job fails naming what they show. A value
 * that is no time of day is a FillProblem (asked or failed, nothing typed).
 */
async function fillTwelveHourPair(
  env: FillEnv,
  target: Target,
  loc: Locator,
  meridiem: ScannedControl,
  value: unknown,
): Promise<FillResult> {
  const time = typeof value === 'string' ? parseTimeOfDay(value) : null;
  if (!time) throw new FillProblem(`'${asText(value)}' is not a time of day for '${target.label}'`);
  const { clock, period } = twelveHourParts(time, target.controls[0]?.pattern ?? '');
  const periodChoice = choose(target, period, selectChoices(meridiem));
  const typed = await fillText(env, target, target.controls[0] as ScannedControl, clock);
  const select = locate(target, meridiem);
  await select.selectOption(
    { value: (selectChoices(meridiem)[periodChoice.index] as ChoiceLike).value },
    { force: true, timeout: env.budget.ms() },
  );
  const chosen = await readControl(target.frame, meridiem.pid, 'selectedLabel', () => select.evaluate(selectedLabel));
  const shown = `${await loc.inputValue().catch(() => typed)} ${chosen}`.trim();
  if (!readBackMatches('time', formatTwelveHour(time), shown))
    throw new AgentFailure(
      `'${target.label}' shows '${shown}' after typing ${clock} and choosing ${period}; the value was not placed`,
    );
  return { shown, how: 'normalised' };
}

/**
 * A time split for a 12-hour box and its AM/PM select: the hour padded ("01:30") as an "hh:mm"
 * placeholder shows it, unless the box's `pattern` takes only the unpadded form ("1:30").
 */
export function twelveHourParts(time: TimeOfDay, pattern: string): { clock: string; period: 'AM' | 'PM' } {
  const [clock, period] = formatTwelveHour(time).split(' ') as [string, 'AM' | 'PM'];
  const bare = clock.replace(/^0/, '');
  return {
    clock: pattern && patternAccepts(pattern, clock) === false && patternAccepts(pattern, bare) === true ? bare : clock,
    period,
  };
}

/**
 * A text date field that opened a calendar popup (flatpickr, a date range input) leaves it open over
 * the next fields and the form's buttons: Escape closes it, and the field must still show the date.
 */
async function closeCalendar(env: FillEnv, loc: Locator, shown: string): Promise<void> {
  const point = await loc.evaluate(calendarOpen).catch(() => null);
  if (!point) return;
  // A click on nothing in particular, as a person does (flatpickr and popovers close on an outside click).
  if (point[0] >= 0) await env.page.mouse.click(point[0], point[1]);
  else await env.page.keyboard.press('Escape');
  // What the page does on that close comes in the frames after it (flatpickr's range plugin gives the focus back
  // to its second input, which opens its calendar again): the field is read once two were drawn, else the focus
  // came back after it was looked at and the next field's click met the calendar (carbon-leave-request's list).
  // Then what it shows and whether it holds the focus are read together (two reads of the page as those frames left it).
  await loc.evaluate(twoFrames).catch(() => undefined);
  const [after, focused] = await Promise.all([
    loc.inputValue().catch(() => shown),
    loc.evaluate(hasFocus).catch(() => false),
  ]);
  if (after !== shown)
    throw new AgentFailure(`the date field shows '${after}' after closing its calendar (it showed '${shown}')`);
  // A field that takes the focus back whenever it is left (flatpickr's range plugin refocuses its second
  // input on every change, and a blur is a change) would pull the focus away from whatever is filled
  // next: it is left backwards, as a keyboard user does (Shift+Tab), and the calendar that opens on the
  // field before it closed the same way. Both fields must still show what they showed.
  if (!focused) return;
  await env.page.keyboard.press('Shift+Tab');
  // The field the focus went to, marked and read without waiting (it may be no input at all).
  const before = await loc.evaluate(markFocused).catch(() => null);
  const again = await loc.evaluate(calendarOpen).catch(() => null);
  if (again && again[0] >= 0) await env.page.mouse.click(again[0], again[1]);
  else if (again) await env.page.keyboard.press('Escape');
  if (again) await loc.evaluate(twoFrames).catch(() => undefined);
  const now = await loc.inputValue({ timeout: 2000 }).catch(() => shown);
  if (now !== shown) throw new AgentFailure(`the date field shows '${now}' after leaving it (it showed '${shown}')`);
  const previousNow = await loc.evaluate(takeMarked).catch(() => null);
  if (before !== null && previousNow !== null && previousNow !== before)
    throw new AgentFailure(
      `the field before '${shown}' shows '${previousNow}' after the date field was left (it showed '${before}')`,
    );
}

/** How a text went in: exactly as given, or adapted (a date formatted, a number stripped of its unit, a mask). */
function textHow(value: unknown, shown: string): PlacementHow {
  return shown === asText(value) ? 'exact' : 'normalised';
}

/** Puts `value` into `target` the way the control needs it; returns what the control now shows and how the value was adapted. */
export async function fillTarget(
  env: FillEnv,
  target: Target,
  value: unknown,
  options: FillOptions = {},
): Promise<FillResult> {
  const first = target.controls[0] as ScannedControl;
  const loc = locate(target);
  // Playwright's own actions scroll as needed; the humanized mouse path needs the box on screen first.
  if (env.human) await loc.scrollIntoViewIfNeeded({ timeout: 3000 }).catch(() => undefined);
  switch (target.kind) {
    case 'text':
    case 'textarea':
    case 'date': {
      if (target.meridiem) return fillTwelveHourPair(env, target, loc, target.meridiem, value);
      // A list into a bare one-line box: a tag input showing no chip or hint yet, or no place for a list.
      if (Array.isArray(value) && mayTakeTags(target)) return fillTags(env, target, loc, value, true);
      if (first.datalist && target.choices.length) {
        // A datalist only suggests: a value naming one suggestion types that suggestion's value, anything else goes in as given.
        const match = findChoice(value, target.choices);
        if ('how' in match)
          return {
            shown: await fillText(env, target, first, (target.choices[match.index] as ChoiceLike).value),
            how: match.how,
          };
        env.log(
          `${target.label}: the value ${match.index === -2 ? 'matches several' : 'is none'} of its suggestions; typing it as given`,
        );
      }
      const text = textFor(target, value, options);
      const states: Record<string, ControlState> = {};
      const shown = await fillText(env, target, first, text, readBackKind(target, value), states);
      if (target.kind !== 'date' && parseDateValue(value) && text !== asText(value)) {
        await closeCalendar(env, loc, shown);
        return { shown, how: textHow(value, shown) };
      }
      return { shown, how: textHow(value, shown), states };
    }
    case 'editable': {
      const shown = await fillEditable(env, target, textFor(target, value, options));
      return { shown, how: textHow(value, shown) };
    }
    case 'combobox': {
      // A date or time into a combobox with no options of its own (a date or time picker's text box,
      // opening a dialog): typed as text the way the field shows dates and times, read back, popup closed.
      if (!target.choices.length && typeof value === 'string' && (parseDateValue(value) || parseTimeOfDay(value))) {
        const text = textFor(target, value, {
          ...options,
          format: options.format ?? (parseDateValue(value) ? 'date' : undefined),
        });
        const shown = await fillText(env, target, first, text, readBackKind(target, value));
        if (!sameText(shown, text, false))
          throw new AgentFailure(`'${target.label}' shows '${shown}' after typing '${text}'; the value was not placed`);
        await loc.focus().catch(() => undefined);
        await env.page.keyboard.press('Escape');
        await loc.blur().catch(() => undefined);
        return { shown, how: textHow(value, shown) };
      }
      // A list value into a combobox: several choices of its list (a multiselect combobox), never typed as one text.
      if (Array.isArray(value)) return fillMultiListbox(env, target, value);
      return fillCombobox(env, target, loc, value);
    }
    case 'listbox':
      return Array.isArray(value) ? fillMultiListbox(env, target, value) : fillListbox(env, target, value);
    case 'select':
      return fillSelectLike(env, loc, target, first, Array.isArray(value) && first.multiple ? value : [value]);
    case 'radio': {
      const { index, how } = choose(target, value, target.choices);
      const choice = target.choices[index] as ChoiceLike & { pid: string };
      const control = target.controls.find((c) => c.pid === choice.pid) as ScannedControl;
      if (control.aria) {
        await setAriaChecked(env, target, control, true, `'${choice.label}'`);
        return { shown: choice.label, how };
      }
      // The chosen radio's state as it was read checked; the group's other radios are read afresh.
      const state = await checkControl(env, target, control, true);
      return { shown: choice.label, how, ...(state && { states: { [control.pid]: state } }) };
    }
    case 'checkbox': {
      const on = asBoolean(value);
      if (on === null)
        throw new FillProblem(
          `'${asText(value)}' is not yes or no, which is what the checkbox '${target.label}' takes`,
          ['yes', 'no'],
        );
      const how = typeof value === 'boolean' ? 'exact' : 'normalised';
      if (first.aria) {
        await setAriaChecked(env, target, first, on, 'it');
        return { shown: on ? 'checked' : 'unchecked', how };
      }
      const state = await checkControl(env, target, first, on);
      return { shown: on ? 'checked' : 'unchecked', how, ...(state && { states: { [first.pid]: state } }) };
    }
    case 'checkboxGroup': {
      const values = Array.isArray(value)
        ? value
        : typeof value === 'string'
          ? value.split(/\s*[,;]\s*/).filter(Boolean)
          : [value];
      const matches = values.map((v) => choose(target, v, target.choices));
      const picked = new Set(matches.map((m) => target.choices[m.index]?.pid));
      for (const control of target.controls) {
        if (control.aria)
          await setAriaChecked(
            env,
            target,
            control,
            picked.has(control.pid),
            `'${target.choices.find((c) => c.pid === control.pid)?.label}'`,
          );
        else await checkControl(env, target, control, picked.has(control.pid));
      }
      return {
        shown: target.choices
          .filter((c) => picked.has(c.pid))
          .map((c) => c.label)
          .join(', '),
        how: weakest(matches.map((m) => m.how)),
      };
    }
    case 'dateSplit':
      return fillDateSplit(env, target, value);
    case 'slider':
      return fillSlider(target, loc, value);
    case 'segments':
      return fillSegments(env, target, value);
    case 'calendar':
      return fillCalendar(env, target, value);
    case 'boxes':
      return fillBoxes(env, target, value);
    case 'tags':
      return fillTags(env, target, loc, value);
    case 'dateRange': {
      const range = dateRangeValue(value);
      const format = target.rangeFormat;
      if (!range || !format)
        throw new FillProblem(
          `'${asText(value)}' is not a date range ({start, end}, start first) for '${target.label}'`,
        );
      const text = formatDateRange(range, format);
      const shown = await fillText(env, target, first, text);
      if (!showsDateRange(shown, range, format))
        throw new AgentFailure(`'${target.label}' shows '${shown}' after typing '${text}'`);
      return { shown, how: 'normalised' };
    }
    case 'file': {
      const files = filePayloads(value);
      if (!files.length)
        throw new FillProblem(
          `the value for '${target.label}' is not a file (a data URL or {name, mime_type, content_base64})`,
        );
      await loc.setInputFiles(first.multiple ? files : files.slice(0, 1));
      return { shown: files.map((f) => f.name).join(', '), how: 'exact' };
    }
  }
}
