// The filler's state in one value (issue 20 item 5): per form_data key, what happened to it (`KeyState`),
// plus a small run state (`RunState`). Every change is a pure transition returning a new `FillState`;
// wizard.ts holds the one current value and replaces it. Nothing here touches a page, so the deciding
// code (plan.ts) and its unit tests read and write state without a browser.
import type { KeyPlacement } from '../agentTypes.ts';
import type { FillOptions } from './controlFiller.ts';
import type { Entry } from './entries.ts';
import type { ButtonKind } from './navigation.ts';
import type { PlacedCheck } from './submissionCheck.ts';
import type { PlacementHow } from './valueAdapter.ts';

/** How a key found its control: by its name, title or description; by its values naming the control's options; as the only fit left; a human chose it; or the assist model mapped it. */
export type MatchedBy = KeyPlacement['matched_by'];

export interface PlacedValue {
  /** Form signature of the page it went on (a re-rendered page with the same fields refills it). */
  signature: string;
  controlKey: string;
  label: string;
  shown: string;
  how: PlacementHow;
  matchedBy: MatchedBy;
  /** What the submission check compares the request with. */
  check: PlacedCheck;
}

/** A form_data key that went into no control, and why. */
export interface UnplacedKey {
  key: string;
  reason: string;
}

/** What happened to one form_data key (or one date-range pair key, `period` for `period.start` + `period.end`). */
export interface KeyState {
  /** The control that took it (a date range placed as one value places its two leaves with the same record). */
  readonly placed?: PlacedValue;
  /** The value to type instead of form_data's: a correction, a settled ambiguous date, a human's answer. */
  readonly override?: { readonly value: unknown };
  /** The date format a rejection asked for (validationReader.ts). */
  readonly dateFormat?: string;
  /** What was tried already: `date:<format>`, `value:<text>`, `rendered:<shown>`, `readback:<text>`. */
  readonly tried: ReadonlySet<string>;
  /** A human said it belongs in none of the fields offered. */
  readonly declined: boolean;
  /** A human gave its value (an option chosen, a rejected value replaced, a changed value kept). */
  readonly answered: boolean;
  /** Who chose its control when the rules did not: a human (`answer`) or the assist model (`model`); a human wins. */
  readonly chosenBy?: 'answer' | 'model';
}

/** The run's own counters and memory (everything not about one key). */
export interface RunState {
  /** Turns of the current `run()` (a page filled and clicked on is one turn). */
  readonly turn: number;
  /** The kind of the last button clicked in the current `run()`. */
  readonly lastKind: ButtonKind | null;
  /** Corrections made (rejections answered, human corrections): part of what tells a stuck page from a changed one. */
  readonly corrections: number;
  /** How often each page state (url, fields, heading, errors, corrections) was clicked on from. */
  readonly visits: ReadonlyMap<string, number>;
  /** Answers a human gave for controls that no key matched, by control key. */
  readonly manual: ReadonlyMap<string, string>;
  /** Page structures the assist model was already asked about (once per structure and run). */
  readonly mapped: ReadonlySet<string>;
  /** Indexes of the task's steps already run (each runs at most once). */
  readonly stepsDone: ReadonlySet<number>;
}

export interface FillState {
  readonly keys: ReadonlyMap<string, KeyState>;
  readonly run: RunState;
}

const NO_KEY_STATE: KeyState = { tried: new Set(), declined: false, answered: false };

export function initialFillState(): FillState {
  return {
    keys: new Map(),
    run: {
      turn: 0,
      lastKind: null,
      corrections: 0,
      visits: new Map(),
      manual: new Map(),
      mapped: new Set(),
      stepsDone: new Set(),
    },
  };
}

// ---- reading ----

export function keyState(state: FillState, key: string): KeyState {
  return state.keys.get(key) ?? NO_KEY_STATE;
}

export function isPlaced(state: FillState, key: string): boolean {
  return keyState(state, key).placed !== undefined;
}

export function isDeclined(state: FillState, key: string): boolean {
  return keyState(state, key).declined;
}

/** Every placed key with its placement (a date range's pair key and its leaves share one record). */
export function placedValues(state: FillState): Map<string, PlacedValue> {
  const out = new Map<string, PlacedValue>();
  for (const [key, k] of state.keys) if (k.placed) out.set(key, k.placed);
  return out;
}

/** Control keys already holding a key's value. */
export function takenControls(state: FillState): Set<string> {
  return new Set([...placedValues(state).values()].map((p) => p.controlKey));
}

/** The value to type for an entry: its override when it has one, else form_data's. */
export function valueFor(state: FillState, entry: Entry): unknown {
  const k = keyState(state, entry.key);
  return k.override ? k.override.value : entry.value;
}

/** The options the control filler gets for an entry (its schema format, a date format a rejection asked for). */
export function fillOptionsFor(state: FillState, entry: Entry): FillOptions {
  const { dateFormat } = keyState(state, entry.key);
  return dateFormat === undefined ? { format: entry.format } : { dateFormat, format: entry.format };
}

/** The entry whose value the control `controlKey` holds. */
export function entryAtControl(state: FillState, entries: Entry[], controlKey: string): Entry | undefined {
  return entries.find((e) => keyState(state, e.key).placed?.controlKey === controlKey);
}

/** Every key no control received, with the reason (the result lists them; none is dropped silently). */
export function unplacedKeys(state: FillState, entries: Entry[]): UnplacedKey[] {
  return entries
    .filter((e) => !isPlaced(state, e.key))
    .map((e) => ({
      key: e.key,
      reason: isDeclined(state, e.key)
        ? 'a human said it belongs in none of the fields offered'
        : 'no control on any page matched it',
    }));
}

/** How the placement is reported: `answer` once a human gave the value, else how the filler put it. */
export function howFor(state: FillState, key: string, how: PlacementHow): PlacementHow {
  return keyState(state, key).answered ? 'answer' : how;
}

/** How the key found its control: a human's or the model's choice wins over the rule that matched it. */
export function matchedByFor(state: FillState, key: string, rule: MatchedBy): MatchedBy {
  return keyState(state, key).chosenBy ?? rule;
}

/** How many times this page state has been clicked on from (before the next click). */
export function visitsOf(state: FillState, visitKey: string): number {
  return state.run.visits.get(visitKey) ?? 0;
}

// ---- transitions (each returns a new state; the old one is left as it was) ----

function withKey(state: FillState, key: string, change: (k: KeyState) => KeyState): FillState {
  const keys = new Map(state.keys);
  keys.set(key, change(keyState(state, key)));
  return { ...state, keys };
}

function withRun(state: FillState, change: Partial<RunState>): FillState {
  return { ...state, run: { ...state.run, ...change } };
}

/** A control took `key` (and, for a date range placed as one value, its `leaves`). */
export function placeKey(
  state: FillState,
  key: string,
  placed: PlacedValue,
  leaves: string[] = [],
  leafChecks: Record<string, PlacedCheck> = {},
): FillState {
  let next = withKey(state, key, (k) => ({ ...k, placed }));
  // Each leaf of a date range is checked for its own date when `leafChecks` has it (placedCheck.ts, rangeLeafChecks).
  for (const leaf of leaves)
    next = withKey(next, leaf, (k) => ({ ...k, placed: { ...placed, check: leafChecks[leaf] ?? placed.check } }));
  return next;
}

/** Type `value` for `key` from now on; `answered` when a human gave it. */
export function overrideKey(state: FillState, key: string, value: unknown, answered = false): FillState {
  return withKey(state, key, (k) => ({ ...k, override: { value }, answered: k.answered || answered }));
}

export function markAnswered(state: FillState, key: string): FillState {
  return withKey(state, key, (k) => ({ ...k, answered: true }));
}

export function addTried(state: FillState, key: string, ...tokens: string[]): FillState {
  return withKey(state, key, (k) => ({ ...k, tried: new Set([...k.tried, ...tokens]) }));
}

export function setDateFormat(state: FillState, key: string, dateFormat: string): FillState {
  return withKey(state, key, (k) => ({ ...k, dateFormat }));
}

/** A human said the key belongs in none of the fields offered. */
export function declineKey(state: FillState, key: string): FillState {
  return withKey(state, key, (k) => ({ ...k, declined: true }));
}

/** A human (`answer`) or the assist model (`model`) chose the key's control; a human's choice is never replaced. */
export function markChosen(state: FillState, key: string, by: 'answer' | 'model'): FillState {
  return withKey(state, key, (k) => ({ ...k, chosenBy: k.chosenBy === 'answer' ? 'answer' : by }));
}

export function countCorrection(state: FillState): FillState {
  return withRun(state, { corrections: state.run.corrections + 1 });
}

/** A human's answer for a control no key matched (typed again whenever that control shows). */
export function rememberManual(state: FillState, controlKey: string, answer: string): FillState {
  return withRun(state, { manual: new Map(state.run.manual).set(controlKey, answer) });
}

export function markMapped(state: FillState, signature: string): FillState {
  return withRun(state, { mapped: new Set(state.run.mapped).add(signature) });
}

export function markStepDone(state: FillState, index: number): FillState {
  return withRun(state, { stepsDone: new Set(state.run.stepsDone).add(index) });
}

export function recordVisit(state: FillState, visitKey: string): FillState {
  return withRun(state, { visits: new Map(state.run.visits).set(visitKey, visitsOf(state, visitKey) + 1) });
}

/** A new `run()` (the first, or again after a human chose Continue): turns and the last click start over. */
export function startRun(state: FillState): FillState {
  return withRun(state, { turn: 0, lastKind: null });
}

export function nextTurn(state: FillState): FillState {
  return withRun(state, { turn: state.run.turn + 1 });
}

export function recordClick(state: FillState, kind: ButtonKind): FillState {
  return withRun(state, { lastKind: kind });
}
