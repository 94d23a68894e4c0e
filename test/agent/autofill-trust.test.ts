import type { Page } from 'playwright-core';

import { AgentFailure, type FillReport } from '../../src-main/agent/agentTypes.ts';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { page as html, type FormServer, type Handler } from '../helpers/formServer.ts';
import { describe, expect } from '../helpers/fixtures.ts';
import { autofillTest } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

// Small forms for the trust rules: every key is placed with its meaning intact, asked about, or
// fails the job naming it — never a look-alike option, never a silent drop (docs/autofill.md).
const FORMS: Record<string, string> = {
  zone: `<form method="post" action="/submit/zone"><fieldset><legend>Zone</legend>
    <label><input type="radio" name="zone" value="cafe"> Café Zone ☕</label>
    <label><input type="radio" name="zone" value="uber"> Zone Über</label></fieldset>
    <button type="submit">Send</button></form>`,
  vehicle: `<form method="post" action="/submit/vehicle">
    <p><label for="nm">Full name</label><input id="nm" name="nm"></p>
    <p><label for="vt">Vehicle type</label><select id="vt" name="vt"><option value="">Choose…</option>
      <option value="car">Car</option><option value="van">Van</option><option value="moto">Motorcycle</option></select></p>
    <p><label><input type="checkbox" name="declaration" id="decl"> I confirm the details are correct</label></p>
    <button type="submit">Submit</button></form>`,
  plan: `<form method="post" action="/submit/plan"><fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="b"> Bronze</label><label><input type="radio" name="plan" value="s"> Silver</label></fieldset>
    <p><label for="nm">Full name</label><input id="nm" name="nm"></p>
    <button type="submit">Submit</button></form>`,
  last: `<form method="post" action="/submit/last">
    <p><label for="nm">Full name</label><input id="nm" name="nm" required></p>
    <fieldset><legend>Membership level</legend>
      <label><input type="radio" name="lvl" value="1" required> Bronze</label><label><input type="radio" name="lvl" value="2"> Silver</label></fieldset>
    <button type="submit">Submit</button></form>`,
  code: `<form method="post" action="/submit/code">
    <p><label for="nm">Full name</label><input id="nm" name="nm" required></p>
    <p><label for="c">Code shown on your letter, 8 characters</label><input id="c" name="c" required></p>
    <button type="submit">Submit</button></form>`,
};

function handlers(): Record<string, Handler> {
  return Object.fromEntries(
    Object.entries(FORMS).map(([name, body]) => [
      `/trust/${name}`,
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(body));
      },
    ]),
  );
}

// One page for the file (each job opens its own URL on it; autofillTest): a context per test cost ~40 % more CPU.
const test = autofillTest(handlers());

describe('autofill trust: a value goes in with its meaning, or a human is asked, or the job fails naming the key', () => {
  /** Posts the site has received at `path` so far (the form server lives for the whole file). */
  const posted = (forms: FormServer, path: string): number => forms.postsTo(path).length;
  const run = (
    page: Page,
    forms: FormServer,
    name: string,
    formData: Record<string, unknown>,
    more: { answers?: string[]; formSchema?: Record<string, unknown>; humanInTheLoop?: boolean } = {},
  ) => {
    const ctx = fakeContext({ page, startUrl: forms.url(`/trust/${name}`), formData, ...more });
    const reports: FillReport[] = [];
    ctx.reportFill = (r) => reports.push(r);
    return { ctx, reports, outcome: new AutofillAgent().run(ctx) };
  };

  test("never takes a look-alike option: 'Zone Ø' is neither 'Café Zone ☕' nor 'Zone Über'", async ({
    formPage: page,
    forms,
  }) => {
    const before = posted(forms, '/submit/zone');
    const plain = run(page, forms, 'zone', { zone: 'Zone Ø' });
    const failure = await plain.outcome.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AgentFailure);
    expect((failure as Error).message).toBe(
      "Cannot fill form_data 'zone': 'Zone Ø' isn't one of the options for 'Zone' (options: Café Zone ☕, Zone Über); enable human_in_the_loop to be asked",
    );
    expect(posted(forms, '/submit/zone')).toBe(before);

    const asked = run(page, forms, 'zone', { zone: 'Zone Ø' }, { answers: ['café zone'] });
    const { result } = await asked.outcome;
    expect(asked.ctx.questions).toEqual([
      {
        question: "'Zone Ø' isn't one of the options for 'Zone'. Which should I choose?",
        options: ['Café Zone ☕', 'Zone Über'],
        message: 'form_data \'zone\' is "Zone Ø".',
      },
    ]);
    expect(forms.postsTo('/submit/zone').at(-1)?.fields).toEqual({ zone: 'cafe' });
    expect(result.placements).toEqual({
      zone: { control: 'Zone', value: 'Café Zone ☕', how: 'answer', matched_by: 'name' },
    });
  });

  test('folds case and accents where the options stay distinct, and says so in the report', async ({
    formPage: page,
    forms,
  }) => {
    const { outcome, reports } = run(page, forms, 'zone', { zone: 'zone uber' });
    const { result } = await outcome;
    expect(forms.postsTo('/submit/zone').at(-1)?.fields).toEqual({ zone: 'uber' });
    expect(result.placements).toEqual({
      zone: { control: 'Zone', value: 'Zone Über', how: 'normalised', matched_by: 'name' },
    });
    expect(reports).toEqual([{ placements: result.placements, unplaced: [] }]);
  });

  test("asks about the value, not the field, when 'Bicycle' is no vehicle type — and asks again when the answer is none either", async ({
    formPage: page,
    forms,
  }) => {
    const { ctx, outcome } = run(
      page,
      forms,
      'vehicle',
      { full_name: 'Ada', vehicle_type: 'Bicycle' },
      { answers: ['Tricycle', 'van'] },
    );
    const { result } = await outcome;
    const question = "'Bicycle' isn't one of the options for 'Vehicle type'. Which should I choose?";
    expect(ctx.questions).toEqual([
      { question, options: ['Car', 'Van', 'Motorcycle'], message: 'form_data \'vehicle_type\' is "Bicycle".' },
      {
        question,
        options: ['Car', 'Van', 'Motorcycle'],
        message: 'The answer "Tricycle" isn\'t one of the options. form_data \'vehicle_type\' is "Bicycle".',
      },
    ]);
    expect(forms.postsTo('/submit/vehicle').at(-1)?.fields).toEqual({ nm: 'Ada', vt: 'van' });
    expect(result.placements).toMatchObject({ vehicle_type: { control: 'Vehicle type', value: 'Van', how: 'answer' } });
  });

  test('fails after a second answer that is none of the options, without defaulting to the first', async ({
    formPage: page,
    forms,
  }) => {
    const before = posted(forms, '/submit/vehicle');
    const { outcome } = run(
      page,
      forms,
      'vehicle',
      { full_name: 'Ada', vehicle_type: 'Bicycle' },
      { answers: ['Tricycle', 'Unicycle'] },
    );
    await expect(outcome).rejects.toThrow(
      `The answer "Unicycle" to "'Bicycle' isn't one of the options for 'Vehicle type'. Which should I choose?" isn't one of the options ("Car", "Van", "Motorcycle"), asked twice`,
    );
    expect(posted(forms, '/submit/vehicle')).toBe(before);
  });

  test('without a human, a value that is no option fails the job naming the key — with an empty schema too', async ({
    formPage: page,
    forms,
  }) => {
    const before = [posted(forms, '/submit/vehicle'), posted(forms, '/submit/plan')];
    for (const formData of [
      { full_name: 'Ada', vehicle_type: 'Bicycle' },
      { plan: 'gold', full_name: 'Ada' },
    ]) {
      const { outcome } = run(page, forms, formData.plan ? 'plan' : 'vehicle', formData);
      const key = formData.plan ? 'plan' : 'vehicle_type';
      await expect(outcome).rejects.toThrow(
        `Cannot fill form_data '${key}': '${formData.plan ?? 'Bicycle'}' isn't one of the options`,
      );
    }
    expect([posted(forms, '/submit/vehicle'), posted(forms, '/submit/plan')]).toEqual(before);
  });

  test('ticks "I confirm the details are correct" for {confirm: true}', async ({ formPage: page, forms }) => {
    const { outcome } = run(page, forms, 'vehicle', { full_name: 'Ada', vehicle_type: 'car', confirm: true });
    const { result } = await outcome;
    expect(forms.postsTo('/submit/vehicle').at(-1)?.fields).toEqual({ nm: 'Ada', vt: 'car', declaration: 'on' });
    expect(result.placements).toEqual({
      full_name: { control: 'Full name', value: 'Ada', how: 'exact', matched_by: 'name' },
      vehicle_type: { control: 'Vehicle type', value: 'Car', how: 'exact', matched_by: 'name' },
      confirm: { control: 'I confirm the details are correct', value: 'checked', how: 'exact', matched_by: 'name' },
    });
  });

  test('lists a key no control matches in `unplaced`; a required one fails, or a human says where it goes', async ({
    formPage: page,
    forms,
  }) => {
    const before = posted(forms, '/submit/plan');
    const loose = run(page, forms, 'plan', { plan: 'silver', full_name: 'Ada', shoe_size: '9' });
    const { result } = await loose.outcome;
    expect(result.unplaced).toEqual(['shoe_size']);
    expect(loose.reports[0]?.unplaced).toEqual([{ key: 'shoe_size', reason: 'no control on any page matched it' }]);
    expect(loose.ctx.logs).toContain('shoe_size: not placed (no control on any page matched it)');

    const schema = { type: 'object', required: ['shoe_size'], properties: { shoe_size: { type: 'string' } } };
    const strict = run(
      page,
      forms,
      'plan',
      { plan: 'silver', full_name: 'Ada', shoe_size: '9' },
      { formSchema: schema },
    );
    await expect(strict.outcome).rejects.toThrow(
      "No control on the page matches the required form_data key 'shoe_size'",
    );
    expect(posted(forms, '/submit/plan')).toBe(before + 1);

    const asked = run(
      page,
      forms,
      'plan',
      { plan: 'silver', full_name: 'Ada', shoe_size: '9' },
      { formSchema: schema, answers: ['Somewhere else', 'none of these'] },
    );
    const answered = await asked.outcome;
    expect(asked.ctx.questions.map((q) => [q.question, q.options])).toEqual([
      ["Which field should receive form_data 'shoe_size' (9)?", ['None of these']],
      ["Which field should receive form_data 'shoe_size' (9)?", ['None of these']],
    ]);
    expect(answered.result.unplaced).toEqual(['shoe_size']);
    expect(asked.reports[0]?.unplaced).toEqual([
      { key: 'shoe_size', reason: 'a human said it belongs in none of the fields offered' },
    ]);
  });

  test('asks again when the answer to "which field" is none of the fields, instead of taking the first', async ({
    formPage: page,
    forms,
  }) => {
    const ctx = fakeContext({
      page,
      startUrl: forms.url('/forms/account.html'),
      formData: { email: 'a@b.org', password: 'pa55-word!', city: 'Oslo' },
      answers: ['the town one', "'City' (text name=ci2)"],
    });
    const { result } = await new AutofillAgent().run(ctx);
    expect(ctx.questions).toHaveLength(2);
    expect(forms.postsTo('/submit/account').at(-1)?.fields).toMatchObject({ ci: '', ci2: 'Oslo' });
    expect(result.placements).toMatchObject({ city: { matched_by: 'answer', how: 'exact' } });
  });

  test('places the last required key in the last required field only when the value fits it beyond doubt', async ({
    formPage: page,
    forms,
  }) => {
    const byOption = run(
      page,
      forms,
      'last',
      { full_name: 'Ada', tier: 'Silver' },
      { formSchema: { type: 'object', required: ['full_name', 'tier'] } },
    );
    const { result } = await byOption.outcome;
    expect(forms.postsTo('/submit/last').at(-1)?.fields).toEqual({ nm: 'Ada', lvl: '2' });
    expect(result.placements).toMatchObject({
      tier: { control: 'Membership level', value: 'Silver', how: 'exact', matched_by: 'elimination' },
    });

    const byWord = run(
      page,
      forms,
      'code',
      { full_name: 'Ada', applicant_reference_code: 'AB-123' },
      { formSchema: { type: 'object', required: ['applicant_reference_code'] } },
    );
    expect((await byWord.outcome).result.placements).toMatchObject({
      applicant_reference_code: { control: 'Code shown on your letter, 8 characters', matched_by: 'elimination' },
    });

    // Nothing in common between the key and the field: no guess.
    const unrelated = run(
      page,
      forms,
      'code',
      { full_name: 'Ada', favourite_colour: 'green' },
      { formSchema: { type: 'object', required: ['favourite_colour'] } },
    );
    await expect(unrelated.outcome).rejects.toThrow(
      "The page requires 'Code shown on your letter, 8 characters' (text name=c) but no form_data key matches it (unplaced keys: favourite_colour)",
    );
  });
});
