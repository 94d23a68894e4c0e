import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest({});

describe('AutofillAgent — ARIA widgets, contenteditable, datalist', () => {
  test('checks div radios, checkboxes and switches by their accessible names and verifies aria-checked', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/aria-choices.html'),
      formData: {
        plan: 'superfast',
        add_ons: ['static ip address', 'Premium support'],
        paperless_billing: true,
        accept_terms: 'yes',
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/aria-choices')).toHaveLength(1);
    expect(forms.postsTo('/submit/aria-choices')[0]?.fields).toEqual({
      plan: 's',
      paperless: 'on',
      'addons[]': ['ip', 'support'],
      terms: 'yes',
    });
    const log = ctx.logs.join('\n');
    expect(log).toContain("plan → 'Choose your plan' (radio-aria name=plan) = Superfast — 80 Mb");
    expect(log).toContain("add_ons → 'Add-ons' (checkboxGroup-aria) = Static IP address, Premium support");
    expect(log).toContain("paperless_billing → 'Paperless billing' (switch-aria) = checked");
    // Its click handler sits on the drawn box, not the text: Space on the focused checkbox does it.
    expect(log).toContain("accept_terms → 'I accept the terms of service' (checkbox-aria #terms) = checked");
  });

  test('opens MUI-, Headless UI- and React-Select-style lists, picks by label and checks what they show', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/aria-selects.html'),
      formData: {
        full_name: 'Hedy Lamarr',
        department: 'engineering',
        start_month: 'march',
        preferred_language: 'spanish',
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/aria-selects')[0]?.fields).toEqual({
      full_name: 'Hedy Lamarr',
      department: 'eng',
      start_month: 'March',
      language: 'es',
    });
    const log = ctx.logs.join('\n');
    expect(log).toContain("department → 'Department' (select-aria name=department) = Engineering");
    expect(log).toContain("start_month → 'Start month' (select-aria name=start_month) = March");
    expect(log).toContain("preferred_language → 'Preferred language' (combobox #rs-input) = Spanish");
  });

  test('asks with the list options when a value matches none of them (div listbox and react-select)', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/aria-selects.html'),
      formData: {
        full_name: 'Hedy Lamarr',
        department: 'Marketing',
        start_month: 'February',
        preferred_language: 'Klingon',
      },
      answers: ['Sales', 'April', 'German'],
    });
    await new AutofillAgent().run(ctx);
    expect(ctx.questions).toEqual([
      expect.objectContaining({
        question: "'Marketing' isn't one of the options for 'Department'. Which should I choose?",
        options: ['Engineering', 'Design', 'Sales', 'Customer support'],
      }),
      // February is fully booked (aria-disabled), so it is not offered.
      expect.objectContaining({
        question: "'February' isn't one of the options for 'Start month'. Which should I choose?",
        options: ['January', 'March', 'April', 'May', 'June'],
      }),
      expect.objectContaining({
        question: "'Klingon' isn't one of the options for 'Preferred language'. Which should I choose?",
        options: ['English', 'French', 'German', 'Portuguese (Brazil)', 'Portuguese (Portugal)', 'Spanish'],
      }),
    ]);
    expect(forms.postsTo('/submit/aria-selects').at(-1)?.fields).toEqual({
      full_name: 'Hedy Lamarr',
      department: 'sales',
      start_month: 'April',
      language: 'de',
    });
  });

  test('types into contenteditable editors and picks datalist suggestions by label', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/editable.html'),
      formData: {
        cover_letter: 'I have built forms for ten years.',
        short_bio: 'Maintainer of Portico',
        nearest_airport: 'london heathrow',
        job_title: 'software engineer',
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/editable')[0]?.fields).toEqual({
      cover_letter: 'I have built forms for ten years.',
      bio: 'Maintainer of Portico',
      airport: 'LHR',
      job: 'Software engineer',
    });
    const log = ctx.logs.join('\n');
    expect(log).toContain("cover_letter → 'Cover letter' (contenteditable #cover) = I have built forms for ten years.");
    expect(log).toContain("short_bio → 'Short bio' (textbox-aria #bio) = Maintainer of Portico");
    expect(log).toContain("nearest_airport → 'Nearest airport' (datalist name=airport) = LHR");
  });
});
