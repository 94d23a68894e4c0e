// tier: unit
// The pure value rules of masked inputs, time pickers, hierarchical choices and the read-back check
// (src-main/agent/autofill/widgetValues.ts), without a browser.
import { describe, expect, it } from 'vitest';

import {
  digitSlots,
  digitsForMask,
  fillDigitSlots,
  findPathNode,
  formatTwelveHour,
  matchAll,
  parseTimeOfDay,
  readBackMatches,
  valuePath,
  wantsTwelveHour,
  type PathNode,
} from '../../src-main/agent/autofill/widgetValues.ts';

describe('digit masks', () => {
  it('counts the digit slots of drawn masks, and nothing else', () => {
    expect(digitSlots('(999) 999-9999')).toBe(10);
    expect(digitSlots('(___) ___-____')).toBe(10);
    expect(digitSlots('999-99-9999')).toBe(9);
    expect(digitSlots('###-##-####')).toBe(9);
    expect(digitSlots('9999')).toBeNull();
    expect(digitSlots('e.g. 07700 900982')).toBeNull();
    expect(digitSlots('')).toBeNull();
  });

  it('fits a US number from its international form, never shifting digits', () => {
    expect(digitsForMask('+1 503 555 0182', 10)).toBe('5035550182');
    expect(digitsForMask('+15035550182', 10)).toBe('5035550182');
    expect(digitsForMask('503.555.0199', 10)).toBe('5035550199');
    expect(digitsForMask('+44 20 7946 0958', 10)).toBe('2079460958');
    expect(fillDigitSlots('(999) 999-9999', digitsForMask('+1 503 555 0182', 10) as string)).toBe('(503) 555-0182');
    expect(fillDigitSlots('999-99-9999', digitsForMask('123 45 6789', 9) as string)).toBe('123-45-6789');
  });

  it('refuses what does not fit: too few digits, extra digits that are no country code', () => {
    expect(digitsForMask('503 555 018', 10)).toBeNull();
    expect(digitsForMask('15035550182', 10)).toBeNull();
    expect(digitsForMask('+44 20 7946 0958 1', 10)).toBeNull();
    expect(fillDigitSlots('(999) 999-9999', '150355501')).toBeNull();
  });
});

describe('times of day, 12 and 24 hours', () => {
  it('reads both clocks', () => {
    expect(parseTimeOfDay('15:00')).toEqual({ hour: 15, minute: 0 });
    expect(parseTimeOfDay('03:00 PM')).toEqual({ hour: 15, minute: 0 });
    expect(parseTimeOfDay('3 pm')).toEqual({ hour: 15, minute: 0 });
    expect(parseTimeOfDay('12:30 AM')).toEqual({ hour: 0, minute: 30 });
    expect(parseTimeOfDay('12:05 p.m.')).toEqual({ hour: 12, minute: 5 });
    expect(parseTimeOfDay('9.30am')).toEqual({ hour: 9, minute: 30 });
    expect(parseTimeOfDay('25:00')).toBeNull();
    expect(parseTimeOfDay('13:00 PM')).toBeNull();
    expect(parseTimeOfDay('15')).toBeNull();
    expect(parseTimeOfDay('2027-02-09')).toBeNull();
  });

  it('writes a 24-hour time the way a 12-hour picker shows it', () => {
    expect(formatTwelveHour({ hour: 15, minute: 0 })).toBe('03:00 PM');
    expect(formatTwelveHour({ hour: 0, minute: 5 }, false)).toBe('12:05 AM');
    expect(formatTwelveHour({ hour: 12, minute: 0 })).toBe('12:00 PM');
  });

  it('knows a 12-hour picker by its placeholder or hint', () => {
    expect(wantsTwelveHour('hh:mm AM')).toBe(true);
    expect(wantsTwelveHour('h:mm aa')).toBe(true);
    expect(wantsTwelveHour('For example, 3:30 pm')).toBe(true);
    expect(wantsTwelveHour('HH:mm')).toBe(false);
    expect(wantsTwelveHour('Appointment time')).toBe(false);
  });

  it('compares a read-back by meaning: 3:00 PM is 15:00, 3:00 AM is not', () => {
    expect(readBackMatches('time', '15:00', '03:00 PM')).toBe(true);
    expect(readBackMatches('time', '15:00', '03:00 AM')).toBe(false);
    expect(readBackMatches('digits', '(503) 555-0182', '5035550182')).toBe(true);
    expect(readBackMatches('digits', '5035550182', '(150) 355-5018')).toBe(false);
    expect(readBackMatches('text', 'Germany', 'germany')).toBe(true);
  });
});

describe('hierarchical choices (cascaders, tree selects)', () => {
  const nodes: PathNode[] = [
    { label: 'Paris', value: 'PAR', ancestors: ['Europe', 'France'] },
    { label: 'Lyon', value: 'LYO', ancestors: ['Europe', 'France'] },
    { label: 'Berlin', value: 'BER', ancestors: ['Europe', 'Germany'] },
    { label: 'Paris', value: 'PRS', ancestors: ['North America', 'United States'] },
    { label: 'Developer Experience', value: 'dx', ancestors: ['Engineering', 'Platform'] },
  ];

  it('splits paths written with >, / or as a list', () => {
    expect(valuePath('Europe > France > Paris')).toEqual(['Europe', 'France', 'Paris']);
    expect(valuePath('Europe / France / Paris')).toEqual(['Europe', 'France', 'Paris']);
    expect(valuePath(['Europe', 'France'])).toEqual(['Europe', 'France']);
    expect(valuePath('Developer Experience')).toEqual(['Developer Experience']);
  });

  it('finds a full or partial path, or a leaf unique in the tree', () => {
    expect(findPathNode('Europe > France > Paris', nodes)).toEqual({ index: 0 });
    expect(findPathNode('United States > Paris', nodes)).toEqual({ index: 3 });
    expect(findPathNode('Berlin', nodes)).toEqual({ index: 2 });
    expect(findPathNode('Developer Experience', nodes)).toEqual({ index: 4 });
  });

  it('asks for an ambiguous leaf and finds nothing for an empty or wrong one', () => {
    expect(findPathNode('Paris', nodes)).toEqual({ index: -2 });
    expect(findPathNode('', nodes)).toEqual({ index: -1 });
    expect(findPathNode('Europe > Germany > Paris', nodes)).toEqual({ index: -1 });
    expect(findPathNode('Madrid', nodes)).toEqual({ index: -1 });
  });
});

describe('multi-select values', () => {
  it('matches every value of an array, or names the one that fails', () => {
    const choices = ['Movers', 'Temporary housing', 'Visa support'].map((label) => ({ label, value: label }));
    expect(matchAll(['Temporary housing', 'visa support'], choices)).toEqual({ indices: [1, 2] });
    expect(matchAll(['Temporary housing', 'Storage'], choices)).toEqual({ value: 'Storage', index: -1 });
  });
});
