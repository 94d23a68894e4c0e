// tier: unit
import { describe, expect, it } from 'vitest';

import { sameMeaning, samePhone, timeOfDay } from '../../src-main/agent/autofill/sameMeaning.ts';
import { buildResult, type PageFacts } from '../../src-main/agent/autofill/resultBuilder.ts';
import { checkRequest, requestFields, type PlacedCheck } from '../../src-main/agent/autofill/submissionCheck.ts';

describe('sameMeaning: one comparison for the read-back and the request check', () => {
  it('phones compare by digits; a country code or trunk 0 may go, a digit may not change or move', () => {
    expect(sameMeaning('+1 503 555 0182', '(503) 555-0182')).toBe('same');
    expect(sameMeaning('+1 503 555 0182', '15035550182')).toBe('same');
    expect(sameMeaning('+44 7700 900123', '07700 900123')).toBe('same');
    expect(sameMeaning('+1 503 555 0182', '(150) 355-5018')).toBe('different');
    expect(sameMeaning('503 555 0182', '503 555 0128')).toBe('different');
    expect(samePhone('07700 900123', '07700 900124')).toBe(false);
    expect(sameMeaning('123456789', '123 45 6789')).toBe('same');
  });

  it('dates and times match across formats and 12/24 h; another day or hour never', () => {
    expect(sameMeaning('2026-03-27', '27/03/2026')).toBe('same');
    expect(sameMeaning('2026-03-27', 'March 27, 2026')).toBe('same');
    expect(sameMeaning('2031-03-05T00:00:00Z', '5 March 2031')).toBe('same');
    expect(sameMeaning('2026-03-27', '2026-03-28')).toBe('different');
    expect(sameMeaning('15:00', '3:00 PM')).toBe('same');
    expect(sameMeaning('15:00', '03:00 AM')).toBe('different');
    expect(sameMeaning('2026-03-27T15:00', '27/03/2026 3:00 pm')).toBe('same');
    expect(sameMeaning('2026-03-27T15:00', '27/03/2026')).toBe('different');
    expect(timeOfDay('12:30 am')).toBe(30);
  });

  it('numbers, choices by value or label, free text up to case and spacing', () => {
    expect(sameMeaning('£1,250', '1250')).toBe('same');
    expect(sameMeaning('1,250', '1,205')).toBe('different');
    const options = [
      { label: 'Texas', value: 'TX' },
      { label: 'Tennessee', value: 'TN' },
    ];
    expect(sameMeaning('Texas', 'TX', { options })).toBe('same');
    expect(sameMeaning('Texas', 'TN', { options })).toBe('different');
    expect(sameMeaning('Ada  Lovelace', 'ada lovelace')).toBe('same');
    expect(sameMeaning('Ada Lovelace', 'Ada Byron')).toBe('different');
  });
});

describe('submission check: what a request carries', () => {
  const placed = (key: string, given: string, names: string[], extra: Partial<PlacedCheck> = {}): PlacedCheck => ({
    key,
    label: key,
    given,
    names,
    sent: [given],
    options: [],
    kind: 'text',
    secret: false,
    ...extra,
  });

  it('reads urlencoded, multipart, nested JSON, GraphQL variables and a GET query', () => {
    expect(requestFields('POST', 'http://x/s', 'application/x-www-form-urlencoded', Buffer.from('a=1&b=x+y'))).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: 'x y' },
    ]);
    const multipart = Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="n"\r\n\r\nAda\r\n--B\r\nContent-Disposition: form-data; name="f"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--B--\r\n',
    );
    expect(requestFields('POST', 'http://x/s', 'multipart/form-data; boundary=B', multipart)).toEqual([
      { name: 'n', value: 'Ada' },
      { name: 'f', value: 'a.pdf', file: true },
    ]);
    expect(
      requestFields('POST', 'http://x/s', 'application/json', Buffer.from('{"a":{"b":[{"c":"d"}]},"n":5}')),
    ).toEqual([
      { name: 'a.b[0].c', value: 'd' },
      { name: 'n', value: '5' },
    ]);
    expect(
      requestFields(
        'POST',
        'http://x/g',
        'application/json',
        Buffer.from('{"query":"mutation X { x }","variables":{"input":{"email":"a@b.c"}}}'),
      ),
    ).toEqual([{ name: 'input.email', value: 'a@b.c' }]);
    expect(requestFields('GET', 'http://x/s?q=a%20b', '', null)).toEqual([{ name: 'q', value: 'a b' }]);
  });

  it('verifies by name or anywhere, holds a changed value under its own name, leaves what it cannot find', () => {
    const fields = [
      { name: 'mobile', value: '(150) 355-5018' },
      { name: 'applicant.fullName', value: 'Ada Lovelace' },
    ];
    const result = checkRequest(fields, [
      placed('mobile_phone', '+1 503 555 0182', ['mobile']),
      placed('full_name', 'Ada Lovelace', ['nm']),
      placed('city', 'York', ['city']),
    ]);
    expect(result.verified).toEqual(['full_name']);
    expect(result.mismatches).toEqual([
      { key: 'mobile_phone', label: 'mobile_phone', sent: '(150) 355-5018', given: '+1 503 555 0182', secret: false },
    ]);
  });
});

describe('choices sent as codes the page never showed (custom listboxes)', () => {
  const custom = (...labels: string[]) => labels.map((label) => ({ label, value: '' }));
  it('a code the lexicon names is that option or another; any other code is unknown, never "same"', () => {
    const states = custom('Ohio', 'Oregon', 'Texas');
    expect(sameMeaning('Oregon', 'OR', { options: states })).toBe('same');
    expect(sameMeaning('Oregon', 'OH', { options: states })).toBe('different');
    expect(sameMeaning('Germany', 'DE', { options: custom('France', 'Germany') })).toBe('same');
    expect(sameMeaning('Germany', 'FR', { options: custom('France', 'Germany') })).toBe('different');
    expect(
      sameMeaning('Visual Studio Code', 'vscode', { options: custom('Visual Studio Code', 'IntelliJ IDEA') }),
    ).toBe('unknown');
    // Another option's label, or a text with spaces, is still a changed answer.
    expect(
      sameMeaning('Visual Studio Code', 'IntelliJ IDEA', { options: custom('Visual Studio Code', 'IntelliJ IDEA') }),
    ).toBe('different');
    expect(
      sameMeaning('Visual Studio Code', 'Visual Studio', { options: custom('Visual Studio Code', 'IntelliJ IDEA') }),
    ).toBe('different');
    // Options that carry values of their own (a native select): a value outside them is another answer.
    expect(
      sameMeaning('Texas', 'ZZ', {
        options: [
          { label: 'Texas', value: 'TX' },
          { label: 'Ohio', value: 'OH' },
        ],
      }),
    ).toBe('different');
  });
  it('the request check lists an unknown code as neither verified nor a mismatch (the receipt says unverified)', () => {
    const placedChoice = (key: string, given: string, labels: string[]): PlacedCheck => ({
      key,
      label: key,
      given,
      names: [key],
      sent: [given],
      options: custom(...labels),
      kind: 'choice',
      secret: false,
    });
    const result = checkRequest(
      [
        { name: 'editor', value: 'vscode' },
        { name: 'state', value: 'OR' },
        { name: 'country', value: 'FR' },
      ],
      [
        placedChoice('editor', 'Visual Studio Code', ['Visual Studio Code', 'IntelliJ IDEA']),
        placedChoice('state', 'Oregon', ['Ohio', 'Oregon']),
        placedChoice('country', 'Germany', ['France', 'Germany']),
      ],
    );
    expect(result.verified).toEqual(['state']);
    expect(result.mismatches.map((m) => [m.key, m.sent])).toEqual([['country', 'FR']]);
  });
});

describe('a list of choices (multi-select lists) in the request', () => {
  const topics = [
    { label: 'Testing', value: '' },
    { label: 'Performance', value: '' },
    { label: 'Accessibility', value: '' },
  ];
  const placedList = (items: string[], extra: Partial<PlacedCheck> = {}): PlacedCheck => ({
    key: 'topics',
    label: 'Topics',
    given: items.join(', '),
    names: [],
    sent: [],
    options: topics,
    kind: 'choice',
    secret: false,
    items,
    ...extra,
  });
  it('verifies a list whose every item is carried by a field of its name', () => {
    const fields = [
      { name: 'topics[0]', value: 'testing' },
      { name: 'topics[1]', value: 'performance' },
    ];
    expect(checkRequest(fields, [placedList(['Testing', 'Performance'])])).toEqual({
      verified: ['topics'],
      mismatches: [],
    });
  });
  it('holds a list carrying another option; a code nobody can read is neither verified nor held', () => {
    const other = [
      { name: 'topics[0]', value: 'testing' },
      { name: 'topics[1]', value: 'accessibility' },
    ];
    expect(checkRequest(other, [placedList(['Testing', 'Performance'])]).mismatches.map((m) => m.key)).toEqual([
      'topics',
    ]);
    const coded = [
      { name: 'topics[0]', value: 'testing' },
      { name: 'topics[1]', value: 'perf' },
    ];
    expect(checkRequest(coded, [placedList(['Testing', 'Performance'])])).toEqual({ verified: [], mismatches: [] });
  });
  it('options with values of their own: the values the list held are what must be sent', () => {
    const coded = [
      { label: 'Saturday', value: 'sat' },
      { label: 'Sunday', value: 'sun' },
      { label: 'Monday', value: 'mon' },
    ];
    const fields = [
      { name: 'days[0]', value: 'sat' },
      { name: 'days[1]', value: 'sun' },
    ];
    const placed = placedList(['Saturday', 'Sunday'], { key: 'days', options: coded, sent: ['sat', 'sun'] });
    expect(checkRequest(fields, [placed]).verified).toEqual(['days']);
    expect(
      checkRequest(
        [
          { name: 'days[0]', value: 'sat' },
          { name: 'days[1]', value: 'mon' },
        ],
        [placed],
      ).mismatches.map((m) => m.key),
    ).toEqual(['days']);
  });
});

describe('the result says submitted only as observed', () => {
  const facts: PageFacts = {
    url: 'http://x/done',
    title: 'Done',
    confirmation: 'Thank you',
    reference: 'AB-1234',
    pairs: [],
    text: 'Thank you',
  };
  it('without an output_schema and with one (a boolean "submitted"-like property)', () => {
    expect(buildResult(facts, null, {}, { submitted: false, receipt: null })).toMatchObject({ submitted: false });
    const schema = { type: 'object', properties: { submitted: { type: 'boolean' }, reference: { type: 'string' } } };
    expect(buildResult(facts, schema, {}, { submitted: false, receipt: null })).toEqual({
      submitted: false,
      reference: 'AB-1234',
    });
    expect(buildResult(facts, schema, {}, { submitted: true, receipt: null })).toEqual({
      submitted: true,
      reference: 'AB-1234',
    });
  });
});
