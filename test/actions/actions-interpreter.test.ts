import { describe, expect, it } from 'vitest';
import { receivedFields } from '../fixtures/design-systems/corpus.ts';
import { html, useActionHarness } from './actionHarness.ts';

const ADDRESS = '/ds/govuk-date-month-year';
const CONTACT = '/ds/govuk-radios-conditional';
const NATIONALITY = '/ds/govuk-checkboxes-conditional';
const PROBLEM = '/ds/govuk-character-count-select';

const widgets = `<!doctype html><title>Widgets</title>
<h1>Widgets</h1>
<label for="q">Search the site</label><input id="q" placeholder="Search">
<p id="pressed">none</p>
<button id="menu" onmouseenter="document.getElementById('tip').hidden = false">Account</button>
<p id="tip" hidden>Signed in as Ada</p>
<p>Reference number: <strong aria-label="Reference">REF-42</strong></p>
<button onclick="setTimeout(() => { const p = document.createElement('p'); p.textContent = 'Saved at noon'; document.body.append(p); }, 300)">Save draft</button>
<div style="height: 3000px"></div><a href="/widgets">Back to top</a>
<script>document.getElementById('q').addEventListener('keydown', (e) => { document.getElementById('pressed').textContent = e.key; });</script>`;

const uaPage = (req: { headers: Record<string, string | string[] | undefined> }) =>
  `<!doctype html><title>UA</title><p id="header">${String(req.headers['user-agent'] ?? '').replace(/</g, '')}</p>`;

describe('the built-in interpreter on real GOV.UK, NHS.UK and USWDS markup (real Chromium)', () => {
  const h = useActionHarness({
    '/widgets': html(widgets),
    '/framed': html(
      '<!doctype html><title>Checkout</title><h1>Checkout</h1><iframe src="/card" title="Card details" style="width:400px;height:200px"></iframe><iframe src="/card" hidden></iframe>',
    ),
    '/framed-twice': html(
      '<!doctype html><title>Checkout</title><button>Pay</button><iframe src="/card" style="width:400px;height:200px"></iframe>',
    ),
    '/card': html(
      '<!doctype html><title>Card</title><label>Card number <input id="card"></label><button onclick="document.body.dataset.paid = \'yes\'">Pay</button>',
    ),
    '/ua': (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(uaPage(req)),
  });

  it('fills fields by their labels, then clicks Continue: the site receives exactly what was typed', async () => {
    expect(await h.run(`go to ${h.server.url(`${ADDRESS}/start`)}`)).toMatchObject({ success: true, credits: 1 });
    expect(
      await h.run('type {{street}} into Address line 1', { variables: { street: '72 Guild Street' } }),
    ).toMatchObject({ success: true, result: 'Filled textbox "Address line 1"' });
    expect((await h.run('enter London in "Town or city"')).success).toBe(true);
    expect(
      (await h.run('fill in the Postcode field with {{postcode}}', { variables: { postcode: 'SE23 6FH' } })).success,
    ).toBe(true);
    expect((await h.run('type 4 into Month')).success).toBe(true);
    expect((await h.run('type 2019 into Year')).success).toBe(true);
    expect(await h.run('click the Continue button')).toMatchObject({
      success: true,
      result: 'Clicked button "Continue"',
    });
    const [post] = h.server.postsTo(`${ADDRESS}/submit`);
    expect(post && receivedFields(post)).toMatchObject({
      'address-line-1': '72 Guild Street',
      'address-line-2': '',
      'address-town': 'London',
      'address-postcode': 'SE23 6FH',
      'moved-month': '4',
      'moved-year': '2019',
    });
  });

  it('two equally good matches are refused, and neither field is touched', async () => {
    await h.page.goto(h.server.url(`${ADDRESS}/start`));
    const outcome = await h.run('type Somewhere into Address');
    expect(outcome.success).toBe(false);
    expect(outcome.error).toMatch(/^Ambiguous target: 2 elements match field "Address" partly/);
    expect(await h.page.locator('#address-line-1').inputValue()).toBe('');
    expect(await h.page.locator('#address-line-2').inputValue()).toBe('');
  });

  it('a target that is not on the page says what was not found, and nothing is clicked', async () => {
    await h.page.goto(h.server.url(`${ADDRESS}/start`));
    const before = h.server.postsTo(`${ADDRESS}/submit`).length;
    expect(await h.run('click the Submit button')).toEqual({
      success: false,
      error: 'No button "Submit" found on the page',
      credits: 1,
      used_cache: false,
      set_cache: false,
      cache_failed: false,
    });
    // "Contin" is no button's whole name; a look-alike is never clicked.
    expect((await h.run('click "Contin"')).error).toBe('No element "Contin" found on the page');
    expect(h.server.postsTo(`${ADDRESS}/submit`).length).toBe(before);
  });

  it('a missing variable fails clearly and never types {{name}}', async () => {
    await h.page.goto(h.server.url(`${ADDRESS}/start`));
    expect(await h.run('type {{street}} into Address line 1', { variables: { town: 'London' } })).toMatchObject({
      success: false,
      error: "Variable 'street' is used in the action but not given in variables",
      used_cache: false,
      set_cache: false,
    });
    expect(await h.page.locator('#address-line-1').inputValue()).toBe('');
    expect((await h.run('type {{street into Address line 1')).error).toMatch(
      /^Could not read this action: unreadable variable reference at character 6/,
    );
  });

  it('radios with conditional reveal, checkboxes and a declaration tick by label', async () => {
    await h.page.goto(h.server.url(`${CONTACT}/start`));
    expect(await h.run('select the Email radio button')).toMatchObject({
      success: true,
      result: 'Checked radio "Email"',
    });
    expect((await h.run('type ada@example.com into Email address')).success).toBe(true);
    expect(await h.page.getByRole('radio', { name: 'Email', exact: true }).isChecked()).toBe(true);
    expect(await h.page.getByLabel('Email address').inputValue()).toBe('ada@example.com');

    await h.page.goto(h.server.url(`${NATIONALITY}/start`));
    expect((await h.run('tick Irish')).success).toBe(true);
    expect((await h.run('check "Citizen of another country"')).success).toBe(true);
    expect((await h.run('uncheck Citizen of another country')).success).toBe(true);
    expect((await h.run('check I confirm that the information I have given is correct')).success).toBe(true);
    expect(await h.page.getByLabel('Irish').isChecked()).toBe(true);
    expect(await h.page.getByLabel('Citizen of another country').isChecked()).toBe(false);
    expect(await h.page.getByLabel('I confirm that the information I have given is correct').isChecked()).toBe(true);
  });

  it('NHS.UK: two radio groups both offering "Yes" are refused, not guessed, until the question is named; the select is set by its question', async () => {
    await h.page.goto(h.server.url('/ds/nhsuk-inline-radios-select/start'));
    const outcome = await h.run('select the Yes radio button');
    expect(outcome.success).toBe(false);
    expect(outcome.error).toMatch(/^Ambiguous target: 2 elements match radio button "Yes" exactly/);
    expect(await h.page.getByRole('radio', { checked: true }).count()).toBe(0);
    // Named by its question, the same Yes is one radio button.
    expect(await h.run('select Yes for Do you smoke?')).toMatchObject({
      success: true,
      result: 'Checked radio "Yes"',
      set_cache: true,
    });
    expect(await h.run('choose No in "Do you vape?"')).toMatchObject({ success: true });
    expect(await h.page.locator('input[name=smoker]:checked').getAttribute('value')).toBe('yes');
    expect(await h.page.locator('input[name=vape]:checked').getAttribute('value')).toBe('no');
    expect((await h.run('select Maybe for Do you smoke?')).error).toBe(
      'No checkbox or radio button "Maybe" found there',
    );
    // The cached step finds the same radio again (by its unique selector: two radios are named Yes).
    await h.page.reload();
    expect(await h.run('select Yes for Do you smoke?')).toMatchObject({ success: true, used_cache: true });
    expect(await h.page.locator('input[name=smoker]:checked').getAttribute('value')).toBe('yes');
    expect(
      (await h.run('select 2 to 4 times a month from How often do you have a drink containing alcohol?')).success,
    ).toBe(true);
    expect(await h.page.getByLabel('How often do you have a drink containing alcohol?').inputValue()).toBe('2');
  });

  it('selects an option of a native select by its label; a missing option lists the options', async () => {
    await h.page.goto(h.server.url(`${PROBLEM}/start`));
    expect(await h.run('select Broken street light from the Type of problem dropdown')).toMatchObject({
      success: true,
    });
    expect(await h.page.getByLabel('Type of problem').inputValue()).toBe('street-light');
    const missing = await h.run('select Volcano from Type of problem');
    expect(missing.success).toBe(false);
    expect(missing.error).toContain('No option "Volcano" in the dropdown; options are ["Choose a problem","Pothole"');
  });

  it('a USWDS combo box (a custom ARIA combobox over a hidden select) takes "select … from …"', async () => {
    await h.page.goto(h.server.url('/ds/uswds-address-combo-box/start'));
    await h.page.getByRole('combobox', { name: 'State, territory, or military post' }).waitFor();
    expect(await h.run('select California from State, territory, or military post')).toMatchObject({
      success: true,
      result: 'Selected "California" in combobox "State, territory, or military post"',
    });
    expect(await h.page.locator('select#state, select[name=state]').inputValue()).toBe('CA');
  });

  it('press, hover, scroll, wait for text and extract', async () => {
    await h.page.goto(h.server.url('/widgets'));
    expect((await h.run('press Tab in the Search field')).success).toBe(true);
    expect(await h.page.locator('#pressed').textContent()).toBe('Tab');
    expect((await h.run('hover over the Account button')).success).toBe(true);
    expect(await h.page.locator('#tip').isVisible()).toBe(true);
    expect((await h.run('scroll to the bottom')).success).toBe(true);
    expect(await h.page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    expect((await h.run('scroll to the top')).success).toBe(true);
    expect(await h.page.evaluate(() => window.scrollY)).toBe(0);
    expect((await h.run('click Save draft')).success).toBe(true);
    expect(await h.run('wait for "Saved at noon"')).toMatchObject({ success: true });
    expect(await h.run('extract the text of Reference')).toMatchObject({ success: true, result: 'REF-42' });
    const page = await h.run('read the page text');
    expect(page.result).toContain('Signed in as Ada');
    expect(await h.run('open javascript:alert(1)')).toMatchObject({ success: false });
  });

  it('user_agent applies to this action only', async () => {
    expect((await h.run(`go to ${h.server.url('/ua')}`, { user_agent: 'PorticoTest/1.0 (action)' })).success).toBe(
      true,
    );
    expect(await h.page.locator('#header').textContent()).toBe('PorticoTest/1.0 (action)');
    expect((await h.run(`go to ${h.server.url('/ua')}`)).success).toBe(true);
    const header = await h.page.locator('#header').textContent();
    expect(header).not.toContain('PorticoTest');
    expect(header).toMatch(/Chrome\//);
  });

  it('a sentence the interpreter cannot read fails clearly when no model is configured', async () => {
    await h.page.goto(h.server.url('/widgets'));
    const outcome = await h.run('summarise what this page is about');
    expect(outcome.success).toBe(false);
    expect(outcome.error).toMatch(/^Could not read this action: .*no model is configured/);
  });

  it('targets inside a shown iframe resolve (a hidden iframe is not searched); the same name in the page and a frame is ambiguous', async () => {
    await h.page.goto(h.server.url('/framed'));
    const card = h.page.frameLocator('iframe[title="Card details"]');
    await card.locator('#card').waitFor();
    expect(await h.run('type {{card}} into Card number', { variables: { card: '4242 4242 4242 4242' } })).toMatchObject(
      { success: true, set_cache: true },
    );
    expect(await card.locator('#card').inputValue()).toBe('4242 4242 4242 4242');
    expect(await h.run('click Pay')).toMatchObject({ success: true });
    expect(await card.locator('body').getAttribute('data-paid')).toBe('yes');
    await h.page.goto(h.server.url('/framed'));
    await card.locator('#card').waitFor();
    expect(await h.run('type {{card}} into Card number', { variables: { card: '5555 5555 5555 4444' } })).toMatchObject(
      { success: true, used_cache: true },
    );
    expect(await card.locator('#card').inputValue()).toBe('5555 5555 5555 4444');

    await h.page.goto(h.server.url('/framed-twice'));
    await h.page.frameLocator('iframe').locator('#card').waitFor();
    expect((await h.run('click Pay', { set_cache: false })).error).toMatch(
      /^Ambiguous target: 2 elements match element "Pay" exactly/,
    );
  });

  it('actions sent at once to one session run one at a time, in arrival order', async () => {
    await h.page.goto(h.server.url(`${ADDRESS}/start`));
    const outcomes = await Promise.all(
      ['first', 'second', 'third'].map((word) => h.run(`type ${word} into Address line 1`, { set_cache: false })),
    );
    expect(outcomes.map((o) => o.success)).toEqual([true, true, true]);
    expect(await h.page.locator('#address-line-1').inputValue()).toBe('third');
  });

  it("a session that is not this workspace's is a 404", async () => {
    await expect(
      h.service.run('default', { action: 'click OK', session_id: 'nope', variables: {}, set_cache: true }),
    ).rejects.toMatchObject({ status: 404, detail: 'Session not found' });
  });
});
