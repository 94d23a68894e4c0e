import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

// test/fixtures/forms/web-components.html: hand-written custom elements (no library) with open shadow
// roots — a labelled text field, a select with slotted options, form-associated radios whose role lives
// in ElementInternals, a switch labelled by slotted text, a set of aria-pressed filter chips.
// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest({});

describe('AutofillAgent — web components with shadow DOM', () => {
  test('fills controls inside shadow roots by their host labels and slotted text, and reads them back from the hosts', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/web-components.html'),
      formData: {
        full_name: 'Marianne Vos',
        membership: 'Family',
        rides: 'Training rides',
        newsletter: true,
        kit_sizes: ['Medium', 'Large'],
      },
    });
    await new AutofillAgent().run(ctx);
    expect(forms.postsTo('/submit/web-components')).toHaveLength(1);
    expect(forms.postsTo('/submit/web-components')[0]?.fields).toEqual({
      name: 'Marianne Vos',
      tier: 'fam',
      ride: 'training',
      newsletter: 'yes',
      kit: 'm,l',
    });
    const log = ctx.logs.join('\n');
    expect(log).toContain("membership → 'Membership' (select-aria) = Family (exact)");
    expect(log).toContain("rides → 'Which rides will you join most?' (radio-aria) = Training rides (exact)");
    expect(log).toContain("newsletter → 'Send me the monthly newsletter' (checkbox name=newsletter) = checked");
    expect(log).toContain("kit_sizes → 'Kit sizes you need' (checkboxGroup-aria) = Medium, Large (exact)");
    // The option's own value ('fam') is what the check finds in the request for 'Family'.
    expect(log).not.toMatch(/unverified\)?: [^\n]*membership/);
  });

  test('asks with the chips offered when a value names none of them, and presses only the answer', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/web-components.html'),
      formData: {
        full_name: 'Marianne Vos',
        membership: 'Standard',
        rides: 'Social rides',
        newsletter: false,
        kit_sizes: ['XXL'],
      },
      answers: ['Large'],
    });
    await new AutofillAgent().run(ctx);
    expect(ctx.questions).toEqual([
      expect.objectContaining({
        question: "'XXL' isn't one of the options for 'Kit sizes you need'. Which should I choose?",
        options: ['Small', 'Medium', 'Large'],
      }),
    ]);
    expect(forms.postsTo('/submit/web-components').at(-1)?.fields).toEqual({
      name: 'Marianne Vos',
      tier: 'std',
      ride: 'social',
      kit: 'l',
    });
  });
});
