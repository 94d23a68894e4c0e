// The filler's decisions as pure functions of a page scan and the run's state (issue 20 item 5):
// `plan` says which key goes to which control (and which keys need a question first), `next` says what
// to do once the page is filled (finish, or click which button after which last checks, or give up).
// wizard.ts applies them: it is the only part that touches the page or asks. Unit tests run these on
// recorded page scans (test/fixtures/scans/) without a browser.
import type { Frame } from 'playwright-core';

import { isFileObject, loggable, type Entry } from './entries.ts';
import { dateReadings } from './dates.ts';
import { arrayRows, matchScoped } from './fieldArrays.ts';
import {
  compatibility,
  eliminationFits,
  MATCH_THRESHOLD,
  scoreMatch,
  type Ambiguity,
  type Placement,
} from './fieldMatcher.ts';
import {
  entryAtControl,
  isDeclined,
  isPlaced,
  keyState,
  placedValues,
  takenControls,
  visitsOf,
  type FillState,
  type MatchedBy,
} from './fillState.ts';
import type { KeyMapRequest } from './keyMapper.ts';
import { chooseButton, looksConfirmed, looksLikeReview, type ChosenButton } from './navigation.ts';
import type { FrameScan } from './frameScan.ts';
import { quote } from './questions.ts';
import { dateRangeValue } from './rangeAndNumber.ts';
import { buildTargets, describeTarget, type Target } from './targets.ts';
import { nextCorrection, readErrors, type Correction, type PageError } from './validationReader.ts';
import { sameMeaning } from './sameMeaning.ts';
import type { Mismatch } from './submissionCheck.ts';
import { textSimilarity } from './textNorm.ts';
import { asText, phoneVariants, realChoices } from './valueAdapter.ts';
import type { ScannedButton } from '../injected/scanTypes.ts';

/** Every frame of a page a script can reach, with its scan. */
export type ScannedFrames = Array<{ frame: Frame; scan: FrameScan }>;

/** The last option of every "which field" question. */
export const NONE_OF_THESE = 'None of these';

/** A date-range pair: `period` = {start, end} standing for the two leaf keys `period.start` and `period.end`. */
export interface RangeEntry {
  entry: Entry;
  leaves: string[];
}

/** What a run decides with besides the state: its entries (leaves, and date-range pairs). */
export interface RunEntries {
  entries: Entry[];
  /**
   * Date ranges given as two keys under one parent (`period.start`, `period.end`): one more entry
   * `period` = {start, end}, which only a one-input date range control takes (rangeAndNumber.ts).
   * Placing it places both keys; placing the two keys (two date inputs) leaves it unused.
   */
  ranges: RangeEntry[];
}

/** The name a control is known by across scans (its form name, else its id, else its label). */
export function controlKey(target: Target): string {
  const c = target.controls[0];
  return c ? c.name || c.id || target.label : target.label;
}

/** The page's form structure: the same controls give the same string. */
export function signatureOf(targets: Target[]): string {
  return targets.map(controlKey).sort().join('|');
}

/** `period.start` + `period.end` (two dates, the only keys under `period`) as one `period` = {start, end} entry. */
export function rangeEntries(entries: Entry[]): RangeEntry[] {
  const byParent = new Map<string, Entry[]>();
  for (const e of entries) {
    if (e.path.length < 2) continue;
    const parent = e.path.slice(0, -1).join('.');
    byParent.set(parent, [...(byParent.get(parent) ?? []), e]);
  }
  const out: RangeEntry[] = [];
  for (const [parent, pair] of byParent) {
    if (pair.length !== 2) continue;
    const value = Object.fromEntries(pair.map((e) => [e.path.at(-1) as string, e.value]));
    if (!dateRangeValue(value)) continue;
    const [a, b] = pair as [Entry, Entry];
    out.push({
      entry: {
        key: parent,
        path: parent.split('.'),
        value,
        title: '',
        description: '',
        required: a.required || b.required,
        secret: a.secret || b.secret,
        format: '',
      },
      leaves: [a.key, b.key],
    });
  }
  return out;
}

export function runEntries(entries: Entry[]): RunEntries {
  return { entries, ranges: rangeEntries(entries) };
}

/** The leaf entries and the date-range pairs, for finding the entry a placed control belongs to. */
export function allEntries(run: RunEntries): Entry[] {
  return [...run.ranges.map((r) => r.entry), ...run.entries];
}

/** The page's heading: its first heading, else its title. */
export function headingOf(frames: ScannedFrames): string {
  return frames.flatMap((f) => f.scan.headings)[0] ?? frames[0]?.scan.title ?? '';
}

/** Entries to place on a page: unplaced ones, plus those placed before on a page with the same fields. */
export function pendingEntries(
  state: FillState,
  run: RunEntries,
  signature: string,
  done: ReadonlySet<string>,
): Entry[] {
  const placedHere = (key: string): boolean => {
    const placed = keyState(state, key).placed;
    return !placed || placed.signature === signature;
  };
  const open = (e: Entry): boolean => !done.has(e.key) && !isDeclined(state, e.key) && placedHere(e.key);
  const ranges = run.ranges.filter((r) => r.leaves.every((k) => !done.has(k) && placedHere(k)) && open(r.entry));
  return [...ranges.map((r) => r.entry), ...run.entries.filter(open)];
}

/** A "which field" question: the field's options, then the question and the failure without a human. */
export interface FieldQuestion {
  entry: Entry;
  candidates: Target[];
  question: { question: string; options: string[]; message: string };
  failure: string;
}

/** One pass of filling a page, decided. */
export interface PagePlan {
  /** The controls not filled yet on this pass. */
  targets: Target[];
  /** The keys this page may take. */
  pending: Entry[];
  /** Key → control, by the rules (in the order they are filled). */
  placements: Placement[];
  /** Keys two or more controls fit equally well: a human chooses (or "None of these"), or the job fails. */
  ask: FieldQuestion[];
}

/** The options of a "which field" question: labels, made distinct with the control's name where two read alike. */
export function fieldOptions(targets: Target[]): string[] {
  const labels = targets.map((t) => t.label);
  return targets.map((t, i) =>
    labels.indexOf(t.label) !== labels.lastIndexOf(t.label) || !t.label ? describeTarget(t) : (labels[i] as string),
  );
}

/** "Which field should receive …?" over `candidates` (plus None of these), with why it is asked and the failure without a human. */
function fieldQuestion(entry: Entry, candidates: Target[], message: string, failure: string): FieldQuestion {
  return {
    entry,
    candidates,
    question: {
      question: `Which field should receive form_data '${entry.key}' (${loggable(entry)})?`,
      options: [...fieldOptions(candidates), NONE_OF_THESE],
      message,
    },
    failure,
  };
}

function whichField(amb: Ambiguity): FieldQuestion {
  const { entry, candidates } = amb;
  return fieldQuestion(
    entry,
    candidates,
    `'${entry.key}' matches several fields equally well.`,
    `form_data key '${entry.key}' is ambiguous: it matches ${candidates.map((t) => `'${t.label}'`).join(' and ')} equally well; rename the key or add a schema title, or enable human_in_the_loop to be asked`,
  );
}

/**
 * Which key goes to which control on this page: the keys still open here (`pendingEntries`), field
 * arrays scoped to their rows, matched against the controls not `filled` on an earlier pass.
 */
export function plan(
  frames: ScannedFrames,
  state: FillState,
  run: RunEntries,
  page: { signature: string; done: ReadonlySet<string>; filled: ReadonlySet<string> },
): PagePlan {
  const all = buildTargets(frames);
  const targets = all.filter((t) => !page.filled.has(t.id));
  const pending = pendingEntries(state, run, page.signature, page.done);
  const layout = arrayRows(
    pending,
    all,
    frames.flatMap((f) => f.scan.buttons),
  );
  const { placements, ambiguous } = matchScoped(pending, targets, layout);
  return { targets, pending, placements, ask: ambiguous.map(whichField) };
}

/** How a placement of the rules found its control. */
export function matchedByRule(placement: Placement): MatchedBy {
  return placement.byOptions ? 'options' : 'name';
}

/** The kind of a value, as the assist model may see it (never the value itself). */
export function valueKind(value: unknown): string {
  if (typeof value === 'boolean') return 'yes/no';
  if (typeof value === 'number') return 'number';
  if (Array.isArray(value)) return 'list';
  if (isFileObject(value) || (typeof value === 'string' && value.startsWith('data:'))) return 'file';
  if (dateReadings(value).length) return 'date';
  return 'text';
}

/** What the assist model is asked about on this page: the keys the rules left and the free controls; null when nothing (or asked already). */
export function mapperQuestion(
  state: FillState,
  signature: string,
  planned: PagePlan,
): { keys: Entry[]; free: Target[]; request: Omit<KeyMapRequest, 'pageUrl' | 'signal'> } | null {
  if (state.run.mapped.has(signature)) return null;
  const placedKeys = new Set([...planned.placements.map((p) => p.entry.key), ...planned.ask.map((a) => a.entry.key)]);
  const keys = planned.pending.filter((e) => !placedKeys.has(e.key) && !isPlaced(state, e.key));
  const taken = new Set(planned.placements.map((p) => p.target.id));
  const free = planned.targets.filter((t) => !taken.has(t.id) && !t.hasValue);
  if (!keys.length || !free.length) return null;
  return {
    keys,
    free,
    request: {
      structure: signature,
      keys: keys.map((e) => ({ key: e.key, title: e.title, description: e.description, kind: valueKind(e.value) })),
      controls: free.map((t, index) => ({
        index,
        label: t.label,
        kind: t.kind,
        required: t.required,
        options: realChoices(t.choices).map((c) => c.label),
        context: [...new Set([...t.context, ...t.texts.filter((x) => x.text !== t.label).map((x) => x.text)])].slice(
          0,
          6,
        ),
      })),
    },
  };
}

/** The model's answer, checked: controls the page has, one key per control, a value the control can take. */
export function acceptMapping(keys: Entry[], free: Target[], mapping: ReadonlyMap<string, number>): Placement[] {
  const out: Placement[] = [];
  const used = new Set<string>();
  for (const entry of keys) {
    const target = free[mapping.get(entry.key) ?? -1];
    if (!target || used.has(target.id) || compatibility(entry.value, target) === 0) continue;
    used.add(target.id);
    out.push({ entry, target, score: 1 });
  }
  return out;
}

/** Controls a human answered for earlier (no key matched them) that show again, free on this pass. */
export function manualFills(
  state: FillState,
  targets: Target[],
  filled: ReadonlySet<string>,
  placements: Placement[],
): Array<{ target: Target; value: string }> {
  const out: Array<{ target: Target; value: string }> = [];
  for (const target of targets) {
    const value = state.run.manual.get(controlKey(target));
    if (value !== undefined && !filled.has(target.id) && !placements.some((p) => p.target.id === target.id))
      out.push({ target, value });
  }
  return out;
}

/** The page after filling, as `next` reads it. */
export interface PageView {
  frames: ScannedFrames;
  targets: Target[];
  /** Target ids filled on this turn. */
  filled: ReadonlySet<string>;
  /** Messages the page showed when the turn began. */
  errors: PageError[];
  /** The form signature the turn began with. */
  signature: string;
}

/** The click that moves the form on, and what happens before it. */
export interface ClickStep {
  kind: 'click';
  button: ChosenButton;
  heading: string;
  /** A check-your-answers page. */
  review: boolean;
  /** On the submitting page: the one required key left for the one required empty control left. */
  eliminate: { entry: Entry; target: Target } | null;
  /** Required controls still empty (no key for them): a human gives the value, or the job fails. */
  requiredEmpty: Target[];
  /** On the submitting page: required keys no control took: a human says which field, or the job fails. */
  requiredUnplaced: Entry[];
  /** This page state (url, fields, heading, messages, corrections): clicking from it a third time is giving up. */
  visitKey: string;
  /** Set when this is that third time: the job's error. */
  stuck: string | null;
}

export type NextStep =
  /** The final page (no button, or a confirmation): settle what the last click sent, and finish. */
  | { kind: 'finish' }
  /** Messages on the page and no button: required empties are asked about, then the run gives up. */
  | { kind: 'noButton'; requiredEmpty: Target[] }
  | ClickStep;

export interface Next {
  /** Nothing on the page takes a value yet: a sentence of the task naming something here is the way on. */
  tryTaskStep: boolean;
  step: NextStep;
}

/** On the submitting page, the one required key left and the one required empty control left go together when the value fits beyond doubt. */
export function elimination(
  state: FillState,
  run: RunEntries,
  targets: Target[],
  filled: ReadonlySet<string>,
): { entry: Entry; target: Target } | null {
  const keys = run.entries.filter((e) => e.required && !isPlaced(state, e.key) && !isDeclined(state, e.key));
  const taken = takenControls(state);
  const empty = targets.filter((t) => t.required && !t.hasValue && !filled.has(t.id) && !taken.has(controlKey(t)));
  const [entry] = keys;
  const [target] = empty;
  if (keys.length !== 1 || empty.length !== 1 || !entry || !target || !eliminationFits(entry, target)) return null;
  return { entry, target };
}

/** The step recorded for a click, once the page's last fills are made (`filled`: how many controls this turn filled). */
export function clickRecord(step: ClickStep, filled: number): string {
  const what = filled
    ? `Filled ${filled} field(s) on '${step.heading}'`
    : step.review
      ? `Reviewed answers on '${step.heading}'`
      : `On '${step.heading}'`;
  return `${what}; clicking '${step.button.button.text}'`;
}

/** What to do once the page is filled: finish, or which button to click and what to settle before. */
export function next(view: PageView, state: FillState, run: RunEntries): Next {
  const { frames, targets, filled, errors } = view;
  const text = frames.map((f) => f.scan.bodyText).join('\n');
  const heading = headingOf(frames);
  const waiting = targets.some((t) => t.required && !t.hasValue);
  const tryTaskStep = !filled.size && !placedValues(state).size && !errors.length && !waiting;
  const filledTargets = targets.filter((t) => filled.has(t.id));
  const filledForms = new Set(filledTargets.map((t) => t.controls[0]?.formKey ?? ''));
  const filledFrames = new Set(filledTargets.map((t) => t.frame));
  const button = chooseButton(frames, filledForms, filledFrames);
  const noFields = targets.length === 0;
  const review = looksLikeReview(text);
  if (
    !errors.length &&
    (!button ||
      (noFields && !review && (looksConfirmed(text) || (state.run.lastKind === 'submit' && button.kind === 'next'))))
  )
    return { tryTaskStep, step: { kind: 'finish' } };
  const eliminate = button?.kind === 'submit' ? elimination(state, run, targets, filled) : null;
  const requiredEmpty = targets.filter(
    (t) => t.required && !t.hasValue && !filled.has(t.id) && t.id !== eliminate?.target.id,
  );
  if (!button) return { tryTaskStep, step: { kind: 'noButton', requiredEmpty } };
  const requiredUnplaced =
    button.kind === 'submit'
      ? run.entries.filter(
          (e) => e.required && !isPlaced(state, e.key) && !isDeclined(state, e.key) && e.key !== eliminate?.entry.key,
        )
      : [];
  const visitKey = `${frames[0]?.scan.url}|${view.signature}|${heading}|${errors.map((e) => e.text).join('|')}|${state.run.corrections}`;
  const visits = visitsOf(state, visitKey) + 1;
  const said = errors.length ? ` The page says: ${errors.map((e) => quote(e.text, 120)).join('; ')}` : '';
  return {
    tryTaskStep,
    step: {
      kind: 'click',
      button,
      heading,
      review,
      eliminate,
      requiredEmpty,
      requiredUnplaced,
      visitKey,
      stuck:
        visits > 2
          ? `The form did not advance past '${heading}' after clicking '${button.button.text}' ${visits} times.${said}`
          : null,
    },
  };
}

/** A question for a field's value: asked (its real options, if any), or the failure without a human. */
export interface ValueQuestion {
  question: { question: string; message: string };
  failure: string;
}

/** What a validation message the page shows calls for (`answerError`). */
export type ErrorAnswer =
  /** A message tied to no field: logged. */
  | { kind: 'note' }
  /** A message on a field a pending key will fill (a page that validated as it appeared): filling it is the answer. */
  | { kind: 'willFill'; target: Target }
  /** A field no key fills: a human gives its value (typed whenever that control shows), or the job fails. */
  | ({ kind: 'askValue'; target: Target; controlKey: string } & ValueQuestion)
  /** A rejected key with a correction left to try: another date format, phone spelling, case, spaces. */
  | { kind: 'correct'; entry: Entry; correction: Correction; tried: string[] }
  /** A rejected key with no correction left: a human gives the value, or the job fails. */
  | ({ kind: 'askRejected'; entry: Entry; target: Target; tried: string[] } & ValueQuestion);

/** What to do about one validation message, given what the run knows (`tried`: every tried token of the key after this). */
export function answerError(error: PageError, state: FillState, run: RunEntries): ErrorAnswer {
  const { target, text } = error;
  if (!target) return { kind: 'note' };
  const key = controlKey(target);
  const entry = entryAtControl(state, allEntries(run), key);
  if (!entry) {
    if (
      run.entries.some(
        (e) => !isPlaced(state, e.key) && !isDeclined(state, e.key) && scoreMatch(e, target) >= MATCH_THRESHOLD,
      )
    )
      return { kind: 'willFill', target };
    return {
      kind: 'askValue',
      target,
      controlKey: key,
      question: {
        question: `What should be entered for '${target.label}'?`,
        message: `The page says ${quote(text)} and form_data has no value for it.`,
      },
      failure: `The page requires '${target.label}': ${quote(text)}, and no form_data key matches it; enable human_in_the_loop to be asked`,
    };
  }
  const known = keyState(state, entry.key);
  const tried = new Set(known.tried);
  const correction = nextCorrection(entry, target, text, tried, known.override?.value);
  if (correction) return { kind: 'correct', entry, correction, tried: [...tried] };
  return {
    kind: 'askRejected',
    entry,
    target,
    tried: [...tried],
    question: {
      question: `The page rejected '${target.label}'. What value should be entered?`,
      message: `form_data '${entry.key}' was rejected: ${quote(text)}`,
    },
    failure: `The page rejected '${target.label}' (form_data key '${entry.key}'): ${quote(text)}; no correction left to try`,
  };
}

/** What reading a typed value back from its control calls for (`readBackVerdict`). */
export type ReadBack =
  /** The control shows the value with its meaning intact (or it is not a control typed into). */
  | { kind: 'same' }
  /** A mask changed a phone number: type it in its next other spelling. `tried`: tokens to remember. */
  | { kind: 'retype'; variant: string; tried: string[] }
  /** No spelling left (or a human gave the value): Keep / Correct / Cancel, or the job fails. */
  | {
      kind: 'ask';
      tried: string[];
      question: { question: string; options: string[]; message: string };
      failure: string;
      cancelled: string;
      correct: { question: string; options: string[]; message: string };
    };

/**
 * Compares what a control shows after typing with what was typed (sameMeaning.ts): a mask that changed
 * digits, a picker that moved the date, never pass. A phone number is first retyped in its other spellings
 * (national, without the +) not tried yet; then a human keeps it, corrects it or cancels, or the job fails.
 */
export function readBackVerdict(
  target: Target,
  entry: Entry,
  value: unknown,
  shown: string,
  state: FillState,
): ReadBack {
  if (!['text', 'textarea', 'date', 'editable'].includes(target.kind) || typeof value === 'object')
    return { kind: 'same' };
  const given = asText(value);
  const options = realChoices(target.choices).map((c) => ({ label: c.label, value: c.value }));
  if (!given || sameMeaning(given, shown, { options }) === 'same') return { kind: 'same' };
  const known = keyState(state, entry.key);
  const variant = /^\+?[\d\s().-]{7,}$/.test(given.trim())
    ? phoneVariants(given).find((v) => !known.tried.has(`readback:${v}`))
    : undefined;
  if (variant !== undefined && !known.answered)
    return { kind: 'retype', variant, tried: [`readback:${given}`, `readback:${variant}`] };
  const took = entry.secret ? 'a different value' : `'${shown}'`;
  const gave = entry.secret ? 'another' : `'${asText(entry.value)}'`;
  return {
    kind: 'ask',
    tried: [`readback:${given}`],
    question: {
      question: `'${target.label}' shows ${took} for ${entry.key}; you gave ${gave}.`,
      options: ['Keep', 'Correct', 'Cancel'],
      message:
        'The field changed the value as it was typed. Keep what it shows, Correct the value to type, or Cancel the job.',
    },
    failure: `'${target.label}' took ${took} for form_data '${entry.key}' but form_data gave ${gave}: the field changed its meaning (enable human_in_the_loop to be asked)`,
    cancelled: `Cancelled by a human: '${target.label}' took ${took} for form_data '${entry.key}' instead of ${gave}`,
    correct: {
      question: `What should be typed into '${target.label}' for ${entry.key}?`,
      options: [],
      message: `It shows ${took}.`,
    },
  };
}

/** Clicking the form's own "Add …" control once, for a field array the page shows too few rows of. */
export interface AddRowStep {
  /** The array's dotted key. */
  array: string;
  /** Items in form_data, and rows the page shows now. */
  items: number;
  rows: number;
  button: ScannedButton;
  /** The frame the button is in. */
  frame: Frame;
}

/** Some field-array item is not placed yet (rows may have to be added for it). */
export function arrayItemsPending(state: FillState, run: RunEntries): boolean {
  return run.entries.some((e) => e.item && !isPlaced(state, e.key));
}

/**
 * Field arrays: the next "Add …" click, when the page shows fewer rows than form_data has items for an
 * array whose items are not placed yet. `clicks`: how many times each array's button was clicked while
 * filling this page — never more than the array's item count (a button that adds no row is not clicked
 * for ever). Null when no row is to be added.
 */
export function rowToAdd(
  frames: ScannedFrames,
  state: FillState,
  run: RunEntries,
  clicks: ReadonlyMap<string, number>,
): AddRowStep | null {
  const pending = run.entries.filter((e) => e.item && !isPlaced(state, e.key));
  if (!pending.length) return null;
  const buttons = frames.flatMap((f) => f.scan.buttons);
  const layout = arrayRows(pending, buildTargets(frames), buttons).find(
    (l) => l.add && (clicks.get(l.array) ?? 0) < l.items,
  );
  const button = layout?.add;
  if (!layout || !button) return null;
  const frame = frames.find((f) => f.scan.buttons.includes(button))?.frame;
  if (!frame) return null;
  return { array: layout.array, items: layout.items, rows: layout.rows.length, button, frame };
}

/** A field that repeats another one's value ("Confirm email address", "Re-enter password"). */
const REPEAT = /^\s*(confirm|repeat|re-?enter|re-?type|verify)\b|\b(again|confirmation)\s*$/i;

/**
 * "Confirm email address" / "Re-enter password" text fields not filled yet, each with the value of the
 * field it repeats: the key placed on this page whose name or title is the label without its "Confirm"
 * word (similarity ≥ 0.6, the best one). A repeat field that names none of them is left alone.
 */
export function confirmationFills(
  targets: Target[],
  filled: ReadonlySet<string>,
  pageValues: ReadonlyArray<{ entry: Entry; value: unknown }>,
): Array<{ target: Target; entry: Entry; value: unknown }> {
  const out: Array<{ target: Target; entry: Entry; value: unknown }> = [];
  for (const target of targets) {
    if (filled.has(target.id) || (target.kind !== 'text' && target.kind !== 'textarea') || !REPEAT.test(target.label))
      continue;
    const base = target.label.replace(REPEAT, ' ');
    let best: { score: number; entry: Entry; value: unknown } | null = null;
    for (const { entry, value } of pageValues) {
      const score = Math.max(
        textSimilarity(base, entry.path.at(-1) ?? entry.key),
        entry.title ? textSimilarity(base, entry.title) : 0,
      );
      if (score >= 0.6 && (!best || score > best.score)) best = { score, entry, value };
    }
    if (best) out.push({ target, entry: best.entry, value: best.value });
  }
  return out;
}

/** HTML5 constraint validation the filler's own values failed, and what to type again once they are answered. */
export interface ConstraintFixes {
  /** The browser's messages on controls this turn filled that are `:invalid` (each goes through `answerError`). */
  errors: PageError[];
  /** The controls to retype once the messages are answered, with the key they hold (its value as the state then says). */
  refills: Array<{ target: Target; entry: Entry }>;
}

/**
 * Constraint validation blocks a submission silently: a control this turn `filled` that the browser
 * finds invalid (a pattern, a type, a range) has its message answered like a page's message — the
 * next correction of its key, or a question — and is typed again. Controls the filler did not fill are
 * never touched (their messages are not the filler's to answer). Null when nothing is invalid.
 */
export function constraintFixes(
  frames: ScannedFrames,
  targets: Target[],
  filled: ReadonlySet<string>,
  state: FillState,
  run: RunEntries,
): ConstraintFixes | null {
  const pids = new Set(targets.filter((t) => filled.has(t.id)).flatMap((t) => t.controls.map((c) => c.pid)));
  const errors = readErrors(frames, targets, pids).filter(
    (e) => e.target && filled.has(e.target.id) && e.target.controls.some((c) => !c.valid),
  );
  if (!errors.length) return null;
  const refills: Array<{ target: Target; entry: Entry }> = [];
  for (const error of errors) {
    const target = error.target as Target;
    const entry = entryAtControl(state, allEntries(run), controlKey(target));
    if (entry) refills.push({ target, entry });
  }
  return { errors, refills };
}

/** A required key still without a control that no human declined: it needs "which field" before the submitting click. */
export function requiredKeyOpen(state: FillState, entry: Entry): boolean {
  return entry.required && !isPlaced(state, entry.key) && !isDeclined(state, entry.key);
}

/**
 * Before the submitting click, for a required key no control took: which field should receive it — the
 * page's controls not holding a key already, then "None of these" — or the failure without a human.
 */
export function requiredKeyQuestion(frames: ScannedFrames, state: FillState, entry: Entry): FieldQuestion {
  const taken = takenControls(state);
  const candidates = buildTargets(frames).filter((t) => !taken.has(controlKey(t)));
  return fieldQuestion(
    entry,
    candidates,
    `No control on the page matches the required key '${entry.key}'.`,
    `No control on the page matches the required form_data key '${entry.key}' (tried name, id, label, placeholder, aria, legend, hint and the schema title); enable human_in_the_loop to be asked`,
  );
}

/**
 * A required control still empty that no key fills (and not filled this turn): the question for its
 * value (naming the keys still unplaced in the failure), or null when it needs none.
 */
export function requiredEmptyQuestion(
  target: Target,
  filled: ReadonlySet<string>,
  state: FillState,
  run: RunEntries,
): ValueQuestion | null {
  if (!target.required || target.hasValue || filled.has(target.id)) return null;
  const unplaced = run.entries.filter((e) => !isPlaced(state, e.key)).map((e) => e.key);
  return {
    question: {
      question: `What should be entered for '${target.label}'?`,
      message: `The page requires '${target.label}' and no form_data key matches it.`,
    },
    failure: `The page requires ${describeTarget(target)} but no form_data key matches it${unplaced.length ? ` (unplaced keys: ${unplaced.join(', ')})` : ''}; enable human_in_the_loop to be asked`,
  };
}

/** What a request held by the submission check asks (Send / Correct / Cancel), and the job's error without a human. */
export interface HeldQuestion {
  question: { question: string; options: string[]; message: string };
  failure: string;
  cancelled: string;
  correct: { question: string; options: string[]; message: string };
}

/**
 * A request about to send a value that is not what the human gave (submissionCheck.ts `Mismatch`):
 * Send it as it is, Correct the value to type, or Cancel the job; without a human the job fails naming
 * the key (the request is held either way). A secret's values are never quoted.
 */
export function heldQuestion(m: Mismatch): HeldQuestion {
  const sent = m.secret ? 'a different value' : `'${m.sent}'`;
  const given = m.secret ? 'another' : `'${m.given}'`;
  return {
    question: {
      question: `About to send ${sent} for ${m.key}; you gave ${given}.`,
      options: ['Send', 'Correct', 'Cancel'],
      message: `The page changed the value of '${m.label}' between the field and the request. The request is held: Send it as it is, Correct the value to type, or Cancel the job.`,
    },
    failure: `The form was about to send ${sent} for form_data '${m.key}' ('${m.label}') but form_data gave ${given}; the request was held and not sent (enable human_in_the_loop to be asked)`,
    cancelled: `Cancelled by a human: the form was about to send ${sent} for form_data '${m.key}' instead of ${given}`,
    correct: {
      question: `What should be typed into '${m.label}' for ${m.key}?`,
      options: [],
      message: `The page sent ${sent} when ${given} was typed.`,
    },
  };
}
