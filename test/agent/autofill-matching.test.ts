import { describe, expect, it } from 'vitest';

import { flattenFormData } from '../../src-main/agent/autofill/entries.ts';
import { classifyButton } from '../../src-main/agent/autofill/navigation.ts';
import { textSimilarity } from '../../src-main/agent/autofill/textNorm.ts';
import { dateFormatFromHint, filePayloads, formatDate, matchChoice } from '../../src-main/agent/autofill/valueAdapter.ts';

describe('autofill matching (no browser)', () => {
  it('treats synonyms as the same field', () => {
    const same: Array<[string, string]> = [
      ['date_of_birth', 'Date of birth'], ['dob', 'What is your date of birth?'], ['zip', 'Postcode'], ['zip', 'Postal code'],
      ['first_name', 'Given name'], ['last_name', 'Surname'], ['last_name', 'Family name'], ['phone', 'Telephone'],
      ['phone', 'Mobile number'], ['email', 'E-mail address'], ['emailAddress', 'Email'], ['company', 'Organisation'],
    ];
    for (const [key, label] of same) expect(textSimilarity(key, label), `${key} ~ ${label}`).toBe(1);
    expect(textSimilarity('first_name', 'Last name')).toBe(0);
    expect(textSimilarity('email', 'Confirm email address')).toBeGreaterThan(0.5);
    expect(textSimilarity('email', 'Confirm email address')).toBeLessThan(0.8);
  });

  it('matches options forgivingly but not ambiguously', () => {
    const countries = [{ label: 'United Kingdom (UK)', value: 'GB' }, { label: 'United States (US)', value: 'US' }, { label: 'Ukraine', value: 'UA' }];
    expect(matchChoice('united kingdom', countries)).toBe(0);
    expect(matchChoice('UK', countries)).toBe(0);
    expect(matchChoice('usa', countries)).toBe(1);
    // Sharing a word is not meaning the same: 'United' is neither country.
    expect(matchChoice('United', countries)).toBe(-1);
    expect(matchChoice('United', [{ label: 'United - North', value: 'n' }, { label: 'United - South', value: 's' }])).toBe(-2);
    expect(matchChoice('France', countries)).toBe(-1);
    expect(matchChoice(true, [{ label: 'No', value: 'n' }, { label: 'Yes', value: 'y' }])).toBe(1);
    expect(matchChoice(5, [{ label: 'April', value: '04' }, { label: 'May', value: '05' }])).toBe(1);
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
      { type: 'object', required: ['address'], properties: { address: { type: 'object', required: ['city'], properties: { city: { title: 'Town' } } } } },
    );
    expect(entries.map((e) => [e.key, e.title, e.required, e.secret])).toEqual([
      ['address.city', 'Town', true, false], ['address.street', '', false, false], ['cv', '', false, false], ['pin', '', false, true],
    ]);
    expect(filePayloads(file)[0]?.buffer.toString()).toBe('hi');
    expect(filePayloads('data:text/plain;base64,aGk=')[0]).toMatchObject({ name: 'upload-1.txt', mimeType: 'text/plain' });
  });

  it('classifies buttons', () => {
    expect(classifyButton('Save and continue', 'submit')).toBe('next');
    expect(classifyButton('Accept and send', 'submit')).toBe('submit');
    expect(classifyButton('Back', 'submit')).toBeNull();
    expect(classifyButton('Accept additional cookies', 'button')).toBeNull();
    expect(classifyButton('Go', 'submit')).toBe('submit');
    expect(classifyButton('Upload and send', 'submit')).toBe('submit');
  });
});
