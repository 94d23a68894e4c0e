import type { Frame } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';

import type { HumanInput } from '../../browser/humanInput.ts';
import { AgentFailure, type AgentContext } from '../agentTypes.ts';
import { FillProblem, fillTarget, type FillEnv } from './controlFiller.ts';
import { settleAmbiguousDate } from './dateAmbiguity.ts';
import { isFileObject, loggable, type Entry } from './entries.ts';
import { dateReadings } from './dates.ts';
import { arrayRows, matchScoped } from './fieldArrays.ts';
import { compatibility, eliminationFits, MATCH_THRESHOLD, scoreMatch, type Placement } from './fieldMatcher.ts';
import type { KeyMapper } from './keyMapper.ts';
import { chooseButton, clickAndSettle, looksConfirmed, looksLikeReview } from './navigation.ts';
import {
  addTried,
  countCorrection,
  declineKey,
  entryAtControl,
  fillOptionsFor,
  howFor,
  initialFillState,
  isDeclined,
  isPlaced,
  keyState,
  markAnswered,
  markChosen,
  markMapped,
  markStepDone,
  matchedByFor,
  nextTurn,
  overrideKey,
  placedValues,
  placeKey,
  recordClick,
  recordVisit,
  rememberManual,
  setDateFormat,
  startRun,
  takenControls,
  unplacedKeys,
  valueFor,
  visitsOf,
  type FillState,
  type MatchedBy,
  type PlacedValue,
  type UnplacedKey,
} from './fillState.ts';
import { scanFrame, type FrameScan } from './pageScan.ts';
import { runTaskStep, taskSteps, type TaskStep } from './taskSteps.ts';
import { placedCheckFor } from './placedCheck.ts';
import { askForOption, askOrFail, quote } from './questions.ts';
import { sameMeaning } from './sameMeaning.ts';
import type { Mismatch } from './submissionCheck.ts';
import { SubmissionWatch, type HeldDecision } from './submissionWatch.ts';
import { dateRangeValue } from './rangeAndNumber.ts';
import { buildTargets, describeTarget, type Target } from './targets.ts';
import { textSimilarity } from './textNorm.ts';
import { nextCorrection, readErrors, type PageError } from './validationReader.ts';
import { asText, phoneVariants, realChoices } from './valueAdapter.ts';

const MAX_TURNS = 30;
const REVEAL_PASSES = 4;

export type { MatchedBy, PlacedValue, UnplacedKey };

export interface WizardOutcome {
  placed: Map<string, PlacedValue>;
  unplaced: UnplacedKey[];
  frames: Array<{ frame: Frame; scan: FrameScan }>;
}

const NONE_OF_THESE = 'None of these';

/** The kind of a value, as the assist model may see it (never the value itself). */
function valueKind(value: unknown): string {
  if (typeof value === 'boolean') return 'yes/no';
  if (typeof value === 'number') return 'number';
  if (Array.isArray(value)) return 'list';
  if (isFileObject(value) || (typeof value === 'string' && value.startsWith('data:'))) return 'file';
  if (dateReadings(value).length) return 'date';
  return 'text';
}

type Scanned = Array<{ frame: Frame; scan: FrameScan }>;

/** Scans every frame of the page a script can reach (iframes included, cross-origin too). */
export async function scanAll(ctx: AgentContext): Promise<Scanned> {
  const out: Scanned = [];
  for (const frame of scriptableFrames(ctx.page)) {
    const scan = await scanFrame(frame);
    if (scan) out.push({ frame, scan });
  }
  return out;
}

function controlKey(target: Target): string {
  const c = target.controls[0];
  return c ? c.name || c.id || target.label : target.label;
}

function signatureOf(targets: Target[]): string {
  return targets.map(controlKey).sort().join('|');
}

/** `period.start` + `period.end` (two dates, the only keys under `period`) as one `period` = {start, end} entry. */
export function rangeEntries(entries: Entry[]): Array<{ entry: Entry; leaves: string[] }> {
  const byParent = new Map<string, Entry[]>();
  for (const e of entries) {
    if (e.path.length < 2) continue;
    const parent = e.path.slice(0, -1).join('.');
    byParent.set(parent, [...(byParent.get(parent) ?? []), e]);
  }
  const out: Array<{ entry: Entry; leaves: string[] }> = [];
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

/** Walks the form page by page: fill, correct what the page rejects, click on, until a final page. */
export class Wizard {
  readonly #ctx: AgentContext;
  readonly #entries: Entry[];
  readonly #humanFor: (url: string) => HumanInput | null;
  /** Everything the run has learnt, one value replaced by fillState.ts's pure transitions. */
  #state: FillState = initialFillState();
  /** Holds and checks what the form sends after each click (submissionWatch.ts). */
  readonly watch: SubmissionWatch;
  /** The task's click/choose sentences, each run at most once, on a page where it applies. */
  readonly #steps: TaskStep[];
  /**
   * Date ranges given as two keys under one parent (`period.start`, `period.end`): one more entry
   * `period` = {start, end}, which only a one-input date range control takes (rangeAndNumber.ts).
   * Placing it places both keys; placing the two keys (two date inputs) leaves it unused.
   */
  readonly #ranges: Array<{ entry: Entry; leaves: string[] }>;

  readonly #mapper: KeyMapper | null;

  constructor(
    ctx: AgentContext,
    entries: Entry[],
    humanFor: (url: string) => HumanInput | null,
    mapper: KeyMapper | null = null,
  ) {
    this.#ctx = ctx;
    this.#entries = entries;
    this.#humanFor = humanFor;
    this.#mapper = mapper;
    this.#steps = taskSteps(ctx.task);
    this.#ranges = rangeEntries(entries);
    this.watch = new SubmissionWatch(ctx.page, {
      placed: () => [...placedValues(this.#state).values()].map((p) => p.check),
      decide: (mismatch) => this.#decideHeld(mismatch),
      log: (line) => ctx.log(line),
    });
  }

  /**
   * A request about to send a value that is not what the human gave: Send / Correct / Cancel with a
   * human, else the job fails naming the key (the request is held either way until this returns).
   */
  async #decideHeld(m: Mismatch): Promise<HeldDecision> {
    const sent = m.secret ? 'a different value' : `'${m.sent}'`;
    const given = m.secret ? 'another' : `'${m.given}'`;
    const failure = `The form was about to send ${sent} for form_data '${m.key}' ('${m.label}') but form_data gave ${given}; the request was held and not sent (enable human_in_the_loop to be asked)`;
    const options = ['Send', 'Correct', 'Cancel'];
    const picked = await askForOption(
      this.#ctx,
      {
        question: `About to send ${sent} for ${m.key}; you gave ${given}.`,
        options,
        message: `The page changed the value of '${m.label}' between the field and the request. The request is held: Send it as it is, Correct the value to type, or Cancel the job.`,
      },
      failure,
    );
    if (picked === 0) {
      this.#ctx.log(`${m.key}: a human chose to send the changed value`);
      return { send: true };
    }
    if (picked === 2)
      throw new AgentFailure(
        `Cancelled by a human: the form was about to send ${sent} for form_data '${m.key}' instead of ${given}`,
      );
    const value = await askOrFail(
      this.#ctx,
      {
        question: `What should be typed into '${m.label}' for ${m.key}?`,
        options: [],
        message: `The page sent ${sent} when ${given} was typed.`,
      },
      failure,
    );
    return { correct: { key: m.key, value } };
  }

  /** The leaf entries and the date-range pairs, for finding the entry a placed control belongs to. */
  #allEntries(): Entry[] {
    return [...this.#ranges.map((r) => r.entry), ...this.#entries];
  }

  #env(): FillEnv {
    return { page: this.#ctx.page, human: this.#humanFor(this.#ctx.page.url()), log: (line) => this.#ctx.log(line) };
  }

  /** The run's state as it is now (for tests and diagnostics; replaced, never changed in place). */
  get state(): FillState {
    return this.#state;
  }

  /** Runs to the final page. */
  async run(): Promise<WizardOutcome> {
    this.#state = startRun(this.#state);
    for (; this.#state.run.turn < MAX_TURNS; this.#state = nextTurn(this.#state)) {
      this.#checkAbort();
      let frames = await scanAll(this.#ctx);
      let targets = buildTargets(frames);
      // Script-rendered start pages (SPAs) may show their form a moment after `load`.
      for (
        let wait = 0;
        this.#state.run.turn === 0 &&
        wait < 8 &&
        !targets.length &&
        !frames.some((f) => f.scan.buttons.some((b) => b.visible));
        wait += 1
      ) {
        await this.#ctx.page.waitForTimeout(400);
        frames = await scanAll(this.#ctx);
        targets = buildTargets(frames);
      }
      const signature = signatureOf(targets);
      const errors = readErrors(frames, targets);
      if (errors.length) await this.#handleErrors(errors);
      // From here on the filler types: what the page sends now is not a submission the filler made.
      this.watch.disarm();
      const { filled, settled } = await this.#fillPage(signature, errors.length ? undefined : frames);
      frames = settled ?? (await scanAll(this.#ctx));
      targets = buildTargets(frames);
      if (await this.#fixConstraintErrors(frames, targets, filled, signature)) {
        frames = await scanAll(this.#ctx);
        targets = buildTargets(frames);
      }
      const text = frames.map((f) => f.scan.bodyText).join('\n');
      const heading = frames.flatMap((f) => f.scan.headings)[0] ?? frames[0]?.scan.title ?? '';
      // Nothing on this page takes a value yet: a sentence of the task naming a link or button here ("Click the
      // 'Open the application' link") is the way on.
      const waiting = targets.some((t) => t.required && !t.hasValue);
      if (
        !filled.size &&
        !placedValues(this.#state).size &&
        !errors.length &&
        !waiting &&
        (await this.#runTaskStep(heading))
      )
        continue;
      const filledForms = new Set(targets.filter((t) => filled.has(t.id)).map((t) => t.controls[0]?.formKey ?? ''));
      const filledFrames = new Set(targets.filter((t) => filled.has(t.id)).map((t) => t.frame));
      const button = chooseButton(frames, filledForms, filledFrames);
      const noFields = targets.length === 0;
      const review = looksLikeReview(text);
      if (
        !errors.length &&
        (!button ||
          (noFields &&
            !review &&
            (looksConfirmed(text) || (this.#state.run.lastKind === 'submit' && button.kind === 'next'))))
      ) {
        if (await this.#settleSubmission()) continue;
        return { placed: placedValues(this.#state), unplaced: unplacedKeys(this.#state, this.#entries), frames };
      }
      if (button?.kind === 'submit') await this.#placeByElimination(targets, filled, signature);
      await this.#fillRequiredEmpty(targets, filled);
      if (!button) break;
      if (button.kind === 'submit') await this.#checkRequiredPlaced();
      const state = `${frames[0]?.scan.url}|${signature}|${heading}|${errors.map((e) => e.text).join('|')}|${this.#state.run.corrections}`;
      const visits = visitsOf(this.#state, state) + 1;
      this.#state = recordVisit(this.#state, state);
      if (visits > 2) {
        const said = errors.length ? ` The page says: ${errors.map((e) => quote(e.text, 120)).join('; ')}` : '';
        throw new AgentFailure(
          `The form did not advance past '${heading}' after clicking '${button.button.text}' ${visits} times.${said}`,
        );
      }
      const what = filled.size
        ? `Filled ${filled.size} field(s) on '${heading}'`
        : review
          ? `Reviewed answers on '${heading}'`
          : `On '${heading}'`;
      await this.#ctx.recordStep(`${what}; clicking '${button.button.text}'`);
      this.#ctx.log(`clicking '${button.button.text}' (${button.kind})`);
      await this.watch.arm();
      await clickAndSettle(this.#ctx.page, button, this.#humanFor(this.#ctx.page.url()));
      await this.#settleSubmission();
      this.#state = recordClick(this.#state, button.kind);
    }
    throw new AgentFailure(`The form did not reach a final page within ${MAX_TURNS} steps`);
  }

  /** Waits for the requests the click sent to be checked and answered; a human's corrections are typed on the next turn. */
  async #settleSubmission(): Promise<boolean> {
    const corrections = await this.watch.settle();
    for (const { key, value } of corrections) this.#state = countCorrection(overrideKey(this.#state, key, value, true));
    await this.#ctx.page.waitForLoadState('load', { timeout: 15_000 }).catch(() => undefined);
    return corrections.length > 0;
  }

  /** Runs the first task sentence that names something on this page; true when one ran. */
  async #runTaskStep(heading: string): Promise<boolean> {
    for (const [index, step] of this.#steps.entries()) {
      if (this.#state.run.stepsDone.has(index)) continue;
      const ran = await runTaskStep(this.#ctx.page, step);
      if (!ran) continue;
      this.#state = markStepDone(this.#state, index);
      this.#ctx.log(`task step: ${step.text}`);
      await this.#ctx.recordStep(`On '${heading}'; ${step.text} (from the task)`);
      await this.#ctx.page.waitForLoadState('load', { timeout: 15_000 }).catch(() => undefined);
      return true;
    }
    return false;
  }

  #checkAbort(): void {
    if (this.#ctx.signal.aborted) throw new AgentFailure('The job was cancelled', { cause: this.#ctx.signal.reason });
  }

  /** Entries to place on a page: unplaced ones, plus those placed before on a page with the same fields. */
  #pending(signature: string, done: Set<string>): Entry[] {
    const placedHere = (key: string): boolean => {
      const placed = keyState(this.#state, key).placed;
      return !placed || placed.signature === signature;
    };
    const open = (e: Entry): boolean => !done.has(e.key) && !isDeclined(this.#state, e.key) && placedHere(e.key);
    const ranges = this.#ranges.filter((r) => r.leaves.every((k) => !done.has(k) && placedHere(k)) && open(r.entry));
    return [...ranges.map((r) => r.entry), ...this.#entries.filter(open)];
  }

  /**
   * Keys the rules left unmatched, mapped by the assist model (when the portal has one) to the free
   * controls of this page. The model names controls only; values still go through the option rules.
   */
  async #mapUnmatched(
    signature: string,
    pending: Entry[],
    targets: Target[],
    placements: Placement[],
    ambiguous: Entry[],
  ): Promise<Placement[]> {
    if (!this.#mapper || this.#state.run.mapped.has(signature)) return [];
    const placedKeys = new Set([...placements.map((p) => p.entry.key), ...ambiguous.map((e) => e.key)]);
    const keys = pending.filter((e) => !placedKeys.has(e.key) && !isPlaced(this.#state, e.key));
    const taken = new Set(placements.map((p) => p.target.id));
    const free = targets.filter((t) => !taken.has(t.id) && !t.hasValue);
    if (!keys.length || !free.length) return [];
    this.#state = markMapped(this.#state, signature);
    const mapping = await this.#mapper.map({
      structure: signature,
      pageUrl: this.#ctx.page.url(),
      signal: this.#ctx.signal,
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
    });
    const out: Placement[] = [];
    const used = new Set<string>();
    for (const entry of keys) {
      const target = free[mapping.get(entry.key) ?? -1];
      if (!target || used.has(target.id) || compatibility(entry.value, target) === 0) continue;
      used.add(target.id);
      this.#state = markChosen(this.#state, entry.key, 'model');
      out.push({ entry, target, score: 1 });
    }
    return out;
  }

  /** The options of a "which field" question: labels, made distinct with the control's name where two read alike. */
  #fieldOptions(targets: Target[]): string[] {
    const labels = targets.map((t) => t.label);
    return targets.map((t, i) =>
      labels.indexOf(t.label) !== labels.lastIndexOf(t.label) || !t.label ? describeTarget(t) : (labels[i] as string),
    );
  }

  /** Fills what the page shows; `settled` is a scan taken after the last fill, when the last pass made one. */
  async #fillPage(signature: string, fresh?: Scanned): Promise<{ filled: Set<string>; settled: Scanned | undefined }> {
    const filled = new Set<string>();
    const doneKeys = new Set<string>();
    const pageValues: Array<{ entry: Entry; value: unknown }> = [];
    const first = (await this.#addRows()) ? undefined : fresh;
    for (let pass = 0; pass < REVEAL_PASSES; pass += 1) {
      // Each pass rescans: choosing a radio or option may reveal conditional fields. The first pass
      // may use the scan the caller just took, when nothing has touched the page since.
      const scanned = pass === 0 && first ? first : await scanAll(this.#ctx);
      const targets = buildTargets(scanned).filter((t) => !filled.has(t.id));
      const pending = this.#pending(signature, doneKeys);
      const layout = arrayRows(
        pending,
        buildTargets(scanned),
        scanned.flatMap((f) => f.scan.buttons),
      );
      const { placements, ambiguous } = matchScoped(pending, targets, layout);
      placements.push(
        ...(await this.#mapUnmatched(
          signature,
          pending,
          targets,
          placements,
          ambiguous.map((a) => a.entry),
        )),
      );
      for (const amb of ambiguous) {
        const options = [...this.#fieldOptions(amb.candidates), NONE_OF_THESE];
        const picked = await askForOption(
          this.#ctx,
          {
            question: `Which field should receive form_data '${amb.entry.key}' (${loggable(amb.entry)})?`,
            options,
            message: `'${amb.entry.key}' matches several fields equally well.`,
          },
          `form_data key '${amb.entry.key}' is ambiguous: it matches ${amb.candidates.map((t) => `'${t.label}'`).join(' and ')} equally well; rename the key or add a schema title, or enable human_in_the_loop to be asked`,
        );
        const target = amb.candidates[picked];
        if (!target) {
          this.#state = declineKey(this.#state, amb.entry.key);
          doneKeys.add(amb.entry.key);
          continue;
        }
        this.#state = markChosen(this.#state, amb.entry.key, 'answer');
        placements.push({ entry: amb.entry, target, score: 1 });
      }
      let manualFilled = false;
      for (const target of targets) {
        const manual = this.#state.run.manual.get(controlKey(target));
        if (manual !== undefined && !filled.has(target.id) && !placements.some((p) => p.target.id === target.id)) {
          await this.#fillOne(target, manual, null, signature);
          filled.add(target.id);
          manualFilled = true;
        }
      }
      if (!placements.length && !manualFilled) return { filled, settled: scanned };
      for (const placement of placements) {
        const { entry, target } = placement;
        if (filled.has(target.id)) continue;
        await this.#fillOne(
          target,
          valueFor(this.#state, entry),
          entry,
          signature,
          placement.byOptions ? 'options' : 'name',
        );
        filled.add(target.id);
        doneKeys.add(entry.key);
        pageValues.push({ entry, value: valueFor(this.#state, entry) });
      }
      await this.#fillConfirmations(targets, filled, pageValues);
    }
    return { filled, settled: undefined };
  }

  /**
   * Field arrays: while the page shows fewer rows than form_data has items, clicks the form's own
   * "Add …" control for that array (bounded by the item count); true when it clicked.
   */
  async #addRows(): Promise<boolean> {
    const clicks = new Map<string, number>();
    let clicked = false;
    for (let round = 0; round < 12; round += 1) {
      const pending = this.#entries.filter((e) => e.item && !isPlaced(this.#state, e.key));
      if (!pending.length) return clicked;
      const scanned = await scanAll(this.#ctx);
      const buttons = scanned.flatMap((f) => f.scan.buttons);
      const next = arrayRows(pending, buildTargets(scanned), buttons).find(
        (l) => l.add && (clicks.get(l.array) ?? 0) < l.items,
      );
      if (!next?.add) return clicked;
      const frame = scanned.find((f) => f.scan.buttons.includes(next.add as (typeof buttons)[number]))?.frame;
      if (!frame) return clicked;
      clicks.set(next.array, (clicks.get(next.array) ?? 0) + 1);
      this.#ctx.log(
        `${next.array}: ${next.rows.length} row(s) shown for ${next.items} item(s); clicking '${next.add.text}'`,
      );
      await frame.locator(`[data-portico-id="${next.add.pid}"]`).click({ timeout: 5000 });
      clicked = true;
    }
    return clicked;
  }

  /** "Confirm email address" / "Re-enter password" fields get the value of the field they repeat. */
  async #fillConfirmations(
    targets: Target[],
    filled: Set<string>,
    pageValues: Array<{ entry: Entry; value: unknown }>,
  ): Promise<void> {
    const REPEAT = /^\s*(confirm|repeat|re-?enter|re-?type|verify)\b|\b(again|confirmation)\s*$/i;
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
      if (!best) continue;
      const { shown } = await fillTarget(this.#env(), target, best.value, {});
      filled.add(target.id);
      this.#ctx.log(
        `${best.entry.key} (repeated) → ${describeTarget(target)}${best.entry.secret ? '' : ` = ${loggable(best.entry, shown)}`}`,
      );
    }
  }

  async #fillOne(
    target: Target,
    value: unknown,
    entry: Entry | null,
    signature: string,
    matchedBy: MatchedBy = 'name',
  ): Promise<void> {
    this.#checkAbort();
    const options = entry ? fillOptionsFor(this.#state, entry) : {};
    let current = value;
    if (entry) {
      current = await settleAmbiguousDate(this.#ctx, entry, target, value);
      if (current !== value) this.#state = overrideKey(this.#state, entry.key, current);
    }
    const name = entry ? `form_data '${entry.key}'` : `the answer for '${target.label}'`;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const filledWith = await fillTarget(this.#env(), target, current, options);
        let { shown } = filledWith;
        const { how } = filledWith;
        if (entry) {
          const read = await this.#readBack(target, entry, current, shown);
          if (read.retype !== undefined) {
            current = read.retype;
            this.#state = overrideKey(this.#state, entry.key, current);
            continue;
          }
          shown = read.shown;
          if (read.accepted) this.#state = markAnswered(this.#state, entry.key);
          this.#state = addTried(this.#state, entry.key, `rendered:${shown}`);
          const check = await placedCheckFor(
            target,
            entry.key,
            current,
            shown,
            entry.secret || target.controls.some((c) => c.type === 'password'),
            filledWith,
          );
          // A date range placed as one value places both of its keys.
          this.#state = placeKey(
            this.#state,
            entry.key,
            {
              signature,
              controlKey: controlKey(target),
              label: target.label,
              shown: entry.secret ? '[secret]' : shown,
              how: howFor(this.#state, entry.key, how),
              matchedBy: matchedByFor(this.#state, entry.key, matchedBy),
              check,
            },
            this.#ranges.find((r) => r.entry.key === entry.key)?.leaves,
          );
          this.#ctx.log(
            `${entry.key} → ${describeTarget(target)}${entry.secret ? '' : ` = ${loggable(entry, shown)}`} (${howFor(this.#state, entry.key, how)})`,
          );
        } else {
          this.#ctx.log(`(answer) → ${describeTarget(target)}`);
        }
        return;
      } catch (error) {
        if (!(error instanceof FillProblem)) throw error;
        // A human's answer is matched to an option before it is used, so a second problem is the widget's, not the value's.
        if (attempt > 0) throw new AgentFailure(`Cannot fill ${name}: ${error.message}`, { cause: error });
        current = await this.#askInstead(target, entry, current, error);
        if (entry) this.#state = overrideKey(this.#state, entry.key, current, true);
      }
    }
  }

  /**
   * Reads a typed value back from its control and compares meanings (sameMeaning.ts): a mask that
   * changed digits, a picker that moved the date, never pass. A phone number is first retyped in its
   * other spellings (national, without the +); then a human keeps it, corrects it or cancels, or the job fails.
   */
  async #readBack(
    target: Target,
    entry: Entry,
    value: unknown,
    shown: string,
  ): Promise<{ shown: string; retype?: string; accepted?: boolean }> {
    if (!['text', 'textarea', 'date', 'editable'].includes(target.kind) || typeof value === 'object') return { shown };
    const given = asText(value);
    const options = realChoices(target.choices).map((c) => ({ label: c.label, value: c.value }));
    if (!given || sameMeaning(given, shown, { options }) === 'same') return { shown };
    const { tried } = keyState(this.#state, entry.key);
    const variant = /^\+?[\d\s().\-]{7,}$/.test(given.trim())
      ? phoneVariants(given).find((v) => !tried.has(`readback:${v}`))
      : undefined;
    this.#state = addTried(this.#state, entry.key, `readback:${given}`);
    if (variant !== undefined && !keyState(this.#state, entry.key).answered) {
      this.#state = addTried(this.#state, entry.key, `readback:${variant}`);
      this.#ctx.log(
        `${entry.key}: '${target.label}' changed the value as typed; typing it as ${entry.secret ? 'another spelling' : `'${variant}'`}`,
      );
      return { shown, retype: variant };
    }
    const original = asText(entry.value);
    const took = entry.secret ? 'a different value' : `'${shown}'`;
    const gave = entry.secret ? 'another' : `'${original}'`;
    const failure = `'${target.label}' took ${took} for form_data '${entry.key}' but form_data gave ${gave}: the field changed its meaning (enable human_in_the_loop to be asked)`;
    const picked = await askForOption(
      this.#ctx,
      {
        question: `'${target.label}' shows ${took} for ${entry.key}; you gave ${gave}.`,
        options: ['Keep', 'Correct', 'Cancel'],
        message:
          'The field changed the value as it was typed. Keep what it shows, Correct the value to type, or Cancel the job.',
      },
      failure,
    );
    if (picked === 0) return { shown, accepted: true };
    if (picked === 2)
      throw new AgentFailure(
        `Cancelled by a human: '${target.label}' took ${took} for form_data '${entry.key}' instead of ${gave}`,
      );
    const answer = await askOrFail(
      this.#ctx,
      {
        question: `What should be typed into '${target.label}' for ${entry.key}?`,
        options: [],
        message: `It shows ${took}.`,
      },
      failure,
    );
    this.#state = markAnswered(this.#state, entry.key);
    return { shown, retype: answer };
  }

  /**
   * What to put in `target` instead of a value it cannot take: one of its real options, chosen by a
   * human (asked again once if the answer is none of them), or a replacement typed by a human.
   */
  async #askInstead(target: Target, entry: Entry | null, value: unknown, problem: FillProblem): Promise<string> {
    const name = entry ? `form_data '${entry.key}'` : `the answer for '${target.label}'`;
    const failure = `Cannot fill ${name}: ${problem.message}${problem.choices.length ? ` (options: ${problem.choices.slice(0, 15).join(', ')})` : ''}; enable human_in_the_loop to be asked`;
    const message = entry
      ? `${name} is ${entry.secret ? 'a secret value' : quote(asText(value), 80)}.`
      : `The answer was ${quote(asText(value), 80)}.`;
    if (!problem.choices.length) {
      return askOrFail(
        this.#ctx,
        { question: `${problem.message}. What should be entered instead?`, options: [], message },
        failure,
      );
    }
    const index = await askForOption(
      this.#ctx,
      { question: `${problem.message}. Which should I choose?`, options: problem.choices, message },
      failure,
    );
    return problem.choices[index] as string;
  }

  /** Applies corrections for messages the page shows; asks or fails when it has none. */
  async #handleErrors(errors: PageError[]): Promise<void> {
    for (const error of errors) {
      if (!error.target) {
        this.#ctx.log(`page message: ${quote(error.text)}`);
        continue;
      }
      const key = controlKey(error.target);
      const entry = entryAtControl(this.#state, this.#allEntries(), key);
      // A message on a field a pending key will fill (a page that validated as it appeared: React swapping
      // a "Next" button for a submit button under the click): filling it is the answer, not a question.
      const target = error.target;
      if (
        !entry &&
        this.#entries.some(
          (e) =>
            !isPlaced(this.#state, e.key) &&
            !isDeclined(this.#state, e.key) &&
            scoreMatch(e, target) >= MATCH_THRESHOLD,
        )
      ) {
        this.#ctx.log(`page message on '${target.label}': ${quote(error.text, 120)}; a form_data key will fill it`);
        continue;
      }
      if (!entry) {
        const answer = await this.#askForField(
          error.target,
          {
            question: `What should be entered for '${error.target.label}'?`,
            message: `The page says ${quote(error.text)} and form_data has no value for it.`,
          },
          `The page requires '${error.target.label}': ${quote(error.text)}, and no form_data key matches it; enable human_in_the_loop to be asked`,
        );
        this.#state = countCorrection(rememberManual(this.#state, key, answer));
        continue;
      }
      const known = keyState(this.#state, entry.key);
      const tried = new Set(known.tried);
      const correction = nextCorrection(entry, error.target, error.text, tried, known.override?.value);
      this.#state = addTried(this.#state, entry.key, ...tried);
      if (correction) {
        this.#ctx.log(`${entry.key}: the page said ${quote(error.text, 120)}; retrying with ${correction.note}`);
        if (correction.value !== undefined) this.#state = overrideKey(this.#state, entry.key, correction.value);
        if (correction.dateFormat) this.#state = setDateFormat(this.#state, entry.key, correction.dateFormat);
        this.#state = countCorrection(this.#state);
        continue;
      }
      const answer = await this.#askForField(
        error.target,
        {
          question: `The page rejected '${error.target.label}'. What value should be entered?`,
          message: `form_data '${entry.key}' was rejected: ${quote(error.text)}`,
        },
        `The page rejected '${error.target.label}' (form_data key '${entry.key}'): ${quote(error.text)}; no correction left to try`,
      );
      this.#state = countCorrection(overrideKey(this.#state, entry.key, answer, true));
    }
  }

  /** HTML5 constraint validation blocks submission silently: correct filled controls that are :invalid. */
  async #fixConstraintErrors(
    frames: Scanned,
    targets: Target[],
    filled: Set<string>,
    signature: string,
  ): Promise<boolean> {
    const pids = new Set(targets.filter((t) => filled.has(t.id)).flatMap((t) => t.controls.map((c) => c.pid)));
    let changed = false;
    for (let round = 0; round < 4; round += 1) {
      const errors = readErrors(frames, targets, pids).filter(
        (e) => e.target && filled.has(e.target.id) && e.target.controls.some((c) => !c.valid),
      );
      if (!errors.length) return changed;
      await this.#handleErrors(errors);
      for (const error of errors) {
        const target = error.target as Target;
        const entry = entryAtControl(this.#state, this.#allEntries(), controlKey(target));
        if (entry) await this.#fillOne(target, valueFor(this.#state, entry), entry, signature);
      }
      changed = true;
      frames = await scanAll(this.#ctx);
      targets = buildTargets(frames);
    }
    return changed;
  }

  /** A value for `target` from a human: one of its real options when it has options, else free text. */
  async #askForField(
    target: Target,
    question: { question: string; message: string },
    failure: string,
  ): Promise<string> {
    const options = realChoices(target.choices).map((c) => c.label);
    if (!options.length) return askOrFail(this.#ctx, { ...question, options }, failure);
    return options[await askForOption(this.#ctx, { ...question, options }, failure)] as string;
  }

  /**
   * Before the final submit, the one required key left and the one required empty control left go
   * together, when the value fits the control unmistakably (an option it names, a date for a date,
   * a yes/no for a checkbox, a file for an upload, shared words for a text box).
   */
  async #placeByElimination(targets: Target[], filled: Set<string>, signature: string): Promise<void> {
    const keys = this.#entries.filter(
      (e) => e.required && !isPlaced(this.#state, e.key) && !isDeclined(this.#state, e.key),
    );
    const taken = takenControls(this.#state);
    const empty = targets.filter((t) => t.required && !t.hasValue && !filled.has(t.id) && !taken.has(controlKey(t)));
    const [entry] = keys;
    const [target] = empty;
    if (keys.length !== 1 || empty.length !== 1 || !entry || !target || !eliminationFits(entry, target)) return;
    this.#ctx.log(
      `${entry.key}: the only required key left, for the only required field left (${describeTarget(target)})`,
    );
    await this.#fillOne(target, valueFor(this.#state, entry), entry, signature, 'elimination');
    filled.add(target.id);
  }

  /** A visible required control still empty means the page wants data form_data lacks. */
  async #fillRequiredEmpty(targets: Target[], filled: Set<string>): Promise<void> {
    for (const target of targets) {
      if (!target.required || target.hasValue || filled.has(target.id)) continue;
      const unplaced = this.#entries.filter((e) => !isPlaced(this.#state, e.key)).map((e) => e.key);
      const answer = await this.#askForField(
        target,
        {
          question: `What should be entered for '${target.label}'?`,
          message: `The page requires '${target.label}' and no form_data key matches it.`,
        },
        `The page requires ${describeTarget(target)} but no form_data key matches it${unplaced.length ? ` (unplaced keys: ${unplaced.join(', ')})` : ''}; enable human_in_the_loop to be asked`,
      );
      this.#state = rememberManual(this.#state, controlKey(target), answer);
      await this.#fillOne(target, answer, null, '');
      filled.add(target.id);
    }
  }

  /** Before the final submit: every schema-required key must have found a control (or a human said where it goes). */
  async #checkRequiredPlaced(): Promise<void> {
    for (const entry of this.#entries) {
      if (!entry.required || isPlaced(this.#state, entry.key) || isDeclined(this.#state, entry.key)) continue;
      const taken = takenControls(this.#state);
      const targets = buildTargets(await scanAll(this.#ctx)).filter((t) => !taken.has(controlKey(t)));
      const picked = await askForOption(
        this.#ctx,
        {
          question: `Which field should receive form_data '${entry.key}' (${loggable(entry)})?`,
          options: [...this.#fieldOptions(targets), NONE_OF_THESE],
          message: `No control on the page matches the required key '${entry.key}'.`,
        },
        `No control on the page matches the required form_data key '${entry.key}' (tried name, id, label, placeholder, aria, legend, hint and the schema title); enable human_in_the_loop to be asked`,
      );
      const target = targets[picked];
      if (!target) {
        this.#state = declineKey(this.#state, entry.key);
        continue;
      }
      this.#state = markChosen(this.#state, entry.key, 'answer');
      await this.#fillOne(target, valueFor(this.#state, entry), entry, '');
    }
  }
}
