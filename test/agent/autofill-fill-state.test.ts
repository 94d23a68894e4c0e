// tier: unit
/**
 * The filler's state in one value (issue 20 item 5): `FillState` is a map of per-key states plus a run
 * state, changed only by pure transitions that return a new value and leave the old one as it was.
 */
import { describe, expect, it } from 'vitest';

import type { Entry } from '../../src-main/agent/autofill/entries.ts';
import {
  addTried,
  countCorrection,
  declineKey,
  entryAtControl,
  fillOptionsFor,
  howFor,
  initialFillState,
  keyState,
  markChosen,
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
  type PlacedValue,
} from '../../src-main/agent/autofill/fillState.ts';
import { rangeLeafChecks } from '../../src-main/agent/autofill/placedCheck.ts';
import { checkRequest } from '../../src-main/agent/autofill/submissionCheck.ts';

function entry(key: string, value: unknown, required = false): Entry {
  return { key, path: key.split('.'), value, title: '', description: '', required, secret: false, format: '' };
}

function placed(controlKey: string, signature = 'sig'): PlacedValue {
  return {
    signature,
    controlKey,
    label: controlKey,
    shown: 'x',
    how: 'exact',
    matchedBy: 'name',
    check: {
      key: controlKey,
      label: controlKey,
      given: 'x',
      names: [controlKey],
      sent: ['x'],
      options: [],
      kind: 'text',
      secret: false,
    },
  };
}

describe('FillState transitions', () => {
  it('never change the state they were given', () => {
    const s0 = initialFillState();
    const s1 = placeKey(s0, 'email', placed('em'));
    const s2 = overrideKey(s1, 'email', 'a@b.org', true);
    const s3 = countCorrection(recordVisit(s2, 'page-a'));
    expect(s0.keys.size).toBe(0);
    expect(s0.run.corrections).toBe(0);
    expect(keyState(s1, 'email').override).toBeUndefined();
    expect(keyState(s1, 'email').answered).toBe(false);
    expect(s2.run.visits.size).toBe(0);
    expect(keyState(s3, 'email').placed?.controlKey).toBe('em');
    expect(s3.run.corrections).toBe(1);
    expect(visitsOf(s3, 'page-a')).toBe(1);
    expect(visitsOf(recordVisit(s3, 'page-a'), 'page-a')).toBe(2);
    expect(visitsOf(s3, 'page-a')).toBe(1);
  });

  it('a date range placed as one value places its two leaves with the same record', () => {
    const s = placeKey(initialFillState(), 'period', placed('range'), ['period.start', 'period.end']);
    expect([...placedValues(s).keys()].sort()).toEqual(['period', 'period.end', 'period.start']);
    expect(takenControls(s)).toEqual(new Set(['range']));
    const entries = [entry('period.start', '2026-01-01'), entry('period.end', '2026-01-05'), entry('name', 'Ada')];
    expect(entryAtControl(s, entries, 'range')?.key).toBe('period.start');
    expect(unplacedKeys(s, entries)).toEqual([{ key: 'name', reason: 'no control on any page matched it' }]);
  });

  it('a date range placed as one value: each leaf checked for its own date, verified by the request key by key', () => {
    const range: PlacedValue = {
      ...placed('period'),
      check: { ...placed('period').check, key: 'period', given: '03/01/2027 – 08/31/2027', names: ['period'] },
    };
    const leaves = ['period.from', 'period.until'];
    const checks = rangeLeafChecks(range.check, { from: '2027-03-01', until: '2027-08-31' }, leaves);
    expect(Object.values(checks).map((c) => [c.key, c.given, c.names])).toEqual([
      ['period.from', '2027-03-01', []],
      ['period.until', '2027-08-31', []],
    ]);
    const s = placeKey(initialFillState(), 'period', range, leaves, checks);
    const all = [...placedValues(s).values()].map((p) => p.check);
    expect(all.map((c) => c.key).sort()).toEqual(['period', 'period.from', 'period.until']);
    // The range input's own field carries both dates (neither key's value); the API's fields carry one each.
    const sent = [
      { name: 'period', value: '03/01/2027 – 08/31/2027' },
      { name: 'starts', value: '2027-03-01' },
      { name: 'ends', value: '08/31/2027' },
    ];
    expect(checkRequest(sent, all)).toEqual({ verified: ['period', 'period.from', 'period.until'], mismatches: [] });
    // A field named like a key carrying another date holds the request.
    const moved = checkRequest([...sent.slice(0, 2), { name: 'until', value: '2027-09-30' }], all);
    expect(moved.mismatches.map((m) => [m.key, m.sent])).toEqual([['period.until', '2027-09-30']]);
  });

  it('the value to type: an override wins over form_data, a rejection date format is passed on', () => {
    const dob = { ...entry('dob', '1990-10-12'), format: 'date' };
    let s = initialFillState();
    expect(valueFor(s, dob)).toBe('1990-10-12');
    expect(fillOptionsFor(s, dob)).toEqual({ format: 'date' });
    s = setDateFormat(overrideKey(s, 'dob', '12/10/1990'), 'dob', 'DD/MM/YYYY');
    expect(valueFor(s, dob)).toBe('12/10/1990');
    expect(fillOptionsFor(s, dob)).toEqual({ dateFormat: 'DD/MM/YYYY', format: 'date' });
    expect(howFor(s, 'dob', 'normalised')).toBe('normalised');
    expect(howFor(overrideKey(s, 'dob', '10/12/1990', true), 'dob', 'normalised')).toBe('answer');
  });

  it("a human's choice of field is never replaced by the model's; declined keys are reported so", () => {
    let s = markChosen(initialFillState(), 'city', 'answer');
    s = markChosen(s, 'city', 'model');
    expect(matchedByFor(s, 'city', 'name')).toBe('answer');
    expect(matchedByFor(markChosen(s, 'town', 'model'), 'town', 'name')).toBe('model');
    expect(matchedByFor(s, 'other', 'options')).toBe('options');
    s = declineKey(s, 'shoe_size');
    expect(unplacedKeys(s, [entry('shoe_size', 42, true)])).toEqual([
      { key: 'shoe_size', reason: 'a human said it belongs in none of the fields offered' },
    ]);
  });

  it('tried tokens accumulate; the run state counts turns, clicks, manual answers and task steps', () => {
    let s = addTried(addTried(initialFillState(), 'phone', 'value:123'), 'phone', 'readback:+1 503', 'value:123');
    expect([...keyState(s, 'phone').tried].sort()).toEqual(['readback:+1 503', 'value:123']);
    s = recordClick(nextTurn(nextTurn(s)), 'submit');
    s = markStepDone(rememberManual(s, 'membership', '12345'), 0);
    expect(s.run).toMatchObject({ turn: 2, lastKind: 'submit' });
    expect(s.run.manual.get('membership')).toBe('12345');
    expect(s.run.stepsDone.has(0)).toBe(true);
    const again = startRun(s);
    expect(again.run).toMatchObject({ turn: 0, lastKind: null });
    // What the run learnt survives a second run() (after a human chose Continue).
    expect(again.run.manual.get('membership')).toBe('12345');
    expect(again.run.stepsDone.has(0)).toBe(true);
  });
});
