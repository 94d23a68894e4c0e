// tier: unit
import { describe, expect, it } from 'vitest';

import { flattenFormData } from '../../src-main/agent/autofill/entries.ts';
import { classifyButton, clickSettleArgs } from '../../src-main/agent/autofill/navigation.ts';
import { textSimilarity } from '../../src-main/agent/autofill/textNorm.ts';
import { parseMonthYear } from '../../src-main/agent/autofill/dates.ts';
import {
  dateFormatFromHint,
  filePayloads,
  findChoice,
  fitToMask,
  formatDate,
  matchChoice,
  realChoices,
  withoutAffixes,
} from '../../src-main/agent/autofill/valueAdapter.ts';

describe('autofill matching (no browser)', () => {
  it('treats synonyms as the same field', () => {
    const same: Array<[string, string]> = [
      ['date_of_birth', 'Date of birth'],
      ['dob', 'What is your date of birth?'],
      ['zip', 'Postcode'],
      ['zip', 'Postal code'],
      ['first_name', 'Given name'],
      ['last_name', 'Surname'],
      ['last_name', 'Family name'],
      ['phone', 'Telephone'],
      ['phone', 'Mobile number'],
      ['email', 'E-mail address'],
      ['emailAddress', 'Email'],
      ['company', 'Organisation'],
    ];
    for (const [key, label] of same) expect(textSimilarity(key, label), `${key} ~ ${label}`).toBe(1);
    expect(textSimilarity('first_name', 'Last name')).toBe(0);
    expect(textSimilarity('email', 'Confirm email address')).toBeGreaterThan(0.5);
    expect(textSimilarity('email', 'Confirm email address')).toBeLessThan(0.8);
  });

  it('matches options forgivingly but not ambiguously', () => {
    const countries = [
      { label: 'United Kingdom (UK)', value: 'GB' },
      { label: 'United States (US)', value: 'US' },
      { label: 'Ukraine', value: 'UA' },
    ];
    expect(matchChoice('united kingdom', countries)).toBe(0);
    expect(matchChoice('UK', countries)).toBe(0);
    expect(matchChoice('usa', countries)).toBe(1);
    // Sharing a word is not meaning the same: 'United' is neither country.
    expect(matchChoice('United', countries)).toBe(-1);
    expect(
      matchChoice('United', [
        { label: 'United - North', value: 'n' },
        { label: 'United - South', value: 's' },
      ]),
    ).toBe(-2);
    expect(matchChoice('France', countries)).toBe(-1);
    expect(
      matchChoice(true, [
        { label: 'No', value: 'n' },
        { label: 'Yes', value: 'y' },
      ]),
    ).toBe(1);
    expect(
      matchChoice(5, [
        { label: 'April', value: '04' },
        { label: 'May', value: '05' },
      ]),
    ).toBe(1);
  });

  it('formats dates after hints', () => {
    const d = { year: 2007, month: 3, day: 7 };
    expect(dateFormatFromHint('Use the format dd/mm/yyyy')).toBe('DD/MM/YYYY');
    expect(dateFormatFromHint('MM-DD-YYYY')).toBe('MM-DD-YYYY');
    expect(dateFormatFromHint('For example, 27 3 2007')).toBeNull();
    expect(formatDate(d, 'DD/MM/YYYY')).toBe('07/03/2007');
    expect(formatDate(d, 'D MMMM YYYY')).toBe('7 March 2007');
  });

  it('flattens nested form_data but keeps file objects whole', () => {
    const file = { name: 'a.txt', mime_type: 'text/plain', content_base64: 'aGk=' };
    const entries = flattenFormData(
      { address: { city: 'York', street: '1 High St' }, cv: file, pin: '1234' },
      {
        type: 'object',
        required: ['address'],
        properties: { address: { type: 'object', required: ['city'], properties: { city: { title: 'Town' } } } },
      },
    );
    expect(entries.map((e) => [e.key, e.title, e.required, e.secret])).toEqual([
      ['address.city', 'Town', true, false],
      ['address.street', '', false, false],
      ['cv', '', false, false],
      ['pin', '', false, true],
    ]);
    expect(filePayloads(file)[0]?.buffer.toString()).toBe('hi');
    expect(filePayloads('data:text/plain;base64,aGk=')[0]).toMatchObject({
      name: 'upload-1.txt',
      mimeType: 'text/plain',
    });
  });

  it("ends a click's settle on new controls for a next button only: a submit waits the quiet period", () => {
    expect(clickSettleArgs('next')).toMatchObject({ controlsEnd: true, quietMs: 50 });
    expect(clickSettleArgs('submit')).toMatchObject({ controlsEnd: false, quietMs: 50 });
  });

  it('classifies buttons', () => {
    expect(classifyButton('Save and continue', 'submit')).toBe('next');
    expect(classifyButton('Accept and send', 'submit')).toBe('submit');
    expect(classifyButton('Back', 'submit')).toBeNull();
    expect(classifyButton('Accept additional cookies', 'button')).toBeNull();
    expect(classifyButton('Go', 'submit')).toBe('submit');
    expect(classifyButton('Upload and send', 'submit')).toBe('submit');
    expect(classifyButton('Send feedback', 'submit')).toBe('submit');
    expect(classifyButton('Give feedback', 'submit')).toBeNull();
    expect(classifyButton('Send feedback', 'button')).toBeNull();
    expect(classifyButton('feedback', 'link')).toBeNull();
  });

  it('matches an option only when the meaning is the same, and says how', () => {
    const options = (...labels: string[]) => labels.map((label, i) => ({ label, value: `v${i}` }));
    const zone = options('Café Zone ☕', 'Zone Über');
    expect(findChoice('Zone Ø', zone)).toEqual({ index: -1 });
    expect(findChoice('Zone', zone)).toEqual({ index: -1 });
    expect(findChoice('ZONE  über', zone)).toEqual({ index: 1, how: 'normalised' });
    expect(findChoice('Zone Uber', zone)).toEqual({ index: 1, how: 'normalised' });
    // Folding accents would make two options one: then only the exact spelling counts.
    expect(findChoice('Resume', options('Résumé', 'Resume'))).toEqual({ index: 1, how: 'exact' });
    expect(findChoice('resumé', options('Résumé', 'Resume'))).toEqual({ index: -2 });
    expect(findChoice('CA', options('Alabama', 'California'))).toEqual({ index: 1, how: 'synonym' });
    expect(findChoice('California', [{ label: 'CA', value: 'CA' }])).toEqual({ index: 0, how: 'synonym' });
    expect(findChoice('GB', options('France', 'United Kingdom'))).toEqual({ index: 1, how: 'synonym' });
    expect(findChoice('Holland', options('Netherlands', 'Belgium'))).toEqual({ index: 0, how: 'synonym' });
    expect(findChoice(3, options('January', 'February', 'March'))).toEqual({ index: 2, how: 'synonym' });
    expect(findChoice(true, options('Yes', 'No'))).toEqual({ index: 0, how: 'normalised' });
    expect(findChoice('phone', options('By email', 'By phone'))).toEqual({ index: 1, how: 'synonym' });
    expect(findChoice('superfast', options('Basic — 10 Mb', 'Superfast — 80 Mb'))).toEqual({
      index: 1,
      how: 'normalised',
    });
    expect(findChoice('Bicycle', options('Car', 'Van', 'Motorcycle'))).toEqual({ index: -1 });
    // Negations are never filler: "I do not have one" is not "I have one".
    expect(findChoice('I have one', options('I do not have one', 'I have two'))).toEqual({ index: -1 });
    expect(
      realChoices([
        { label: 'Choose…', value: '' },
        { label: 'Car', value: 'car' },
        { label: '-- Select --', value: '' },
      ]),
    ).toEqual([{ label: 'Car', value: 'car' }]);
  });

  it('writes a value in the shape of an input mask, and drops a unit the control already shows', () => {
    expect(fitToMask('123456789', '___ __ ____', String.raw`^(?!(000|666|9))\d{3} (?!00)\d{2} (?!0000)\d{4}$`)).toBe(
      '123 45 6789',
    );
    expect(fitToMask('123-45-6789', '___ __ ____', '')).toBe('123 45 6789');
    expect(fitToMask('(202) 555-0123', '___-___-____', '')).toBe('202-555-0123');
    expect(fitToMask('a1b2c3', 'A#A #A#', '')).toBe('a1b 2c3');
    expect(fitToMask('12345678', '___ __ ____', '')).toBeNull();
    expect(fitToMask('abcdefghi', '### ## ####', '')).toBeNull();
    expect(fitToMask('1990-12-10', 'DD/MM/YYYY', '')).toBeNull();
    expect(withoutAffixes('£1,250', '£')).toBe('1,250');
    expect(withoutAffixes('72 kg', 'kg')).toBe('72');
    expect(withoutAffixes('40 per hour', 'per hour')).toBe('40');
    expect(withoutAffixes('kg of flour', 'kg')).toBe('kg of flour');
    expect(parseMonthYear('2019-05')).toEqual({ year: 2019, month: 5 });
    expect(parseMonthYear('May 2019')).toEqual({ year: 2019, month: 5 });
    expect(parseMonthYear('13/2019')).toBeNull();
  });

  it('reads schema wording that says the same as the page in other words', () => {
    expect(textSimilarity('Weight in kilograms', 'Weight kg')).toBe(1);
    expect(textSimilarity('Total value (GBP)', 'Cost £')).toBeGreaterThan(0.8);
    expect(
      textSimilarity('Month I moved in', 'When did you move to this address? month year date'),
    ).toBeGreaterThanOrEqual(0.5);
    expect(textSimilarity('social security number', 'SSN')).toBe(1);
    expect(textSimilarity('has_passport', 'Do you have a passport?')).toBe(1);
  });
});
