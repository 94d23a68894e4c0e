import { AgentFailure } from '../../src-main/agent/agentTypes.ts';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { errorThenFix, quoteResult } from '../fixtures/forms/dynamicPages.ts';
import { seededRandom } from '../helpers/browserFixtures.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

const PDF = Buffer.from('%PDF-1.4 fake cv\n');

// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest({ ...errorThenFix(), ...quoteResult() });

describe('AutofillAgent — validation, widgets, frames, results', () => {
  test('reads the error summary, reformats the date and strips the phone, then succeeds', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/errfix'),
      formData: { name: 'Alan Turing', date_of_birth: '1912-06-23', telephone: '01632 960 001' },
    });
    const outcome = await new AutofillAgent().run(ctx);
    const posts = forms.postsTo('/errfix');
    expect(posts.map((p) => [p.fields.birth, p.fields.telephone])).toEqual([
      ['1912-06-23', '01632 960 001'],
      ['23/06/1912', '01632960001'],
    ]);
    expect(outcome.result).toMatchObject({ reference: 'ERR-4471', submitted: true });
    expect(ctx.steps).toHaveLength(3);
    expect(ctx.logs.join('\n')).toContain('Date of birth must be a real date');
  });

  test('fixes values that fail HTML5 constraint validation before submitting', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/constraint.html'),
      formData: { visit_date: '2026-07-01', telephone: '+44 20 7946 0000', guests: 3 },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/constraint')[0]?.fields).toEqual({
      vd: '01.07.2026',
      ph: '+442079460000',
      guests: '3',
    });
  });

  test('drives an ARIA combobox by typing and clicking the option', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/combobox.html'),
      formData: { destination_country: 'united kingdom', order_reference: 'ORD-1' },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/combobox')[0]?.fields).toEqual({ country_code: 'GB', order_ref: 'ORD-1' });
  });

  test('types into an input mask key by key, humanized where the portal says so', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/masked.html'),
      formData: { name: 'Joan Clarke', phone: '555-123-4567', preferred_date: '2026-02-03' },
      humanized: (url) => url.includes('/forms/masked'),
    });
    await new AutofillAgent({ random: seededRandom(7), minKeyDelayMs: 1, maxKeyDelayMs: 4 }).run(ctx);
    expect(forms.postsTo('/submit/masked')[0]?.fields).toEqual({
      nm: 'Joan Clarke',
      ph: '(555) 123-4567',
      when: '02/03/2026',
    });
  });

  test('falls back to key-by-key typing when fill() does not stick, and handles enhanced selects', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/masked.html'),
      formData: { name: 'Joan Clarke', phone: '5551234567', preferred_date: '2026-02-03' },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/masked').at(-1)?.fields).toEqual({
      nm: 'Joan Clarke',
      ph: '(555) 123-4567',
      when: '02/03/2026',
    });
    expect(ctx.logs.join('\n')).toContain('Phone: value did not stick after fill, typing key by key');
    const enhanced = fakeContext({
      page,
      startUrl: forms.url('/forms/enhanced.html'),
      formData: { session: 'afternoon talk', event_date: '2026-09-14' },
      humanized: () => true,
    });
    await new AutofillAgent({ random: seededRandom(3), minKeyDelayMs: 1, maxKeyDelayMs: 2 }).run(enhanced);
    expect(forms.postsTo('/submit/enhanced')[0]?.fields).toEqual({ sess: 'pm', day: '2026-09-14' });
  });

  test('fills a form inside open shadow roots', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/shadow.html'),
      formData: { full_name: 'Katherine Johnson', email: 'kj@example.org' },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/shadow')[0]?.fields).toEqual({ n: 'Katherine Johnson', e: 'kj@example.org' });
  });

  test('fills a form inside a cross-origin iframe and reads the result from it', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/iframe.html'),
      formData: { first_name: 'Mary', last_name: 'Jackson', loan_amount: 2500 },
    });
    const outcome = await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/iframe')[0]?.fields).toEqual({ fname: 'Mary', lname: 'Jackson', amount: '2500' });
    expect(outcome.result).toMatchObject({
      reference: expect.stringMatching(/^HDJ2123F/),
      confirmation_text: expect.stringContaining('Application complete'),
    });
  });

  test('uploads files from a data URL and from file objects', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/upload.html'),
      formData: {
        cv: `data:application/pdf;base64,${PDF.toString('base64')}`,
        supporting_documents: [
          {
            name: 'payslip.txt',
            mime_type: 'text/plain',
            content_base64: Buffer.from('salary 100').toString('base64'),
          },
          { name: 'letter.txt', mime_type: 'text/plain', content_base64: Buffer.from('dear sir').toString('base64') },
        ],
        cover_note: 'See attached',
      },
    });
    await new AutofillAgent().run(ctx);
    const post = forms.postsTo('/submit/upload')[0];
    expect(post?.fields).toEqual({ note: 'See attached' });
    expect(post?.files.map((f) => [f.field, f.filename, f.contentType, f.content.toString()])).toEqual([
      ['cv', 'upload-1.pdf', 'application/pdf', PDF.toString()],
      ['docs', 'payslip.txt', 'text/plain', 'salary 100'],
      ['docs', 'letter.txt', 'text/plain', 'dear sir'],
    ]);
  });

  test('extracts the result per output_schema and coerces types', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/quote.html'),
      formData: { vehicle_registration: 'AB12 CDE', driver_age: 42 },
      outputSchema: {
        type: 'object',
        required: ['quote_number', 'annual_premium'],
        properties: {
          quote_number: { type: 'string' },
          annual_premium: { type: 'number' },
          excess: { type: 'integer' },
          cover_type: { type: 'string' },
          valid_until: { type: 'string' },
          instalments_available: { type: 'boolean' },
          status: { type: 'string' },
        },
      },
    });
    const outcome = await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/quote-result')[0]?.fields).toEqual({ reg: 'AB12 CDE', age: '42' });
    expect(outcome.result).toEqual({
      quote_number: 'Q-99812-B',
      annual_premium: 1234.5,
      excess: 250,
      cover_type: 'Comprehensive',
      valid_until: '30 June 2026',
      instalments_available: true,
      status: 'Quote issued for vehicle AB12 CDE',
    });
  });

  test('fails with a clear message when output_schema cannot be satisfied', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/quote.html'),
      formData: { vehicle_registration: 'AB12 CDE', driver_age: 42 },
      outputSchema: {
        type: 'object',
        required: ['policy_holder_signature'],
        properties: { policy_holder_signature: { type: 'string' } },
      },
    });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(
      "'policy_holder_signature' was not found on the final page",
    );
  });

  test('fails instead of looping when the page never advances', async ({ formPage: page, forms }) => {
    const ctx = fakeContext({ page, startUrl: forms.url('/forms/stuck.html'), formData: { message: 'Hello' } });
    await expect(new AutofillAgent().run(ctx)).rejects.toThrow(
      "The form did not advance past 'Contact us' after clicking 'Send message' 3 times.",
    );
    expect(ctx.steps).toHaveLength(2);
  });

  describe('human in the loop', () => {
    test('asks for an unmatched option and a required field the data lacks, with the choices', async ({
      formPage: page,
      forms,
    }) => {
      const ctx = fakeContext({
        page,
        startUrl: forms.url('/forms/hitl.html'),
        formData: { full_name: 'Ada Lovelace', preferred_branch: 'Leeds' },
        answers: ['Leeds South', 'M-1234'],
      });
      await new AutofillAgent().run(ctx);
      expect(ctx.questions).toEqual([
        // A value sharing a word with two options is neither of them; the placeholder is no option.
        expect.objectContaining({
          question: "'Leeds' isn't one of the options for 'Preferred branch'. Which should I choose?",
          options: ['London Central', 'Manchester', 'Leeds North', 'Leeds South'],
        }),
        expect.objectContaining({ question: "What should be entered for 'Membership number'?", options: [] }),
      ]);
      expect(forms.postsTo('/submit/hitl')[0]?.fields).toEqual({ nm: 'Ada Lovelace', br: 'ldse', mem: 'M-1234' });
    });

    test('without HITL fails naming the field and the reason', async ({ formPage: page, forms }) => {
      const ctx = fakeContext({
        page,
        startUrl: forms.url('/forms/hitl.html'),
        formData: { full_name: 'Ada Lovelace', preferred_branch: 'Leeds' },
      });
      const failure = await new AutofillAgent().run(ctx).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(AgentFailure);
      expect((failure as Error).message).toBe(
        "Cannot fill form_data 'preferred_branch': 'Leeds' isn't one of the options for 'Preferred branch' (options: London Central, Manchester, Leeds North, Leeds South); enable human_in_the_loop to be asked",
      );
    });

    test('fails on a required control no key matches, and on a key no control matches', async ({
      formPage: page,
      forms,
    }) => {
      const missing = fakeContext({
        page,
        startUrl: forms.url('/forms/hitl.html'),
        formData: { full_name: 'Ada', preferred_branch: 'Manchester' },
      });
      await expect(new AutofillAgent().run(missing)).rejects.toThrow(
        "The page requires 'Membership number' (text name=mem) but no form_data key matches it",
      );
      const unplaced = fakeContext({
        page,
        startUrl: forms.url('/forms/hitl.html'),
        formData: { full_name: 'Ada', preferred_branch: 'Manchester', membership_number: 'M-1', passport_number: 'X1' },
        formSchema: { type: 'object', required: ['passport_number'] },
      });
      await expect(new AutofillAgent().run(unplaced)).rejects.toThrow(
        "No control on the page matches the required form_data key 'passport_number'",
      );
    });

    test('treats equally good candidates as ambiguous: fails, or asks which field', async ({
      formPage: page,
      forms,
    }) => {
      const failing = fakeContext({ page, startUrl: forms.url('/forms/ambiguous.html'), formData: { city: 'Paris' } });
      await expect(new AutofillAgent().run(failing)).rejects.toThrow(
        "form_data key 'city' is ambiguous: it matches 'City' and 'City' equally well",
      );
      expect(forms.postsTo('/submit/ambiguous')).toHaveLength(0);
      const asking = fakeContext({
        page,
        startUrl: forms.url('/forms/account.html'),
        formData: { email: 'a@b.org', password: 'pa55-word!', city: 'Oslo' },
        answers: ["'City' (text name=ci2)"],
      });
      await new AutofillAgent().run(asking);
      expect(asking.questions).toEqual([
        {
          question: "Which field should receive form_data 'city' (Oslo)?",
          options: ["'City' (text name=ci)", "'City' (text name=ci2)", 'None of these'],
          message: "'city' matches several fields equally well.",
        },
      ]);
      // "Confirm email" / "Re-enter password" repeat the value of the field they confirm.
      expect(forms.postsTo('/submit/account')[0]?.fields).toEqual({
        em: 'a@b.org',
        em2: 'a@b.org',
        pw: 'pa55-word!',
        pw2: 'pa55-word!',
        ci: '',
        ci2: 'Oslo',
      });
      expect(asking.logs.join('\n')).not.toContain('pa55');
    });
  });
});
