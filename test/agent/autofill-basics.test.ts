import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { govukWizard } from '../fixtures/forms/dynamicPages.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

const wizard = govukWizard();
// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest(wizard.handlers);

describe('AutofillAgent — labels, choices, wizards', () => {
  test('matches keys to labels of every style and submits what it filled', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/labels.html'),
      formData: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.org',
        phone: '07700 900123',
        zip: 'SW1A 1AA',
        city: 'London',
        company: 'Analytical Engines Ltd',
        date_of_birth: '1815-12-10',
        notes: 'Call after 5pm',
        password: 'hunter2-secret',
      },
      formSchema: {
        type: 'object',
        properties: {
          notes: { type: 'string', title: 'How can we help?' },
          password: { type: 'string', format: 'password' },
        },
      },
    });
    const outcome = await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/labels')).toHaveLength(1);
    expect(forms.postsTo('/submit/labels')[0]?.fields).toEqual({
      field_1: 'Ada',
      field_2: 'Lovelace',
      field_3: 'ada@example.org',
      field_4: '07700 900123',
      field_5: 'SW1A 1AA',
      field_6: 'London',
      field_7: 'Analytical Engines Ltd',
      field_8: '1815-12-10',
      field_9: 'Call after 5pm',
      field_10: 'hunter2-secret',
    });
    expect(outcome.result).toMatchObject({
      submitted: true,
      reference: 'HDJ2123F1',
      confirmation_text: expect.stringContaining('Application complete'),
    });
    expect((outcome.result.fields as Record<string, string>).password).toBe('[secret]');
    expect(ctx.steps.map((s) => s.description)).toEqual([
      expect.stringContaining("clicking 'Send'"),
      expect.stringContaining('Final page'),
    ]);
    expect(ctx.logs.join('\n')).not.toContain('hunter2');
    expect(ctx.logs.join('\n')).toContain('first_name →');
  });

  test('flattens nested objects and uses fieldset legends to tell same-named fields apart', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/nested.html'),
      formData: {
        home_address: { street: '1 High St', city: 'York' },
        work_address: { street: '9 Mill Rd', city: 'Leeds' },
        address: { postcode: 'YO1 7HH' },
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/nested')[0]?.fields).toEqual({
      h1: '1 High St',
      h2: 'York',
      w1: '9 Mill Rd',
      w2: 'Leeds',
      'address[postcode]': 'YO1 7HH',
    });
  });

  test('chooses select options, radios, checkbox groups, split dates and single checkboxes', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/choices.html'),
      formData: {
        title: 'dr',
        country: 'united kingdom',
        contact_method: 'phone',
        topics: ['news', 'Events'],
        start_date: '2026-03-27',
        terms: true,
        newsletter: 'no',
      },
      formSchema: {
        type: 'object',
        properties: {
          contact_method: { title: 'How should we contact you?' },
          start_date: { title: 'When do you want to start?' },
        },
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/choices')[0]?.fields).toEqual({
      ttl: '4',
      ctry: 'GB',
      contact: 'P',
      'topics[]': ['news', 'events'],
      'start-day': '27',
      'start-month': 'March',
      'start-year': '2026',
      tc: 'accepted',
    });
  });

  test('reveals a conditional field by choosing the option that shows it', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/conditional.html'),
      formData: { has_passport: 'Yes', passport_number: '925665416' },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/conditional')[0]?.fields).toEqual({ has_pp: 'yes', ppn: '925665416' });
  });

  test('waits for a client-rendered form and walks steps that swap without navigation', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/spa.html'),
      formData: { nickname: 'grace', rating: 'good' },
    });
    const outcome = await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/spa')[0]?.fields).toEqual({ nick: 'grace', rating: 'Good' });
    expect(outcome.result).toMatchObject({
      reference: 'SPA-1001',
      confirmation_text: expect.stringContaining('Your answers have been received'),
    });
    expect(ctx.steps).toHaveLength(3);
  });

  test('walks a GOV.UK wizard, confirms the check-your-answers page and reads the reference', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/wizard/name'),
      formData: {
        full_name: 'Grace Hopper',
        contact_preference: 'Email',
        email: 'grace@example.org',
        dob: '1906-12-09',
      },
      outputSchema: {
        type: 'object',
        required: ['reference_number'],
        properties: { reference_number: { type: 'string' }, confirmation: { type: 'string' } },
      },
    });
    const outcome = await new AutofillAgent().run(ctx);
    expect(wizard.answers).toEqual({
      'full-name': 'Grace Hopper',
      contact: 'email',
      'contact-email': 'grace@example.org',
      'dob-day': '9',
      'dob-month': '12',
      'dob-year': '1906',
    });
    expect(outcome.result).toEqual({
      reference_number: 'HDJ2123F',
      confirmation: expect.stringContaining('Application complete'),
    });
    expect(ctx.steps.map((s) => s.description)).toEqual([
      expect.stringContaining("Filled 1 field(s) on 'What is your full name?'"),
      expect.stringContaining("Filled 2 field(s) on 'How would you like to be contacted?'"),
      expect.stringContaining("Filled 1 field(s) on 'What is your date of birth?'"),
      expect.stringContaining(
        "Reviewed answers on 'Check your answers before sending your application'; clicking 'Accept and send'",
      ),
      expect.stringContaining('Final page'),
    ]);
    expect(ctx.steps.every((s) => s.screenshot.length > 1000)).toBe(true);
  });
});
