import type { Frame } from 'playwright-core';
import { scriptableFrames } from '../../browser/frameAccess.ts';

import type { HumanInput } from '../../browser/humanInput.ts';
import { AgentFailure, type AgentContext, type StepCapture } from '../agentTypes.ts';
import { DEFAULT_WAIT_BUDGET, MarkGone, describeWaitTimeout, isWaitTimeout, whileMarked } from '../waitBudget.ts';
import { FillProblem, fillTarget, type FillEnv } from './controlFiller.ts';
import { locate } from './fillBase.ts';
import { settleAmbiguousDate } from './dateAmbiguity.ts';
import { loggable, type Entry } from './entries.ts';
import type { Placement } from './fieldMatcher.ts';
import type { KeyMapper } from './keyMapper.ts';
import { changedAfterRead, clickAndSettle, watchClick } from './navigation.ts';
import {
  addTried,
  countCorrection,
  declineKey,
  fillOptionsFor,
  howFor,
  initialFillState,
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
  unplacedKeys,
  valueFor,
  type FillState,
  type MatchedBy,
  type PlacedValue,
  type UnplacedKey,
} from './fillState.ts';
import { scanFrame, type FrameScan } from './frameScan.ts';
import {
  acceptMapping,
  answerError,
  readBackVerdict,
  clickRecord,
  confirmationFills,
  constraintFixes,
  controlKey,
  headingOf,
  heldQuestion,
  manualFills,
  mapperQuestion,
  matchedByRule,
  next,
  plan,
  arrayItemsPending,
  rangeEntries,
  requiredEmptyQuestion,
  requiredKeyOpen,
  requiredKeyQuestion,
  rowToAdd,
  runEntries,
  signatureOf,
  type ClickStep,
  type PagePlan,
  type RunEntries,
  type ScannedFrames,
} from './plan.ts';
import { runTaskStep, taskSteps, type TaskStep } from './taskSteps.ts';
import { placedCheckFor, rangeLeafChecks } from './placedCheck.ts';
import { askForOption, askOrFail, quote } from './questions.ts';
import type { Mismatch } from './submissionCheck.ts';
import { SubmissionWatch, type HeldDecision } from './submissionWatch.ts';
import { buildTargets, describeTarget, type Target } from './targets.ts';
import { readErrors, type PageError } from './validationReader.ts';
import { afterSubmission } from './submissionGuard.ts';
import { asText, realChoices } from './valueAdapter.ts';

const MAX_TURNS = 30;
/** The form left the page after its submission was seen answered: the run is over. */
class SubmittedAway extends Error {}

const REVEAL_PASSES = 4;

export type { MatchedBy, PlacedValue, UnplacedKey };

export interface WizardOutcome {
  placed: Map<string, PlacedValue>;
  unplaced: UnplacedKey[];
  frames: Array<{ frame: Frame; scan: FrameScan }>;
  /**
   * The final page's step screenshot, started when the last click's wait ended on a confirmation, while the page was
   * read and its quiet period ran: given when the tail saw no change since and nothing acted on the page.
   */
  shot?: StepCapture;
}

type Scanned = ScannedFrames;

/** Scans every frame of the page a script can reach (iframes included, cross-origin too). */
export async function scanAll(ctx: AgentContext): Promise<Scanned> {
  const out: Scanned = [];
  for (const frame of scriptableFrames(ctx.page)) {
    const scan = await scanFrame(frame);
    if (scan) out.push({ frame, scan });
  }
  return out;
}

export { rangeEntries };

/** Walks the form page by page: fill, correct what the page rejects, click on, until a final page. */
export class Wizard {
  readonly #ctx: AgentContext;
  /** The form_data leaves to place, and the date-range pairs among them. */
  readonly #run: RunEntries;
  readonly #humanFor: (url: string) => HumanInput | null;
  /** Everything the run has learnt, one value replaced by fillState.ts's pure transitions. */
  #state: FillState = initialFillState();
  /** Holds and checks what the form sends after each click (submissionWatch.ts). */
  readonly watch: SubmissionWatch;
  /** The task's click/choose sentences, each run at most once, on a page where it applies. */
  readonly #steps: TaskStep[];
  readonly #mapper: KeyMapper | null;
  /** The controls (`controlKey`) of the page the last button was clicked on. */
  #clickedForm: Set<string> | null = null;
  /** The frame whose page drew a confirmation when its click's wait ended: the next read is checked against its tail (`changedAfterRead`). */
  #tail: Frame | null = null;
  /** The page as the last click's settle scanned it, when nothing was done or waited for after it: the next turn's read. */
  #carried: Scanned | null = null;
  /** The capture started when the click `click` (the watch's count) ended its wait on a confirmation (`#tail`). */
  #tailShot: { capture: StepCapture; click: number } | undefined;

  constructor(
    ctx: AgentContext,
    entries: Entry[],
    humanFor: (url: string) => HumanInput | null,
    mapper: KeyMapper | null = null,
  ) {
    this.#ctx = ctx;
    this.#run = runEntries(entries);
    this.#humanFor = humanFor;
    this.#mapper = mapper;
    this.#steps = taskSteps(ctx.task);
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
    const held = heldQuestion(m);
    const picked = await askForOption(this.#ctx, held.question, held.failure);
    if (picked === 0) {
      this.#ctx.log(`${m.key}: a human chose to send the changed value`);
      return { send: true };
    }
    if (picked === 2) throw new AgentFailure(held.cancelled);
    const value = await askOrFail(this.#ctx, held.correct, held.failure);
    return { correct: { key: m.key, value } };
  }

  #env(): FillEnv {
    // The filler acts on the page: what it sends from now on is not the last click's (submissionWatch.ts).
    this.watch.typing();
    return {
      page: this.#ctx.page,
      human: this.#humanFor(this.#ctx.page.url()),
      log: (line) => this.#ctx.log(line),
      budget: this.#ctx.budget ?? DEFAULT_WAIT_BUDGET,
    };
  }

  /** The run's state as it is now (for tests and diagnostics; replaced, never changed in place). */
  get state(): FillState {
    return this.#state;
  }

  /** Runs to the final page. */
  async run(): Promise<WizardOutcome> {
    this.#state = startRun(this.#state);
    this.#tail = null;
    this.#carried = null;
    this.#tailShot = undefined;
    for (; this.#state.run.turn < MAX_TURNS; this.#state = nextTurn(this.#state)) {
      this.#checkAbort();
      let frames = this.#takeCarried() ?? (await scanAll(this.#ctx));
      let targets = buildTargets(frames);
      // The last click's page drew a confirmation and was read before its quiet period ended: read again if it changed since.
      if (this.#tail && (await this.#changedAfterRead(this.#tail))) continue;
      // Script-rendered start pages (SPAs) may show their form a moment after `load`: looked for again every
      // 100 ms (a loaded machine renders late), for as long as before (3.2 s).
      for (
        let wait = 0;
        this.#state.run.turn === 0 &&
        wait < 32 &&
        !targets.length &&
        !frames.some((f) => f.scan.buttons.some((b) => b.visible));
        wait += 1
      ) {
        await this.#ctx.page.waitForTimeout(100);
        frames = await scanAll(this.#ctx);
        targets = buildTargets(frames);
      }
      const signature = signatureOf(targets);
      const errors = readErrors(frames, targets);
      const done = (): WizardOutcome => ({
        placed: placedValues(this.#state),
        unplaced: unplacedKeys(this.#state, this.#run.entries),
        frames,
        ...this.#finalShot(),
      });
      // The form still shows after its submission was answered (drawn late, or reset): the run is over.
      if (await this.#submittedAlready(targets, errors)) return done();
      if (errors.length) await this.#handleErrors(errors);
      let filled: Set<string>;
      try {
        const page = await this.#fillPage(signature, errors.length ? undefined : frames);
        filled = page.filled;
        frames = page.settled ?? (await scanAll(this.#ctx));
      } catch (error) {
        // A control went away with the form after its submission was seen answered: nothing more to fill.
        if (!(error instanceof SubmittedAway)) throw error;
        frames = await scanAll(this.#ctx);
        return done();
      }
      targets = buildTargets(frames);
      if (await this.#fixConstraintErrors(frames, targets, filled, signature)) {
        frames = await scanAll(this.#ctx);
        targets = buildTargets(frames);
      }
      const decided = next({ frames, targets, filled, errors, signature }, this.#state, this.#run);
      // Nothing on this page takes a value yet: a sentence of the task naming a link or button here ("Click the
      // 'Open the application' link") is the way on.
      if (decided.tryTaskStep && (await this.#runTaskStep(headingOf(frames)))) continue;
      const { step } = decided;
      if (step.kind === 'finish') {
        if (await this.#settleSubmission()) continue;
        return done();
      }
      // About to click a submit button after a submit (or with a request of the last click seen late): the last
      // click's submission may have been answered meanwhile; the form it sent is never sent again (afterSubmission).
      if (
        step.kind === 'click' &&
        (this.watch.lateWaiting || (step.button.kind === 'submit' && this.#state.run.lastKind === 'submit'))
      ) {
        if (await this.#settleSubmission()) continue;
        if (await this.#submittedAlready(targets, readErrors(frames, targets))) return done();
      }
      if (step.kind === 'noButton') {
        await this.#fillRequiredEmpty(step.requiredEmpty, filled);
        break;
      }
      await this.#applyClick(step, filled, signature, targets);
    }
    throw new AgentFailure(`The form did not reach a final page within ${MAX_TURNS} steps`);
  }

  /** Settles what must be settled before the click `step` decided (elimination, required fields and keys), then clicks. */
  async #applyClick(step: ClickStep, filled: Set<string>, signature: string, targets: Target[]): Promise<void> {
    const { button } = step;
    if (step.eliminate) {
      const { entry, target } = step.eliminate;
      this.#ctx.log(
        `${entry.key}: the only required key left, for the only required field left (${describeTarget(target)})`,
      );
      await this.#fillOne(target, valueFor(this.#state, entry), entry, signature, 'elimination');
      filled.add(target.id);
    }
    await this.#fillRequiredEmpty(step.requiredEmpty, filled);
    await this.#checkRequiredPlaced(step.requiredUnplaced);
    this.#state = recordVisit(this.#state, step.visitKey);
    if (step.stuck) throw new AgentFailure(step.stuck);
    // The step's screenshot, the submission watch's routing (its first install is a round trip of its own) and
    // the page's watch for the click's effect are made together: none acts on the page (the click watch counts
    // changes from the click's own input events on), and all are done before the click. All are waited for,
    // whichever fails: a watch armed after its job failed would be left routing the page.
    const watching = watchClick(button.frame);
    for (const done of await Promise.allSettled([
      this.#ctx.recordStep(clickRecord(step, filled.size)),
      this.watch.arm(),
      watching,
    ]))
      if (done.status === 'rejected') throw done.reason;
    this.#ctx.log(`clicking '${button.button.text}' (${button.kind})`);
    this.#clickedForm = new Set(targets.map(controlKey));
    let gone = false;
    let scan: FrameScan | null = null;
    try {
      // A `next` click's settle scans the page as it answers (a submit's scan runs during its tail anyway).
      ({ tail: this.#tail, scan } = await clickAndSettle(
        this.#ctx.page,
        button,
        this.#humanFor(this.#ctx.page.url()),
        this.#ctx.budget ?? DEFAULT_WAIT_BUDGET,
        watching,
        button.kind === 'next',
      ));
    } catch (error) {
      if (!(error instanceof MarkGone)) throw error;
      gone = true;
    }
    // That scan is the next turn's read only when the submission watch had nothing to wait for (no request of the
    // click's held, checked or seen, before or during its settle): then nothing ran between the scan and that turn.
    const idle = this.watch.idle;
    // The click's wait ended on a confirmation: the final page's screenshot is started now, while the page is read
    // and its quiet period runs (`#tail`); it is used only if that tail sees no change since (#finalShot).
    this.#tailShot =
      this.#tail && this.#ctx.captureStep ? { capture: this.#ctx.captureStep(), click: this.watch.clicks } : undefined;
    await this.#settleSubmission();
    this.#carried = scan && idle && this.watch.idle ? [{ frame: button.frame, scan }] : null;
    if (gone) {
      // The button left the page before the click was reported done. Its request seen and answered says the click
      // went through (a loaded machine reports a click late; the page then drew the form again): it counts, and the
      // form is not sent again. Else it was drawn again before it could be clicked: the page is read again.
      if (!this.watch.answeredSinceClick()) {
        this.#ctx.log(`'${button.button.text}' was drawn again before it could be clicked; reading the page again`);
        return;
      }
      this.#ctx.log(`'${button.button.text}' left the page after its click was sent and answered`);
    }
    this.#state = recordClick(this.#state, button.kind);
  }

  /**
   * Whether the run is over although a form still shows: the last click was a submit, the request it sent
   * carried placed values and was answered 2xx/3xx (submissionWatch.ts), the page shows no error, and every
   * control it shows was on the form that was submitted (the same form, drawn again or reset; a page with
   * other fields is the next step, a page with none is read as before).
   */
  async #submittedAlready(targets: Target[], errors: PageError[]): Promise<boolean> {
    const answered =
      this.#state.run.lastKind === 'submit' && this.#clickedForm && this.watch.answeredSinceClick()
        ? this.#clickedForm
        : null;
    if (afterSubmission({ answered, shown: targets.map(controlKey), errors: errors.length }) !== 'submitted')
      return false;
    this.#ctx.log('the submitted form still shows after its submission was answered: done');
    return true;
  }

  /** The scan the last click's settle made (`#carried`), once, while its frame is still the page's only one; else null. */
  #takeCarried(): Scanned | null {
    const carried = this.#carried;
    this.#carried = null;
    const frames = scriptableFrames(this.#ctx.page);
    return carried && frames.length === 1 && frames[0] === carried[0]?.frame ? carried : null;
  }

  /**
   * The capture started at the last click's confirmation (`#tailShot`), when it still shows the page: its tail was read
   * and saw no change since the click's wait ended (before the capture started), nothing acted on the page since the
   * click (a fill, a row added, a task step: the watch is disarmed by each), and no other click came after it.
   */
  #finalShot(): { shot?: StepCapture } {
    const shot = this.#tailShot;
    if (!shot || this.#tail || shot.click !== this.watch.clicks || this.watch.actedSinceClick) return {};
    return { shot: shot.capture };
  }

  /** Whether the page changed after the confirmation `tail` drew (an error drawn late): then it is read again. */
  async #changedAfterRead(tail: Frame): Promise<boolean> {
    this.#tail = null;
    if (!(await changedAfterRead(tail))) return false;
    // The capture started at the confirmation may show the page before that change.
    this.#tailShot = undefined;
    this.#ctx.log('the page changed after it showed a confirmation; reading it again');
    return true;
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
      this.watch.typing();
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

  /**
   * Keys the rules left unmatched, mapped by the assist model (when the portal has one) to the free
   * controls of this page. The model names controls only; values still go through the option rules.
   */
  async #mapUnmatched(signature: string, planned: PagePlan): Promise<Placement[]> {
    const asking = this.#mapper ? mapperQuestion(this.#state, signature, planned) : null;
    if (!this.#mapper || !asking) return [];
    this.#state = markMapped(this.#state, signature);
    const mapping = await this.#mapper.map({
      ...asking.request,
      pageUrl: this.#ctx.page.url(),
      signal: this.#ctx.signal,
    });
    const accepted = acceptMapping(asking.keys, asking.free, mapping);
    for (const p of accepted) this.#state = markChosen(this.#state, p.entry.key, 'model');
    return accepted;
  }

  /** Fills what the page shows; `settled` is a scan taken after the last fill, when the last pass made one. */
  async #fillPage(signature: string, fresh?: Scanned): Promise<{ filled: Set<string>; settled: Scanned | undefined }> {
    const filled = new Set<string>();
    const doneKeys = new Set<string>();
    const pageValues: Array<{ entry: Entry; value: unknown }> = [];
    const first = await this.#addRows(fresh);
    for (let pass = 0; pass < REVEAL_PASSES; pass += 1) {
      // Each pass rescans: choosing a radio or option may reveal conditional fields. The first pass
      // may use the scan the caller (or #addRows, after its last click) just took, when nothing has touched the page since.
      const scanned = pass === 0 && first ? first : await scanAll(this.#ctx);
      const planned = plan(scanned, this.#state, this.#run, { signature, done: doneKeys, filled });
      const { targets } = planned;
      const placements = [...planned.placements, ...(await this.#mapUnmatched(signature, planned))];
      for (const ask of planned.ask) {
        const target = ask.candidates[await askForOption(this.#ctx, ask.question, ask.failure)];
        if (!target) {
          this.#state = declineKey(this.#state, ask.entry.key);
          doneKeys.add(ask.entry.key);
          continue;
        }
        this.#state = markChosen(this.#state, ask.entry.key, 'answer');
        placements.push({ entry: ask.entry, target, score: 1 });
      }
      const manual = manualFills(this.#state, targets, filled, placements);
      for (const { target, value } of manual) {
        await this.#fillOne(target, value, null, signature);
        filled.add(target.id);
      }
      if (!placements.length && !manual.length) return { filled, settled: scanned };
      for (const placement of placements) {
        const { entry, target } = placement;
        if (filled.has(target.id)) continue;
        await this.#fillOne(target, valueFor(this.#state, entry), entry, signature, matchedByRule(placement));
        filled.add(target.id);
        doneKeys.add(entry.key);
        pageValues.push({ entry, value: valueFor(this.#state, entry) });
      }
      await this.#fillConfirmations(targets, filled, pageValues);
    }
    return { filled, settled: undefined };
  }

  /**
   * Field arrays: clicks the form's own "Add …" control while `rowToAdd` says the page shows fewer rows
   * than form_data has items (each array's button at most its item count). `fresh`: a scan taken since the
   * page last changed, read for the first round instead of scanning again. Returns the scan that showed no
   * row left to add when nothing was done to the page after it (`fresh` when nothing was clicked), for the
   * first fill pass to plan on; undefined when the page must be read again.
   */
  async #addRows(fresh?: Scanned): Promise<Scanned | undefined> {
    const clicks = new Map<string, number>();
    // No field-array item left to place: no scan spent looking for rows.
    if (!arrayItemsPending(this.#state, this.#run)) return fresh;
    for (let round = 0; round < 12; round += 1) {
      const scanned = round === 0 && fresh ? fresh : await scanAll(this.#ctx);
      const step = rowToAdd(scanned, this.#state, this.#run, clicks);
      // The scan after the last click is the page the fills start on: it is not read a second time.
      if (!step) return scanned;
      clicks.set(step.array, (clicks.get(step.array) ?? 0) + 1);
      this.watch.typing();
      this.#ctx.log(
        `${step.array}: ${step.rows} row(s) shown for ${step.items} item(s); clicking '${step.button.text}'`,
      );
      await step.frame
        .locator(`[data-portico-id="${step.button.pid}"]`)
        .click({ timeout: (this.#ctx.budget ?? DEFAULT_WAIT_BUDGET).ms() });
    }
    return undefined;
  }

  /** "Confirm email address" / "Re-enter password" fields get the value of the field they repeat (`confirmationFills` decides). */
  async #fillConfirmations(
    targets: Target[],
    filled: Set<string>,
    pageValues: Array<{ entry: Entry; value: unknown }>,
  ): Promise<void> {
    for (const { target, entry, value } of confirmationFills(targets, filled, pageValues)) {
      const { shown } = await fillTarget(this.#env(), target, value, {});
      filled.add(target.id);
      this.#ctx.log(
        `${entry.key} (repeated) → ${describeTarget(target)}${entry.secret ? '' : ` = ${loggable(entry, shown)}`}`,
      );
    }
  }

  async #fillOne(
    scanned: Target,
    value: unknown,
    entry: Entry | null,
    signature: string,
    matchedBy: MatchedBy = 'name',
  ): Promise<void> {
    this.#checkAbort();
    let target = scanned;
    let foundAgain = false;
    const options = entry ? fillOptionsFor(this.#state, entry) : {};
    let current = value;
    if (entry) {
      current = await settleAmbiguousDate(this.#ctx, entry, target, value);
      if (current !== value) this.#state = overrideKey(this.#state, entry.key, current);
    }
    const name = entry ? `form_data '${entry.key}'` : `the answer for '${target.label}'`;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const at = target;
        const filledWith = await whileMarked(
          at.frame,
          locate(at),
          () => fillTarget(this.#env(), at, current, options),
          `'${at.label}'`,
        );
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
            // States read with the fill's read-back, unless a human was asked in between (the page is read again then).
            read.accepted ? { ...filledWith, states: undefined } : filledWith,
          );
          // A date range placed as one value places both of its keys, each checked for its own date.
          const leaves = this.#run.ranges.find((r) => r.entry.key === entry.key)?.leaves;
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
            leaves,
            leaves && rangeLeafChecks(check, current, leaves),
          );
          this.#ctx.log(
            `${entry.key} → ${describeTarget(target)}${entry.secret ? '' : ` = ${loggable(entry, shown)}`} (${howFor(this.#state, entry.key, how)})`,
          );
        } else {
          this.#ctx.log(`(answer) → ${describeTarget(target)}`);
        }
        return;
      } catch (error) {
        if (error instanceof MarkGone) {
          // The page drew the control again (a re-render) or took it away: found again by its key once, else the
          // run is over when the form went with its submission answered, else the job fails saying so.
          const again = foundAgain ? null : await this.#findAgain(target);
          if (again) {
            this.#ctx.log(`'${target.label}' (${name}) was drawn again while being filled; filling it again`);
            target = again;
            foundAgain = true;
            continue;
          }
          if (this.watch.lateWaiting) await this.#settleSubmission();
          if (this.#state.run.lastKind === 'submit' && this.watch.answeredSinceClick()) {
            this.#ctx.log(`'${target.label}' (${name}) went away with the form after its submission was answered`);
            throw new SubmittedAway();
          }
          throw new AgentFailure(
            `'${target.label}' (${name}) was taken off the page while it was being filled${foundAgain ? ', again after it was found again' : ''}`,
            { cause: error },
          );
        }
        // The control never became ready within the job's time: the job fails naming the field and the wait.
        if (isWaitTimeout(error))
          throw new AgentFailure(
            (this.#ctx.budget ?? DEFAULT_WAIT_BUDGET).exhausted(
              `'${target.label}' (${name}): ${describeWaitTimeout(error)}`,
            ),
            { cause: error },
          );
        if (!(error instanceof FillProblem)) throw error;
        // A human's answer is matched to an option before it is used, so a second problem is the widget's, not the value's.
        if (attempt > 0) throw new AgentFailure(`Cannot fill ${name}: ${error.message}`, { cause: error });
        current = await this.#askInstead(target, entry, current, error);
        if (entry) this.#state = overrideKey(this.#state, entry.key, current, true);
      }
    }
  }

  /** The control `target` was, in a new scan: the one target of the same kind with its key (name, id, else label). */
  async #findAgain(target: Target): Promise<Target | null> {
    const key = controlKey(target);
    const same = buildTargets(await scanAll(this.#ctx)).filter(
      (t) => t.kind === target.kind && t.frame === target.frame && controlKey(t) === key,
    );
    return same.length === 1 ? (same[0] as Target) : null;
  }

  /** Reads a typed value back from its control (`readBackVerdict` decides); retypes, or asks, or the job fails. */
  async #readBack(
    target: Target,
    entry: Entry,
    value: unknown,
    shown: string,
  ): Promise<{ shown: string; retype?: string; accepted?: boolean }> {
    const verdict = readBackVerdict(target, entry, value, shown, this.#state);
    if (verdict.kind === 'same') return { shown };
    this.#state = addTried(this.#state, entry.key, ...verdict.tried);
    if (verdict.kind === 'retype') {
      this.#ctx.log(
        `${entry.key}: '${target.label}' changed the value as typed; typing it as ${entry.secret ? 'another spelling' : `'${verdict.variant}'`}`,
      );
      return { shown, retype: verdict.variant };
    }
    const picked = await askForOption(this.#ctx, verdict.question, verdict.failure);
    if (picked === 0) return { shown, accepted: true };
    if (picked === 2) throw new AgentFailure(verdict.cancelled);
    const answer = await askOrFail(this.#ctx, verdict.correct, verdict.failure);
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
      const answer = answerError(error, this.#state, this.#run);
      switch (answer.kind) {
        case 'note':
          this.#ctx.log(`page message: ${quote(error.text)}`);
          break;
        case 'willFill':
          this.#ctx.log(
            `page message on '${answer.target.label}': ${quote(error.text, 120)}; a form_data key will fill it`,
          );
          break;
        case 'askValue': {
          const value = await this.#askForField(answer.target, answer.question, answer.failure);
          this.#state = countCorrection(rememberManual(this.#state, answer.controlKey, value));
          break;
        }
        case 'correct': {
          const { entry, correction } = answer;
          this.#state = addTried(this.#state, entry.key, ...answer.tried);
          this.#ctx.log(`${entry.key}: the page said ${quote(error.text, 120)}; retrying with ${correction.note}`);
          if (correction.value !== undefined) this.#state = overrideKey(this.#state, entry.key, correction.value);
          if (correction.dateFormat) this.#state = setDateFormat(this.#state, entry.key, correction.dateFormat);
          this.#state = countCorrection(this.#state);
          break;
        }
        case 'askRejected': {
          this.#state = addTried(this.#state, answer.entry.key, ...answer.tried);
          const value = await this.#askForField(answer.target, answer.question, answer.failure);
          this.#state = countCorrection(overrideKey(this.#state, answer.entry.key, value, true));
          break;
        }
      }
    }
  }

  /** HTML5 constraint validation blocks submission silently: `constraintFixes` says which filled controls to answer and retype. */
  async #fixConstraintErrors(
    frames: Scanned,
    targets: Target[],
    filled: Set<string>,
    signature: string,
  ): Promise<boolean> {
    let changed = false;
    for (let round = 0; round < 4; round += 1) {
      const fixes = constraintFixes(frames, targets, filled, this.#state, this.#run);
      if (!fixes) return changed;
      await this.#handleErrors(fixes.errors);
      for (const { target, entry } of fixes.refills)
        await this.#fillOne(target, valueFor(this.#state, entry), entry, signature);
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

  /** A visible required control still empty means the page wants data form_data lacks. */
  async #fillRequiredEmpty(requiredEmpty: Target[], filled: Set<string>): Promise<void> {
    for (const target of requiredEmpty) {
      const ask = requiredEmptyQuestion(target, filled, this.#state, this.#run);
      if (!ask) continue;
      const answer = await this.#askForField(target, ask.question, ask.failure);
      this.#state = rememberManual(this.#state, controlKey(target), answer);
      await this.#fillOne(target, answer, null, '');
      filled.add(target.id);
    }
  }

  /** Before the final submit: every schema-required key must have found a control (or a human said where it goes). */
  async #checkRequiredPlaced(requiredUnplaced: Entry[]): Promise<void> {
    for (const entry of requiredUnplaced) {
      if (!requiredKeyOpen(this.#state, entry)) continue;
      const ask = requiredKeyQuestion(await scanAll(this.#ctx), this.#state, entry);
      const target = ask.candidates[await askForOption(this.#ctx, ask.question, ask.failure)];
      if (!target) {
        this.#state = declineKey(this.#state, entry.key);
        continue;
      }
      this.#state = markChosen(this.#state, entry.key, 'answer');
      await this.#fillOne(target, valueFor(this.#state, entry), entry, '');
    }
  }
}
