// tier: unit
/**
 * The pure parts of three widget patterns (docs/autofill.md): slider goals and key plans, numbers read
 * back by meaning ("$12,500" = 12500), and date ranges held in one input. No browser.
 */
import { describe, expect, it } from 'vitest';

import type { Entry } from '../../src-main/agent/autofill/entries.ts';
import {
  dateRangeValue,
  formatDateRange,
  numericMeaning,
  rangeFormatFromHint,
  showsDateRange,
} from '../../src-main/agent/autofill/rangeAndNumber.ts';
import { planSliderKeys, sameSliderValue, sliderGoal } from '../../src-main/agent/autofill/slider.ts';
import { rangeEntries } from '../../src-main/agent/autofill/wizard.ts';

describe('slider goals', () => {
  const term = { min: 12, max: 84, step: 12 };
  it('takes a number on the slider, as a number or numeric text', () => {
    expect(sliderGoal(48, term)).toEqual({ goal: 48 });
    expect(sliderGoal('60', term)).toEqual({ goal: 60 });
    expect(sliderGoal(0.3, { min: 0, max: 1, step: 0.1 })).toEqual({ goal: 0.3 });
  });
  it('refuses a value outside the range, between two steps, or not a number (never the nearest value)', () => {
    expect(sliderGoal(96, term)).toEqual({ problem: "96 is outside the slider's range (12 to 84)" });
    expect(sliderGoal(50, term)).toEqual({ problem: "50 is not one of the slider's values (12 to 84 in steps of 12)" });
    expect(sliderGoal('$40', term)).toHaveProperty('problem');
    expect(sliderGoal(true, term)).toHaveProperty('problem');
  });
  it('with no step given, any value in the range is a goal (the step is learnt from the slider)', () => {
    expect(sliderGoal(5, { min: 1, max: 14, step: 0 })).toEqual({ goal: 5 });
  });
});

describe('slider key plans', () => {
  const visits = { min: 1, max: 7, step: 1 };
  it('presses one arrow per step towards the goal', () => {
    expect(planSliderKeys(1, 4, visits).keys).toEqual(['ArrowRight', 'ArrowRight', 'ArrowRight']);
    expect(planSliderKeys(17, 15, { min: 7, max: 19, step: 1 }).keys).toEqual(['ArrowLeft', 'ArrowLeft']);
    expect(planSliderKeys(36, 48, { min: 12, max: 84, step: 12 }).keys).toEqual(['ArrowRight']);
    // From the nearer end when that takes fewer presses (each press waits for the page to settle).
    expect(planSliderKeys(0, 9, { min: 0, max: 10, step: 1 }).keys).toEqual(['End', 'ArrowLeft']);
    expect(planSliderKeys(9, 1, { min: 0, max: 10, step: 1 }).keys).toEqual(['Home', 'ArrowRight']);
    // A range whose end is not on a step (0–10 by 3): End may stop at 9 or 10, so never from End.
    expect(planSliderKeys(0, 6, { min: 0, max: 10, step: 3 }).keys).toEqual(['ArrowRight', 'ArrowRight']);
    expect(planSliderKeys(0, 9, { min: 0, max: 10, step: 1 }, true).keys).toHaveLength(9);
  });
  it('uses Home and End for the ends, and arrows only once the slider ignored them', () => {
    expect(planSliderKeys(3, 7, visits).keys).toEqual(['End']);
    expect(planSliderKeys(3, 1, visits).keys).toEqual(['Home']);
    expect(planSliderKeys(3, 7, visits, true).keys).toEqual(['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight']);
  });
  it('presses nothing at the goal, and one probing arrow when the step is unknown', () => {
    expect(planSliderKeys(4, 4, visits).keys).toEqual([]);
    expect(planSliderKeys(1, 5, { min: 1, max: 14, step: 0 }).keys).toEqual(['ArrowRight']);
  });
  it('compares readings with float steps exactly enough', () => {
    expect(sameSliderValue(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameSliderValue(0.3, 0.4)).toBe(false);
  });
});

describe('numbers read back by meaning', () => {
  it('reads currency, thousand separators, units and decimal marks', () => {
    expect(numericMeaning('$12,500')).toBe(12500);
    expect(numericMeaning('3,250')).toBe(3250);
    expect(numericMeaning('1,234,567.50')).toBe(1234567.5);
    expect(numericMeaning('1.234.567,5')).toBe(1234567.5);
    expect(numericMeaning('12 500 kg')).toBe(12500);
    expect(numericMeaning('£ 99.95')).toBe(99.95);
    expect(numericMeaning('-40')).toBe(-40);
  });
  it('is null for what is not one number', () => {
    expect(numericMeaning('(503) 555-0182')).toBeNull();
    expect(numericMeaning('12/05/2027')).toBeNull();
    expect(numericMeaning('about ten')).toBeNull();
    expect(numericMeaning('')).toBeNull();
  });
});

describe('date ranges in one input', () => {
  it('reads the format and separator from a hint showing two dates', () => {
    expect(rangeFormatFromHint('MM/DD/YYYY – MM/DD/YYYY')).toEqual({ format: 'MM/DD/YYYY', separator: ' – ' });
    expect(rangeFormatFromHint('dd.mm.yyyy to dd.mm.yyyy')).toEqual({ format: 'DD.MM.YYYY', separator: ' to ' });
    expect(rangeFormatFromHint('MM/DD/YYYY')).toBeNull();
    expect(rangeFormatFromHint('MM/DD/YYYY – DD.MM.YYYY')).toBeNull();
  });
  it('takes {start, end} (or from/to, check_in/check_out) and "start/end" text, start first', () => {
    const range = { start: { year: 2027, month: 3, day: 1 }, end: { year: 2027, month: 8, day: 31 } };
    expect(dateRangeValue({ start: '2027-03-01', end: '2027-08-31' })).toEqual(range);
    expect(dateRangeValue({ from: '2027-03-01', to: '2027-08-31' })).toEqual(range);
    expect(dateRangeValue('2027-03-01/2027-08-31')).toEqual(range);
    expect(dateRangeValue({ start: '2027-08-31', end: '2027-03-01' })).toBeNull();
    expect(dateRangeValue({ start: '2027-03-01' })).toBeNull();
    expect(dateRangeValue('2027-03-01')).toBeNull();
  });
  it('writes the range in the input format and reads it back day by day', () => {
    const f = { format: 'MM/DD/YYYY', separator: ' – ' };
    const range = dateRangeValue({ start: '2027-03-01', end: '2027-08-31' }) as NonNullable<
      ReturnType<typeof dateRangeValue>
    >;
    expect(formatDateRange(range, f)).toBe('03/01/2027 – 08/31/2027');
    expect(showsDateRange('03/01/2027 – 08/31/2027', range, f)).toBe(true);
    expect(showsDateRange('03/01/2027 to 08/31/2027', range, f)).toBe(true);
    expect(showsDateRange('03/01/2027 – 08/30/2027', range, f)).toBe(false);
    expect(showsDateRange('03/01/2027', range, f)).toBe(false);
  });
  it('pairs two date keys under one parent as one range entry', () => {
    const leaf = (path: string[], value: unknown): Entry => ({
      key: path.join('.'),
      path,
      value,
      title: '',
      description: '',
      required: true,
      secret: false,
      format: 'date',
    });
    const pairs = rangeEntries([
      leaf(['project_period', 'start'], '2027-03-01'),
      leaf(['project_period', 'end'], '2027-08-31'),
      leaf(['address', 'city'], 'Leeds'),
      leaf(['address', 'postcode'], 'LS1 4AP'),
    ]);
    expect(pairs.map((p) => [p.entry.key, p.entry.value, p.leaves])).toEqual([
      ['project_period', { start: '2027-03-01', end: '2027-08-31' }, ['project_period.start', 'project_period.end']],
    ]);
  });
});
