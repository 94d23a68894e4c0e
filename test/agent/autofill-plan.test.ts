// tier: unit
/**
 * The filler's decisions as pure functions (issue 20 item 5), run on page scans recorded from real pages
 * (test/fixtures/scans/, recorded by scripts/capture-scans.ts from the GOV.UK / NHS.UK / USWDS corpus, the
 * React corpus and test/fixtures/forms): which key goes to which control, what is asked, which button
 * moves a wizard on, when a page is the final one — without a browser.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { flattenFormData, type Entry } from '../../src-main/agent/autofill/entries.ts';
import {
  addTried,
  declineKey,
  initialFillState,
  overrideKey,
  markMapped,
  placeKey,
  recordClick,
  recordVisit,
  type FillState,
  type PlacedValue,
} from '../../src-main/agent/autofill/fillState.ts';
import {
  answerError,
  arrayItemsPending,
  confirmationFills,
  constraintFixes,
  elimination,
  mapperQuestion,
  next,
  NONE_OF_THESE,
  pendingEntries,
  plan,
  readBackVerdict,
  requiredEmptyQuestion,
  requiredKeyOpen,
  requiredKeyQuestion,
  rowToAdd,
  runEntries,
  signatureOf,
  type ClickStep,
  type Next,
  type RunEntries,
  type ScannedFrames,
} from '../../src-main/agent/autofill/plan.ts';
import { buildTargets, type Target } from '../../src-main/agent/autofill/targets.ts';
import { readErrors } from '../../src-main/agent/autofill/validationReader.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import type { FrameScan } from '../../src-main/agent/injected/scanTypes.ts';

const SCANS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'scans');

interface ScanFixture {
  source: string;
  page: string;
  formData: JsonObject;
  formSchema: JsonObject;
  frames: Array<{ frame: number; scan: FrameScan }>;
}

/** Stand-ins for the page's frames (the decisions only compare them). */
const FRAMES: Frame[] = [0, 1, 2, 3, 4, 5].map((index) => ({ fixtureFrame: index }) as unknown as Frame);

interface Loaded {
  frames: ScannedFrames;
  targets: Target[];
  run: RunEntries;
  signature: string;
}

function load(name: string, formData?: JsonObject, formSchema?: JsonObject): Loaded {
  const fixture = JSON.parse(readFileSync(join(SCANS, `${name}.json`), 'utf8')) as ScanFixture;
  const frames = fixture.frames.map((f) => ({ frame: FRAMES[f.frame] as Frame, scan: f.scan }));
  const targets = buildTargets(frames);
  const run = runEntries(flattenFormData(formData ?? fixture.formData, formSchema ?? fixture.formSchema));
  return { frames, targets, run, signature: signatureOf(targets) };
}

function planned(page: Loaded, state: FillState = initialFillState()): ReturnType<typeof plan> {
  return plan(page.frames, state, page.run, { signature: page.signature, done: new Set(), filled: new Set() });
}

/** key → the label of the control the plan puts it in. */
function choices(page: Loaded, state?: FillState): Record<string, string> {
  return Object.fromEntries(planned(page, state).placements.map((p) => [p.entry.key, p.target.label]));
}

function placedAt(target: Target, signature: string): PlacedValue {
  const c = target.controls[0];
  return {
    signature,
    controlKey: c?.name || c?.id || target.label,
    label: target.label,
    shown: 'x',
    how: 'exact',
    matchedBy: 'name',
    check: { key: '', label: target.label, given: 'x', names: [], sent: [], options: [], kind: 'text', secret: false },
  };
}

/** A state where every key of `page` the plan places is placed (as after filling the page). */
function filledState(page: Loaded, state: FillState = initialFillState()): FillState {
  let s = state;
  for (const p of planned(page, state).placements) s = placeKey(s, p.entry.key, placedAt(p.target, page.signature));
  return s;
}

function decide(page: Loaded, state: FillState, filled: Set<string> = new Set()): Next {
  return next(
    {
      frames: page.frames,
      targets: page.targets,
      filled,
      errors: readErrors(page.frames, page.targets),
      signature: page.signature,
    },
    state,
    page.run,
  );
}

function click(decided: Next): ClickStep {
  if (decided.step.kind !== 'click') throw new Error(`expected a click, got ${decided.step.kind}`);
  return decided.step;
}

function target(page: Loaded, label: string): Target {
  const found = page.targets.find((t) => t.label === label);
  if (!found) throw new Error(`no target '${label}' (${page.targets.map((t) => t.label).join(', ')})`);
  return found;
}

describe('plan: which key goes to which control (recorded scans)', () => {
  it('a plain registration form: every key to the control its name and label say, nothing asked', () => {
    const page = load('forms-registration.start');
    expect(choices(page)).toEqual({
      full_name: 'Full name',
      email: 'Email address',
      date_of_birth: 'Date of birth',
      country: 'Country',
      consent: 'I agree to the terms',
    });
    expect(planned(page).ask).toEqual([]);
  });

  it('nested keys with schema titles (USWDS address with a combo box): street, unit, city, state and ZIP', () => {
    const page = load('uswds-address-combo-box.start');
    expect(choices(page)).toEqual({
      'mailing_address.street': 'Street address',
      'mailing_address.unit': 'Street address line 2',
      'mailing_address.locality': 'City',
      'mailing_address.region': 'State, territory, or military post',
      'mailing_address.postal_code': 'ZIP code',
    });
  });

  it('radios with conditional reveals (NHS.UK): the groups first; the revealed fields once a choice shows them', () => {
    // As loaded, the conditional text boxes are hidden: only the two radio groups take keys.
    expect(choices(load('nhsuk-radios-conditional.start'))).toEqual({
      needs_interpreter: 'Do you need an interpreter?',
      contact_method: 'How should we contact you about your appointment?',
    });
    // After choosing (the page as the filler left it), the revealed fields take the keys their titles name.
    expect(choices(load('nhsuk-radios-conditional.step-1'))).toEqual({
      needs_interpreter: 'Do you need an interpreter?',
      contact_method: 'How should we contact you about your appointment?',
      preferred_language: 'Which language?',
      email_address: 'Email address',
    });
  });

  it('field arrays (React corpus, Chakra "Add another attendee"): item i goes to row i, the booking contact outside the rows', () => {
    // The page as the filler fills it: one row per attendee (it clicked the form's own Add button first).
    const page = load('chakra-event-registration.step-1');
    const p = planned(page);
    const at = (key: string): Target | undefined => p.placements.find((x) => x.entry.key === key)?.target;
    expect(at('contact_name')?.label).toBe('Your name *');
    expect(at('contact_email')?.label).toBe('Your email address *');
    const order = page.targets.map((t) => t.id);
    for (const leaf of ['full_name', 'email', 'phone']) {
      const first = at(`attendees[0].${leaf}`);
      const second = at(`attendees[1].${leaf}`);
      expect(first?.label, leaf).toBe(second?.label);
      // Row 0 is the first row on the page; the same label in two rows is never a question.
      expect(order.indexOf(first?.id ?? ''), leaf).toBeLessThan(order.indexOf(second?.id ?? ''));
      expect(order.indexOf(first?.id ?? ''), leaf).toBeGreaterThanOrEqual(0);
    }
    expect(p.ask).toEqual([]);
  });

  it('field arrays before their rows exist (Chakra start page, one attendee row): a later item never takes a field outside the rows', () => {
    // The first page shows one attendee row and the booking contact's own "Your name" / "Your email address".
    // attendees[1] waits for its row (the form's "Add another attendee"), else it is asked about: it never goes
    // into the contact's fields, which hold contact_name and contact_email.
    const page = load('chakra-event-registration.start');
    const p = planned(page);
    const at = (key: string): Target | undefined => p.placements.find((x) => x.entry.key === key)?.target;
    for (const leaf of ['full_name', 'email', 'phone']) expect(at(`attendees[1].${leaf}`), leaf).toBeUndefined();
    expect(at('contact_name')?.label).toBe('Your name *');
    expect(at('contact_email')?.label).toBe('Your email address *');
    expect(at('attendees[0].full_name')?.label).toBe('Full name *');
  });

  it('a key two controls fit equally is a question (the fields and "None of these"), never a guess', () => {
    const page = load('forms-ambiguous.start');
    const p = planned(page);
    expect(p.placements).toEqual([]);
    expect(p.ask).toHaveLength(1);
    const [ask] = p.ask;
    expect(ask?.entry.key).toBe('city');
    expect(ask?.candidates.map((t) => t.controls[0]?.name)).toEqual(['c1', 'c2']);
    expect(ask?.question.options.at(-1)).toBe(NONE_OF_THESE);
    expect(ask?.question.options).toHaveLength(3);
    expect(ask?.failure).toMatch(/'city' is ambiguous/);
  });

  it('a later pass offers only the controls not filled yet (a reveal pass never refills a field)', () => {
    const page = load('forms-registration.start');
    const filled = new Set([target(page, 'Full name').id]);
    const p = plan(page.frames, initialFillState(), page.run, { signature: page.signature, done: new Set(), filled });
    expect(p.targets.map((t) => t.label)).not.toContain('Full name');
    expect(p.placements.map((x) => x.entry.key)).not.toContain('full_name');
    expect(p.placements.map((x) => x.entry.key)).toContain('email');
  });

  it('a key placed on another page is not offered again; on a re-rendered page with the same fields it is', () => {
    const page = load('forms-registration.start');
    const email = target(page, 'Email address');
    const elsewhere = placeKey(initialFillState(), 'email', placedAt(email, 'another-page'));
    expect(pendingEntries(elsewhere, page.run, page.signature, new Set()).map((e) => e.key)).not.toContain('email');
    expect(choices(page, elsewhere).email).toBeUndefined();
    const here = placeKey(initialFillState(), 'email', placedAt(email, page.signature));
    expect(choices(page, here).email).toBe('Email address');
  });

  it('the assist model is asked once per page structure, about the keys the rules left and the free controls', () => {
    const page = load('forms-registration.start', {
      full_name: 'Ada Lovelace',
      email: 'ada@example.org',
      shoe_size: '38',
    });
    const asking = mapperQuestion(initialFillState(), page.signature, planned(page));
    expect(asking?.keys.map((e) => e.key)).toEqual(['shoe_size']);
    expect(asking?.request.keys).toEqual([{ key: 'shoe_size', title: '', description: '', kind: 'text' }]);
    // The controls the rules took are not offered; the value itself is never in the request.
    const offered = asking?.request.controls.map((c) => c.label) ?? [];
    expect(offered).not.toContain('Full name');
    expect(offered).toContain('Phone number');
    expect(JSON.stringify(asking?.request)).not.toContain('38');
    expect(mapperQuestion(markMapped(initialFillState(), page.signature), page.signature, planned(page))).toBeNull();
  });
});

describe('next: finish, or which button and what first (recorded scans)', () => {
  it("a start page with no field for any key: the task's steps may run, else its 'Start now' link moves on (never finish)", () => {
    const page = load('govuk-wizard.start');
    const decided = decide(page, initialFillState());
    expect(decided.tryTaskStep).toBe(true);
    const step = click(decided);
    expect(step.button.button.text).toBe('Start now');
    expect(step.button.kind).toBe('next');
    expect(step.requiredUnplaced).toEqual([]);
  });

  it("a wizard's question page, filled: 'Continue' (next), no required-key question before it", () => {
    const page = load('govuk-wizard.step-2');
    const state = filledState(page);
    const filled = new Set(page.targets.map((t) => t.id));
    const decided = decide(page, state, filled);
    expect(decided.tryTaskStep).toBe(false);
    const step = click(decided);
    expect(step.button.button.text).toBe('Continue');
    expect(step.button.kind).toBe('next');
    expect(step.review).toBe(false);
  });

  it('a page with an upload and a Continue button: Continue, not the upload button', () => {
    const page = load('govuk-wizard.step-6');
    const step = click(decide(page, filledState(page), new Set(page.targets.map((t) => t.id))));
    expect(step.button.button.text).toBe('Continue');
  });

  it('the check-your-answers page is recognised and confirmed with its submit button once every required key is placed', () => {
    const page = load('govuk-wizard.step-7');
    expect(page.targets).toEqual([]);
    let state = initialFillState();
    for (const e of page.run.entries)
      state = placeKey(state, e.key, {
        ...placedAt(target(load('govuk-wizard.step-2'), 'What is your full name?'), 'x'),
        controlKey: e.key,
      });
    const step = click(decide(page, state));
    expect(step.review).toBe(true);
    expect(step.button.button.text).toBe('Accept and send');
    expect(step.button.kind).toBe('submit');
    expect(step.requiredUnplaced).toEqual([]);
  });

  it('a required key no control took is asked about (or fails the job) before the submitting click, never sent without', () => {
    const page = load(
      'forms-registration.step-1',
      {
        full_name: 'Ada Lovelace',
        email: 'ada@example.org',
        date_of_birth: '1990-12-10',
        country: 'GB',
        consent: true,
        shoe_size: '38',
      },
      { type: 'object', required: ['full_name', 'email', 'shoe_size'], properties: {} },
    );
    const state = filledState(page);
    const step = click(decide(page, state, new Set(page.targets.map((t) => t.id))));
    expect(step.button.kind).toBe('submit');
    expect(step.button.button.text).toBe('Register');
    expect(step.requiredUnplaced.map((e) => e.key)).toEqual(['shoe_size']);
    // On a page that only moves on, it is not asked yet (a later page may have its field).
    const middle = load(
      'govuk-wizard.step-2',
      { full_name: 'Ada', shoe_size: '38' },
      { type: 'object', required: ['shoe_size'], properties: {} },
    );
    expect(click(decide(middle, filledState(middle))).requiredUnplaced).toEqual([]);
  });

  it("React multi-step forms: Continue, not the progress indicator's step buttons; the last step submits", () => {
    const first = load('carbon-gym-membership.step-1');
    const step1 = click(decide(first, filledState(first), new Set(first.targets.map((t) => t.id))));
    expect(step1.button.button.text).toBe('Continue');
    expect(step1.button.kind).toBe('next');
    const last = load('carbon-gym-membership.step-3');
    let state = initialFillState();
    for (const e of last.run.entries)
      state = placeKey(state, e.key, { ...placedAt(last.targets[0] as Target, 'x'), controlKey: e.key });
    const step3 = click(decide(last, state, new Set(last.targets.map((t) => t.id))));
    expect(step3.button.button.text).toBe('Join now');
    expect(step3.button.kind).toBe('submit');
    expect(step3.requiredUnplaced).toEqual([]);
    const aria = load('react-aria-personal-details.step-2');
    expect(click(decide(aria, filledState(aria), new Set(aria.targets.map((t) => t.id)))).button.button.text).toBe(
      'Continue',
    );
  });

  it('the confirmation page ends the run; so does a page without fields after a submit', () => {
    expect(decide(load('govuk-wizard.step-8'), initialFillState()).step).toEqual({ kind: 'finish' });
    // A confirmation page with a way back in (the start page's 'Start now' link added to it) is still the end.
    // (Not govuk-wizard.step-8: its "contact you … to confirm your details" reads as a review page, so a link
    // there would be followed — a quirk of looksLikeReview, left as it is.)
    const done = load('forms-registration.step-2');
    const link = load('govuk-wizard.start').frames[0]?.scan.buttons[0];
    expect(link?.text).toBe('Start now');
    done.frames[0]?.scan.buttons.push(link as FrameScan['buttons'][number]);
    expect(decide(done, initialFillState()).step).toEqual({ kind: 'finish' });
    // A React app's confirmation (role=status "Application submitted", a reference) after its submit.
    for (const name of [
      'chakra-event-registration.step-2',
      'react-aria-personal-details.step-4',
      'carbon-gym-membership.step-4',
    ])
      expect(decide(load(name), recordClick(initialFillState(), 'submit')).step, name).toEqual({ kind: 'finish' });
    expect(decide(load('forms-registration.step-2'), recordClick(initialFillState(), 'submit')).step).toEqual({
      kind: 'finish',
    });
  });

  it('a page whose message names a field: not the end; the message is tied to the field; Continue again', () => {
    const page = load('govuk-error-summary.step-2');
    const errors = readErrors(page.frames, page.targets);
    expect(errors.map((e) => [e.target?.label, e.text])).toEqual([
      ['Vehicle registration number', 'Enter the registration number in capital letters, like CU57 ABC'],
    ]);
    const step = click(decide(page, filledState(page)));
    expect(step.button.button.text).toBe('Continue');
  });

  it('clicking from the same page state a third time gives up, saying where', () => {
    const page = load('govuk-wizard.step-2');
    let state = filledState(page);
    const first = click(decide(page, state));
    expect(first.stuck).toBeNull();
    state = recordVisit(recordVisit(state, first.visitKey), first.visitKey);
    expect(click(decide(page, state)).stuck).toMatch(
      /did not advance past 'What is your full name\?' after clicking 'Continue' 3 times/,
    );
  });

  it('elimination: the one required key left goes to the one required empty control left only when the value fits', () => {
    const page = load(
      'forms-registration.start',
      {
        full_name: 'Ada Lovelace',
        email: 'ada@example.org',
        date_of_birth: '1990-12-10',
        consent: true,
        residence: 'IE',
      },
      { type: 'object', required: ['full_name', 'email', 'date_of_birth', 'consent', 'residence'], properties: {} },
    );
    const state = filledState(page);
    expect(planned(page).placements.map((p) => p.entry.key)).not.toContain('residence');
    const filled = new Set(page.targets.filter((t) => t.label !== 'Country').map((t) => t.id));
    expect(elimination(state, page.run, page.targets, filled)).toMatchObject({
      entry: { key: 'residence' },
      target: { label: 'Country' },
    });
    const step = click(decide(page, state, filled));
    expect(step.eliminate?.target.label).toBe('Country');
    expect(step.requiredUnplaced).toEqual([]);
    const norway = load(
      'forms-registration.start',
      { full_name: 'A', email: 'a@b.org', date_of_birth: '1990-12-10', consent: true, residence: 'Norway' },
      { type: 'object', required: ['full_name', 'email', 'date_of_birth', 'consent', 'residence'], properties: {} },
    );
    expect(elimination(filledState(norway), norway.run, norway.targets, filled)).toBeNull();
    // Two required keys left: neither is placed by elimination (which one would be a guess).
    const two = load(
      'forms-registration.start',
      { full_name: 'A', email: 'a@b.org', date_of_birth: '1990-12-10', consent: true, residence: 'IE', nation: 'FR' },
      {
        type: 'object',
        required: ['full_name', 'email', 'date_of_birth', 'consent', 'residence', 'nation'],
        properties: {},
      },
    );
    expect(elimination(filledState(two), two.run, two.targets, filled)).toBeNull();
  });
});

describe("answerError: what a page's validation message calls for (recorded scans)", () => {
  const page = load('govuk-error-summary.step-2');
  const [error] = readErrors(page.frames, page.targets);
  const registration = target(page, 'Vehicle registration number');
  const placed = placeKey(initialFillState(), 'vehicle', placedAt(registration, page.signature));

  it('a rejected value is corrected the way the message asks (capital letters first), then other spellings', () => {
    if (!error) throw new Error('the recorded page shows no error');
    const first = answerError(error, placed, page.run);
    expect(first).toMatchObject({ kind: 'correct', entry: { key: 'vehicle' }, correction: { value: 'CU57 ABC' } });
    const after = first.kind === 'correct' ? addTried(placed, 'vehicle', ...first.tried) : placed;
    expect(answerError(error, after, page.run)).toMatchObject({
      kind: 'correct',
      correction: { value: 'cu57abc', note: 'spaces removed' },
    });
  });

  it('with every correction tried, a human is asked for the value (or the job fails naming the key and the message)', () => {
    if (!error) throw new Error('the recorded page shows no error');
    const exhausted = addTried(placed, 'vehicle', 'value:CU57 ABC', 'value:cu57abc');
    const answer = answerError(error, exhausted, page.run);
    expect(answer.kind).toBe('askRejected');
    if (answer.kind !== 'askRejected') return;
    expect(answer.failure).toBe(
      "The page rejected 'Vehicle registration number' (form_data key 'vehicle'): \"Enter the registration number in capital letters, like CU57 ABC\"; no correction left to try",
    );
  });

  it('a message on a field no key took: a pending key that matches it will fill it; with none, a human is asked', () => {
    if (!error) throw new Error('the recorded page shows no error');
    expect(answerError(error, initialFillState(), page.run)).toMatchObject({ kind: 'willFill' });
    const without = load(
      'govuk-error-summary.step-2',
      { manufacturer: 'Vauxhall' },
      { type: 'object', properties: {} },
    );
    const answer = answerError(error, initialFillState(), without.run);
    expect(answer).toMatchObject({ kind: 'askValue', controlKey: 'vehicle-registration' });
    expect(answerError({ text: 'Something went wrong', target: null }, placed, page.run)).toEqual({ kind: 'note' });
  });
});

describe('readBackVerdict: a typed value read back from its control (recorded scan)', () => {
  const page = load('forms-registration.start', { phone: '+1 503 555 0182' }, { type: 'object', properties: {} });
  const phone = target(page, 'Phone number');
  const [entry] = page.run.entries;

  it('the same meaning in another shape passes; changed digits make it retype the other spellings, then ask', () => {
    if (!entry) throw new Error('no entry');
    const state = initialFillState();
    expect(readBackVerdict(phone, entry, '+1 503 555 0182', '+1 (503) 555-0182', state)).toEqual({ kind: 'same' });
    const first = readBackVerdict(phone, entry, '+1 503 555 0182', '(150) 355-5018', state);
    expect(first.kind).toBe('retype');
    if (first.kind !== 'retype') return;
    // Another spelling of the same number (national, or without the +), never other digits.
    expect(first.variant).not.toBe('+1 503 555 0182');
    expect('15035550182'.endsWith(first.variant.replace(/\D/g, ''))).toBe(true);
    // Every spelling tried: the human keeps, corrects or cancels; without one the job fails naming the key.
    let s = addTried(state, 'phone', ...first.tried);
    for (let i = 0; i < 5; i += 1) {
      const again = readBackVerdict(phone, entry, '+1 503 555 0182', '(150) 355-5018', s);
      if (again.kind !== 'retype') break;
      s = addTried(s, 'phone', ...again.tried);
    }
    const last = readBackVerdict(phone, entry, '+1 503 555 0182', '(150) 355-5018', s);
    expect(last.kind).toBe('ask');
    if (last.kind !== 'ask') return;
    expect(last.question.options).toEqual(['Keep', 'Correct', 'Cancel']);
    expect(last.failure).toBe(
      "'Phone number' took '(150) 355-5018' for form_data 'phone' but form_data gave '+1 503 555 0182': the field changed its meaning (enable human_in_the_loop to be asked)",
    );
  });

  it('a value a human gave is never respelled: asked at once; a secret is never quoted', () => {
    if (!entry) throw new Error('no entry');
    const answered = overrideKey(initialFillState(), 'phone', '+1 503 555 0182', true);
    expect(readBackVerdict(phone, entry, '+1 503 555 0182', '(150) 355-5018', answered).kind).toBe('ask');
    const secret = readBackVerdict(phone, { ...entry, secret: true }, '+1 503 555 0182', '(150) 355-5018', answered);
    if (secret.kind !== 'ask') throw new Error('expected a question');
    // What a human or the job's error sees names neither value (the tried tokens stay in the run's state).
    const said = JSON.stringify([secret.question, secret.failure, secret.cancelled, secret.correct]);
    expect(said).not.toContain('503');
    expect(said).not.toContain('150');
  });
});

describe('rowToAdd: when to click a field array\'s own "Add …" control (recorded scans)', () => {
  const start = load('chakra-event-registration.start');

  it('two attendees, no row of them recognised yet: click "Add another attendee", never more often than the items', () => {
    const step = rowToAdd(start.frames, initialFillState(), start.run, new Map());
    expect(step && { array: step.array, items: step.items, rows: step.rows, button: step.button.text }).toEqual({
      array: 'attendees',
      items: 2,
      // One row alone is not told from other fields (fieldArrays.ts): no row set is recognised yet.
      rows: 0,
      button: 'Add another attendee',
    });
    expect(step?.frame).toBe(start.frames[0]?.frame);
    expect(rowToAdd(start.frames, initialFillState(), start.run, new Map([['attendees', 1]]))).not.toBeNull();
    // A button that adds no row is clicked at most once per item, then the page is filled as it is.
    expect(rowToAdd(start.frames, initialFillState(), start.run, new Map([['attendees', 2]]))).toBeNull();
  });

  it('no row to add once the page shows a row per item, or once the items are placed, or for data without arrays', () => {
    const filled = load('chakra-event-registration.step-1');
    expect(rowToAdd(filled.frames, initialFillState(), filled.run, new Map())).toBeNull();
    let placed = initialFillState();
    for (const e of start.run.entries.filter((x) => x.item))
      placed = placeKey(placed, e.key, placedAt(target(start, 'Full name *'), start.signature));
    expect(arrayItemsPending(placed, start.run)).toBe(false);
    expect(rowToAdd(start.frames, placed, start.run, new Map())).toBeNull();
    const flat = load('chakra-event-registration.start', { contact_name: 'Dana Whitfield' });
    expect(arrayItemsPending(initialFillState(), flat.run)).toBe(false);
    expect(rowToAdd(flat.frames, initialFillState(), flat.run, new Map())).toBeNull();
  });
});

describe('confirmationFills: "Confirm email" / "Re-enter password" repeat the field they confirm (recorded scan)', () => {
  const page = load('forms-account.start');
  const values = page.run.entries.map((entry) => ({ entry, value: entry.value }));
  const byLabel = (fills: ReturnType<typeof confirmationFills>): Record<string, string> =>
    Object.fromEntries(fills.map((f) => [f.target.label, `${f.entry.key}=${String(f.value)}`]));

  it('each repeat field gets the value of the key placed on the page that its label names', () => {
    expect(byLabel(confirmationFills(page.targets, new Set(), values))).toEqual({
      'Confirm email address *': 'email=a@b.org',
      'Re-enter password *': 'password=pa55-word!',
    });
  });

  it('a repeat field already filled, or one naming no key placed here, is left alone; other fields never repeat', () => {
    const confirm = target(page, 'Confirm email address *');
    expect(byLabel(confirmationFills(page.targets, new Set([confirm.id]), values))).toEqual({
      'Re-enter password *': 'password=pa55-word!',
    });
    const onlyPassword = values.filter((v) => v.entry.key === 'password');
    expect(byLabel(confirmationFills(page.targets, new Set(), onlyPassword))).toEqual({
      'Re-enter password *': 'password=pa55-word!',
    });
    expect(confirmationFills(page.targets, new Set(), [])).toEqual([]);
  });
});

describe('constraintFixes: HTML5 constraints the filled values fail (recorded scans)', () => {
  // The booking form as a person left it: a date and a phone its `pattern`s reject (Chromium's own messages).
  const typed = load('forms-constraint.typed');
  const placedAll = (page: Loaded): FillState => {
    let s = initialFillState();
    for (const [key, label] of [
      ['visit_date', 'Visit date'],
      ['telephone', 'Telephone'],
      ['guests', 'Number of guests'],
    ] as const)
      s = placeKey(s, key, placedAt(target(page, label), page.signature));
    return s;
  };
  const all = (page: Loaded): Set<string> => new Set(page.targets.map((t) => t.id));

  it('the invalid controls the filler filled are answered (their key corrected) and typed again', () => {
    const state = placedAll(typed);
    const fixes = constraintFixes(typed.frames, typed.targets, all(typed), state, typed.run);
    expect(fixes?.errors.map((e) => [e.target?.label, e.text])).toEqual([
      ['Visit date', 'Please match the requested format.'],
      ['Telephone', 'Please match the requested format.'],
    ]);
    expect(fixes?.refills.map((r) => [r.target.label, r.entry.key])).toEqual([
      ['Visit date', 'visit_date'],
      ['Telephone', 'telephone'],
    ]);
    // What the message calls for: the next correction of each key, never a guess.
    const [date, phone] = fixes?.errors ?? [];
    if (!date || !phone) throw new Error('no errors');
    expect(answerError(date, state, typed.run)).toMatchObject({ kind: 'correct', entry: { key: 'visit_date' } });
    expect(answerError(phone, state, typed.run)).toMatchObject({ kind: 'correct', entry: { key: 'telephone' } });
  });

  it('controls the filler did not fill this turn are not its to correct; a page whose values pass has nothing to fix', () => {
    const state = placedAll(typed);
    const guestsOnly = new Set([target(typed, 'Number of guests').id]);
    expect(constraintFixes(typed.frames, typed.targets, guestsOnly, state, typed.run)).toBeNull();
    expect(constraintFixes(typed.frames, typed.targets, new Set(), state, typed.run)).toBeNull();
    // The same page once corrected (recorded right before the click): valid, nothing to fix.
    const corrected = load('forms-constraint.step-1');
    expect(
      constraintFixes(corrected.frames, corrected.targets, all(corrected), placedAll(corrected), corrected.run),
    ).toBeNull();
  });

  it('an invalid control holding no key (a human answered it) is answered but not retyped from a key', () => {
    const phoneOnly = placeKey(initialFillState(), 'telephone', placedAt(target(typed, 'Telephone'), typed.signature));
    const fixes = constraintFixes(typed.frames, typed.targets, all(typed), phoneOnly, typed.run);
    expect(fixes?.errors).toHaveLength(2);
    expect(fixes?.refills.map((r) => r.entry.key)).toEqual(['telephone']);
  });
});

describe('requiredKeyQuestion / requiredEmptyQuestion: what is asked before the submitting click (recorded scans)', () => {
  const page = load(
    'forms-registration.start',
    { full_name: 'Ada Lovelace', email: 'ada@example.org', shoe_size: '38' },
    { type: 'object', required: ['full_name', 'shoe_size'], properties: {} },
  );
  const entry = (key: string) => page.run.entries.find((e) => e.key === key) as Entry;

  it('a required key no control took: which field, among the controls not holding a key, or "None of these"; never asked once placed or declined', () => {
    const state = filledState(page);
    expect(requiredKeyOpen(state, entry('shoe_size'))).toBe(true);
    expect(requiredKeyOpen(state, entry('full_name'))).toBe(false);
    expect(requiredKeyOpen(state, entry('email'))).toBe(false);
    expect(requiredKeyOpen(declineKey(state, 'shoe_size'), entry('shoe_size'))).toBe(false);
    const ask = requiredKeyQuestion(page.frames, state, entry('shoe_size'));
    const taken = planned(page).placements.map((p) => p.target.label);
    expect(taken).toContain('Full name');
    expect(ask.candidates.map((t) => t.label)).toEqual(
      page.targets.map((t) => t.label).filter((l) => !taken.includes(l)),
    );
    expect(ask.question.options.at(-1)).toBe(NONE_OF_THESE);
    expect(ask.question.options).toHaveLength(ask.candidates.length + 1);
    expect(ask.failure).toMatch(/^No control on the page matches the required form_data key 'shoe_size' \(tried name/);
  });

  it('a required control left empty that no key fills: its value is asked (the failure names the keys unplaced); one filled or holding a value is not', () => {
    const required = page.targets.find((t) => t.required && !t.hasValue);
    if (!required) throw new Error('the recorded page has no required empty control');
    const ask = requiredEmptyQuestion(required, new Set(), initialFillState(), page.run);
    expect(ask?.question.question).toBe(`What should be entered for '${required.label}'?`);
    expect(ask?.failure).toContain('(unplaced keys: full_name, email, shoe_size)');
    expect(requiredEmptyQuestion(required, new Set([required.id]), initialFillState(), page.run)).toBeNull();
    expect(requiredEmptyQuestion({ ...required, hasValue: true }, new Set(), initialFillState(), page.run)).toBeNull();
  });
});
