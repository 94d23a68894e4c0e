// tier: unit
import { describe, expect, it } from 'vitest';
import { extractFormData } from '../../src-main/engine/documents/extract.ts';
import type { DocumentField, ReadDocument } from '../../src-main/engine/documents/types.ts';

function doc(
  name: string,
  fields: Array<Omit<DocumentField, 'source'> & { page?: number | null; text?: string }>,
  pageTexts: ReadDocument['pageTexts'] = [],
): ReadDocument {
  return {
    name,
    contentType: 'application/pdf',
    size: 100,
    pages: Math.max(1, pageTexts.length),
    pageTexts,
    fields: fields.map((f) => ({
      name: f.name,
      value: f.value,
      kind: f.kind,
      source: { document: name, page: f.page === undefined ? 1 : f.page, text: f.text ?? `${f.name}: ${f.value}` },
    })),
  };
}

const schema = {
  type: 'object',
  properties: {
    first_name: { type: 'string', title: 'First name' },
    last_name: { type: 'string', title: 'Last name' },
    dob: { type: 'string', format: 'date', title: 'Date of birth' },
    email: { type: 'string', format: 'email' },
    has_passport: { type: 'boolean', title: 'Do you have a passport?' },
    children: { type: 'integer', title: 'Number of children' },
    country: { type: 'string', enum: ['United Kingdom', 'France', 'Germany'], title: 'Country' },
    address: {
      type: 'object',
      properties: {
        postcode: { type: 'string', title: 'Postcode', pattern: '^[A-Z0-9 ]+$' },
        city: { type: 'string' },
      },
      required: ['postcode'],
    },
  },
  required: ['first_name', 'last_name', 'dob', 'email', 'address'],
};

describe('built-in extraction into a form_schema', () => {
  it('maps AcroForm names, label lines, CSV headers and JSON keys onto properties by name, title and lexicon, adapting types', () => {
    const pdf = doc('application.pdf', [
      { name: 'Given Name', value: 'Ada', kind: 'form_field', text: 'Given Name' },
      { name: 'Surname', value: 'Lovelace', kind: 'form_field' },
      { name: 'Date of Birth', value: '10 December 1815', kind: 'form_field' },
      { name: 'Passport', value: 'Yes', kind: 'form_field' },
    ]);
    const csv = doc('contact.csv', [
      {
        name: 'E-mail address',
        value: 'ada@example.org',
        kind: 'csv',
        page: null,
        text: 'E-mail address,ada@example.org',
      },
      { name: 'Zip code', value: 'SW1A 1AA', kind: 'csv', page: null },
      { name: 'Number of children', value: '3', kind: 'csv', page: null },
    ]);
    const letter: ReadDocument = {
      name: 'letter.txt',
      contentType: 'text/plain',
      size: 50,
      pages: 1,
      fields: [],
      pageTexts: [{ page: null, text: 'Dear sir, here are my details.\nCountry: UK\nTown: London\n', ocr: false }],
    };
    const r = extractFormData([pdf, csv, letter], schema);
    expect(r.form_data).toEqual({
      first_name: 'Ada',
      last_name: 'Lovelace',
      dob: '1815-12-10',
      email: 'ada@example.org',
      has_passport: true,
      children: 3,
      country: 'United Kingdom',
      address: { postcode: 'SW1A 1AA', city: 'London' },
    });
    expect(r.missing).toEqual([]);
    expect(r.sources.first_name).toEqual({ document: 'application.pdf', page: 1, text: 'Given Name' });
    expect(r.sources.email).toEqual({ document: 'contact.csv', page: null, text: 'E-mail address,ada@example.org' });
    expect(r.sources.country).toEqual({ document: 'letter.txt', page: null, text: 'Country: UK' });
    expect(r.sources['address.city']?.text).toBe('Town: London');
  });

  it('never guesses between two different values, an ambiguous date or a value that is none of the options', () => {
    const a = doc('a.pdf', [
      { name: 'First name', value: 'Ada', kind: 'form_field' },
      { name: 'Last name', value: 'Lovelace', kind: 'form_field' },
      { name: 'DOB', value: '10/12/1990', kind: 'label_line' },
      { name: 'Country', value: 'Spain', kind: 'label_line' },
    ]);
    const b = doc('b.csv', [
      { name: 'first_name', value: 'Augusta', kind: 'csv', page: null },
      { name: 'last_name', value: 'LOVELACE ', kind: 'csv', page: null },
      { name: 'last name', value: 'Lovelace', kind: 'csv', page: null },
    ]);
    const r = extractFormData([a, b], schema);
    expect(r.form_data.first_name).toBeUndefined();
    expect(r.form_data.dob).toBeUndefined();
    expect(r.form_data.country).toBeUndefined();
    expect(r.missing).toEqual(expect.arrayContaining(['first_name', 'dob', 'country', 'email', 'address.postcode']));
    expect(r.missing).not.toContain('has_passport');
    expect(r.reasons.first_name).toMatch(/different values/);
    expect(r.reasons.dob).toMatch(/two dates/);
    expect(r.reasons.country).toMatch(/none of its options/);
    expect(r.reasons.email).toMatch(/nothing in the documents/);
    // The same value twice is one value; "LOVELACE" and "Lovelace" differ as text, so both are offered, not one picked.
    expect(r.conflicts.map((c) => [c.key, c.values.map((v) => v.value)])).toEqual([
      ['first_name', ['Ada', 'Augusta']],
      ['last_name', ['Lovelace', 'LOVELACE']],
    ]);
  });

  it('marks values read by OCR in their source and drops what the schema refuses', () => {
    const scan: ReadDocument = {
      name: 'scan.png',
      contentType: 'image/png',
      size: 10,
      pages: 1,
      fields: [],
      pageTexts: [{ page: 1, text: 'Email: ada@example.org\nPostcode: sw1a-1aa\nNumber of children: two', ocr: true }],
    };
    const r = extractFormData([scan], schema);
    expect(r.form_data.email).toBe('ada@example.org');
    expect(r.sources.email).toEqual({ document: 'scan.png', page: 1, text: 'Email: ada@example.org', ocr: true });
    expect(r.form_data.address).toEqual({});
    expect(r.missing).toContain('address.postcode');
    expect(r.reasons['address.postcode']).toMatch(/does not fit/);
    expect(r.form_data.children).toBeUndefined();
    expect(r.reasons.children).toMatch(/whole number/);
  });

  it('leaves hostile or unrelated text alone: long lines, sentences, names that match no property', () => {
    const text = `${'x'.repeat(5000)}: y\nNote: this is a note\nThe meeting is at: 10am on a sunny day in May\nFavourite colour: blue`;
    const r = extractFormData(
      [
        {
          name: 't.txt',
          contentType: 'text/plain',
          size: text.length,
          pages: 1,
          fields: [],
          pageTexts: [{ page: null, text, ocr: false }],
        },
      ],
      schema,
    );
    expect(r.form_data).toEqual({});
    expect(Object.keys(r.sources)).toEqual([]);
  });
});
