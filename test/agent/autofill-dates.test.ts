import type { IncomingMessage, ServerResponse } from 'node:http';

import {
  dateFormatForLang,
  dateFormatFromExample,
  dateReadings,
  parseDateValue,
} from '../../src-main/agent/autofill/dates.ts';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

/** One date field on a page in the language `?lang=` names, with no format hint at all. */
function localePage(req: IncomingMessage, res: ServerResponse): void {
  const lang = new URL(req.url ?? '/', 'http://x').searchParams.get('lang') ?? 'en';
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8">
    <title>Form</title></head><body><h1>Registration</h1><form method="post" action="/submit/locale-${lang}">
    <p><label for="dob">Date of birth</label> <input id="dob" name="dob"></p><button type="submit">Send</button></form></body></html>`);
}

// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest({ '/locale': localePage });

describe('autofill dates (no browser)', () => {
  test('reads dates written the ways people write them, and both ways when numeric and ambiguous', () => {
    const dec10 = { year: 1990, month: 12, day: 10 };
    for (const text of [
      '1990-12-10',
      '1990-12-10T00:00:00Z',
      '10 December 1990',
      'Dec 10, 1990',
      '10th Dec 1990',
      'Monday 10 December 1990',
      '10-Dec-1990',
      '10.12.1990',
    ]) {
      expect(dateReadings(text), text).toEqual([dec10]);
    }
    expect(dateReadings('25/12/1990')).toEqual([{ year: 1990, month: 12, day: 25 }]);
    expect(dateReadings('12/25/1990')).toEqual([{ year: 1990, month: 12, day: 25 }]);
    expect(dateReadings('10/12/1990')).toEqual([dec10, { year: 1990, month: 10, day: 12 }]);
    expect(parseDateValue('10/12/1990')).toBeNull();
    expect(parseDateValue('10/12/1990', 'MDY')).toEqual({ year: 1990, month: 10, day: 12 });
    for (const text of ['31/02/1990', 'hello 10 1990', '1990-13-01', 'ACME-10-12'])
      expect(dateReadings(text), text).toEqual([]);
  });

  test('picks a text field format from an example or the page language', () => {
    expect(dateFormatFromExample('For example, 27 3 2007', null)).toBe('D M YYYY');
    expect(dateFormatFromExample('e.g. 03/27/2007', null)).toBe('MM/DD/YYYY');
    expect(dateFormatFromExample('e.g. 31 January 2030', null)).toBe('D MMMM YYYY');
    expect(dateFormatFromExample('e.g. 01/02/2003', null)).toBeNull();
    expect(dateFormatFromExample('e.g. 01/02/2003', 'DMY')).toBe('DD/MM/YYYY');
    expect([
      dateFormatForLang('en-GB'),
      dateFormatForLang('en-US'),
      dateFormatForLang('de-AT'),
      dateFormatForLang('en'),
    ]).toEqual(['DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY', null]);
  });
});

describe('AutofillAgent — dates', () => {
  test('types non-ISO dates in the format each field shows by example or the page language implies, first time', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/dates.html'),
      formData: {
        date_of_birth: '10 December 1990',
        moving_date: 'Dec 10, 2026',
        passport_expiry_date: '2031-03-05T00:00:00Z',
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/dates')[0]?.fields).toEqual({
      dob: '10 12 1990',
      moving: '10/12/2026',
      expiry: '5 March 2031',
    });
    // One filled page and the final one: the site never had to reject a format.
    expect(ctx.steps).toHaveLength(2);
  });

  test('follows lang="de" and lang="en-US" when a date field gives no hint', async ({ formPage: page, forms }) => {
    for (const lang of ['de', 'en-US']) {
      await new AutofillAgent().run(
        fakeContext({ page, startUrl: forms.url(`/locale?lang=${lang}`), formData: { date_of_birth: '1990-12-25' } }),
      );
    }
    expect(forms.postsTo('/submit/locale-de')[0]?.fields).toEqual({ dob: '25.12.1990' });
    expect(forms.postsTo('/submit/locale-en-US')[0]?.fields).toEqual({ dob: '12/25/1990' });
  });

  test('settles 10/12/2026 from the schema, else asks which date is meant, else fails saying how to fix it', async ({
    formPage: page,
    forms,
  }) => {
    const hinted = fakeContext({
      page,
      startUrl: forms.url('/forms/date-native.html'),
      formData: { course: 'Welding', start_date: '10/12/2026' },
      formSchema: {
        type: 'object',
        properties: { start_date: { type: 'string', description: 'Start date (DD/MM/YYYY)' } },
      },
    });
    await new AutofillAgent().run(hinted);
    expect(forms.postsTo('/submit/date-native').at(-1)?.fields).toEqual({ course: 'Welding', start: '2026-12-10' });

    const asking = fakeContext({
      page,
      startUrl: forms.url('/forms/date-native.html'),
      formData: { course: 'Welding', start_date: '10/12/2026' },
      answers: ['12 October 2026'],
    });
    await new AutofillAgent().run(asking);
    expect(asking.questions).toEqual([
      {
        question: "Which date is '10/12/2026' for 'Start date'?",
        options: ['10 December 2026', '12 October 2026'],
        message: "form_data 'start_date' reads as 10 December 2026 (day first) or 12 October 2026 (month first).",
      },
    ]);
    expect(forms.postsTo('/submit/date-native').at(-1)?.fields).toEqual({ course: 'Welding', start: '2026-10-12' });

    const failing = fakeContext({
      page,
      startUrl: forms.url('/forms/date-native.html'),
      formData: { course: 'Welding', start_date: '10/12/2026' },
    });
    await expect(new AutofillAgent().run(failing)).rejects.toThrow(
      "form_data 'start_date' is the ambiguous date '10/12/2026' (10 December 2026 or 12 October 2026) and 'Start date' needs an exact date; give it as YYYY-MM-DD",
    );
  });
});
