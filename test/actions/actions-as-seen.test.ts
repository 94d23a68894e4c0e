// Issue 24: single actions read the page as a person does. Each case is a wrong effect or an honest
// failure a person would not have, on GOV.UK / NHS.UK / USWDS markup (the packages' own CSS and
// JavaScript) and on realistic pages of our own (modal dialogs, tables with row actions, a same-origin
// iframe, a shadow root). Effects are checked on the page itself, never from Portico's answer alone.
import { describe, expect, it } from 'vitest';
import * as gov from '../fixtures/design-systems/govukMarkup.ts';
import * as nhs from '../fixtures/design-systems/nhsukMarkup.ts';
import * as us from '../fixtures/design-systems/uswdsMarkup.ts';
import { html, useActionHarness } from './actionHarness.ts';

const checkAnswers = gov.govukPage(
  'Check your answers',
  `
<h1 class="govuk-heading-l">Check your answers before sending your application</h1>
${gov.summaryList([
  { key: 'Name', value: 'Sarah Philips', href: '/name' },
  { key: 'Date of birth', value: '5 January 1978', href: '/dob' },
  { key: 'Reference number', value: 'HDJ2123F', href: '/ref' },
])}
${gov.input({ id: 'notes', label: 'Notes for the caseworker' })}
<p class="govuk-body"><a class="govuk-link" href="/privacy-notice">Privacy</a> · <a class="govuk-link" href="/cookies">Cookies</a></p>
${gov.button('Accept and send')}`,
  { service: 'Apply for a licence' },
);

const applications = gov.govukPage(
  'Your applications',
  `
<h1 class="govuk-heading-l">Your applications</h1>
<table class="govuk-table">
  <caption class="govuk-table__caption govuk-table__caption--m">Applications</caption>
  <thead class="govuk-table__head"><tr class="govuk-table__row"><th scope="col" class="govuk-table__header">Reference</th><th scope="col" class="govuk-table__header">Status</th><th scope="col" class="govuk-table__header">Action</th></tr></thead>
  <tbody class="govuk-table__body">
    ${['APP-1001', 'APP-1002', 'APP-1003'].map((ref, i) => `<tr class="govuk-table__row"><th scope="row" class="govuk-table__header">${ref}</th><td class="govuk-table__cell"><strong class="govuk-tag">${['Submitted', 'In review', 'Approved'][i]}</strong></td><td class="govuk-table__cell"><a class="govuk-link" href="/view/${ref}" onclick="document.title = 'viewed ${ref}'; return false">View<span class="govuk-visually-hidden"> application ${ref}</span></a></td></tr>`).join('\n    ')}
  </tbody>
</table>
<table class="govuk-table"><caption class="govuk-table__caption">Payment</caption>
  <thead class="govuk-table__head"><tr class="govuk-table__row"><th scope="col" class="govuk-table__header">Amount</th><th scope="col" class="govuk-table__header">Paid on</th></tr></thead>
  <tbody class="govuk-table__body"><tr class="govuk-table__row"><td class="govuk-table__cell">£55.00</td><td class="govuk-table__cell">3 March 2025</td></tr></tbody>
</table>`,
  { service: 'Apply for a licence' },
);

/** A page whose Continue is behind an open modal dialog (the dialog has its own Continue), without aria-hidden on the page. */
const modalPage = (native: boolean): string => `<!doctype html><html lang="en"><title>Booking</title>
<style>.overlay{position:fixed;inset:0;background:rgba(0,0,0,.5)} [role=dialog]{position:fixed;top:30%;left:30%;background:#fff;padding:2em;z-index:2}</style>
<main><h1>Your booking</h1><p>Review and continue.</p>
<button id="page-continue" onclick="document.body.dataset.clicked = 'page'">Continue</button>
<section inert><button onclick="document.body.dataset.clicked = 'inert'">Cancel booking</button></section>
<div aria-hidden="true"><button tabindex="-1" onclick="document.body.dataset.clicked = 'hidden'">Save booking</button></div>
<button onclick="document.body.dataset.clicked = 'save'">Save booking for later</button>
</main>
${
  native
    ? "<dialog id=\"d\"><h2>Session ending</h2><p>Your session will end soon.</p><button onclick=\"document.body.dataset.clicked = 'dialog'; this.closest('dialog').close()\">Continue</button><button>Sign out</button></dialog><script>document.getElementById('d').showModal()</script>"
    : '<div class="overlay"></div><div role="dialog" aria-modal="true" aria-labelledby="t"><h2 id="t">Session ending</h2><p>Your session will end soon.</p><button onclick="document.body.dataset.clicked = \'dialog\'">Continue</button><button>Sign out</button></div>'
}
</html>`;

const contact = gov.govukPage(
  'Contact',
  `
${gov.input({ id: 'given', label: 'First or given name' })}
${gov.input({ id: 'family', label: 'Last or family name' })}
${gov.checkboxes({
  name: 'contact',
  legend: 'How would you like to be contacted?',
  items: [
    { value: 'email', text: 'Email' },
    { value: 'sms', text: 'Text message' },
    { value: 'post', text: 'Post' },
  ],
  values: {},
})}
${gov.select({
  id: 'state',
  label: 'State',
  options: [
    { value: '', text: 'Choose a state' },
    { value: 'TX', text: 'TX - Texas' },
    { value: 'TN', text: 'TN - Tennessee' },
    { value: 'WA', text: 'WA - Washington' },
  ],
  values: {},
})}
${gov.select({
  id: 'branch',
  label: 'Branch',
  options: [
    { value: '', text: 'Choose a branch' },
    { value: 'n', text: 'North - Leeds' },
    { value: 's', text: 'South - Leeds' },
  ],
  values: {},
})}
${gov.button('Continue')}`,
  { service: 'Apply for a licence' },
);

const nhsSummary = nhs.nhsukPage(
  'Check your details',
  `<h1>Check your details</h1>${nhs.summaryList([
    { key: 'NHS number', value: '485 777 3456', href: '/nhs-number' },
    { key: 'Date of birth', value: '9 April 1983', href: '/dob' },
  ])}`,
  { service: 'Book a vaccination' },
);

const uswdsForm = us.uswdsPage(
  'Mailing address',
  `${us.select({
    id: 'state',
    label: 'State, territory, or military post',
    options: [
      { value: '', text: '- Select -' },
      { value: 'AK', text: 'AK - Alaska' },
      { value: 'TX', text: 'TX - Texas' },
    ],
    values: {},
  })}
${us.checkbox({ name: 'sms', value: 'yes', text: 'Text message', values: {} })}
<label class="usa-label" for="sms-number">Text message number</label><input class="usa-input" id="sms-number" name="sms-number">`,
  { agency: 'Example agency' },
);

const framedAndShadow = `<!doctype html><html lang="en"><title>Account</title>
<h1>Account</h1>
<iframe src="/as-seen/frame" title="Statement" style="width:600px;height:260px"></iframe>
<account-actions></account-actions>
<div aria-hidden="true" style="position:absolute;left:0;top:0;opacity:.01"><button onclick="document.body.dataset.clicked = 'decoy'">Download statement</button></div>
<script>
customElements.define('account-actions', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = '<div aria-hidden="true"><button>Close account</button></div><button id="dl">Download statement</button>';
    root.getElementById('dl').onclick = () => { document.body.dataset.clicked = 'shadow'; };
  }
});
</script></html>`;

const frame = `<!doctype html><html lang="en"><title>Statement</title>
<dl><dt>Balance</dt><dd>£1,204.50</dd><dt>Account number</dt><dd>12345678</dd></dl>`;

describe('single actions read the page as a person does (issue 24)', () => {
  const h = useActionHarness({
    '/as-seen/check': html(checkAnswers),
    '/privacy-notice': html('<!doctype html><title>Privacy notice</title><h1>Privacy notice</h1>'),
    '/cookies': html('<!doctype html><title>Cookies</title><h1>Cookies</h1>'),
    '/as-seen/applications': html(applications),
    '/as-seen/modal': html(modalPage(false)),
    '/as-seen/dialog': html(modalPage(true)),
    '/as-seen/contact': html(contact),
    '/as-seen/nhs': html(nhsSummary),
    '/as-seen/uswds': html(uswdsForm),
    '/as-seen/account': html(framedAndShadow),
    '/as-seen/frame': html(frame),
  });
  const open = async (path: string) => {
    await h.page.goto(h.server.url(path));
  };

  it('GOV.UK summary list: "extract the date of birth" is the row\'s value, never the Change link\'s hidden text; the cache replays the value', async () => {
    await open('/as-seen/check');
    expect(await h.run('extract the date of birth')).toMatchObject({
      success: true,
      result: '5 January 1978',
      set_cache: true,
    });
    expect(await h.run('read the Reference number')).toMatchObject({ success: true, result: 'HDJ2123F' });
    await open('/as-seen/check');
    expect(await h.run('extract the date of birth')).toMatchObject({
      success: true,
      result: '5 January 1978',
      used_cache: true,
    });
    // NHS.UK's summary list (the same pattern, its own classes).
    await open('/as-seen/nhs');
    expect(await h.run('extract the date of birth')).toMatchObject({ success: true, result: '9 April 1983' });
  });

  it('questions are read as extract: "what is the reference number?", "what\'s the NHS number"', async () => {
    await open('/as-seen/check');
    expect(await h.run('What is the reference number?')).toMatchObject({ success: true, result: 'HDJ2123F' });
    await open('/as-seen/nhs');
    expect(await h.run("what's the NHS number")).toMatchObject({ success: true, result: '485 777 3456' });
  });

  it('a table: a row action named by its hidden text is clicked at once; a header reads its cell; a header over several rows is refused', async () => {
    await open('/as-seen/applications');
    expect(await h.run('click application APP-1002')).toMatchObject({
      success: true,
      result: 'Clicked link "View application APP-1002"',
    });
    expect(await h.page.title()).toBe('viewed APP-1002');
    expect(await h.run('read Paid on')).toMatchObject({ success: true, result: '3 March 2025' });
    expect(await h.run('read APP-1003')).toMatchObject({ success: true, result: 'Approved' });
    expect(await h.run('read Status')).toMatchObject({
      success: false,
      error: 'That header heads 3 rows: name the row too',
    });
  });

  it("an open aria-modal dialog scopes targets to itself: its Continue is clicked, the page's is not", async () => {
    await open('/as-seen/modal');
    expect(await h.run('click Continue', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('dialog');
  });

  it('a native modal <dialog> (showModal) scopes targets to itself; inert and aria-hidden content is never a target', async () => {
    await open('/as-seen/dialog');
    expect(await h.run('click Continue', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('dialog');
    // The dialog is closed now: the page's Continue is the one.
    expect(await h.run('click Continue', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('page');
    // "Cancel booking" is inert: no target (refused at resolution, not after a wait on an unclickable button).
    expect(await h.run('click Cancel booking', { set_cache: false })).toMatchObject({
      success: false,
      error: 'No element "Cancel booking" found on the page',
    });
    // The aria-hidden "Save booking" is no candidate: the one visible partial match is clicked.
    expect(await h.run('click "Save booking for later"', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.run('click Save booking', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('save');
  });

  it('words as people use them: "first name" is "First or given name" (the filler\'s lexicon), "box" is a hint, "Texas" is "TX - Texas"', async () => {
    await open('/as-seen/contact');
    expect(await h.run('type Ada into first name')).toMatchObject({
      success: true,
      result: 'Filled textbox "First or given name"',
    });
    expect(await h.run('type Lovelace into the surname field')).toMatchObject({ success: true });
    expect(await h.page.locator('#given').inputValue()).toBe('Ada');
    expect(await h.page.locator('#family').inputValue()).toBe('Lovelace');
    expect(await h.run('tick the Text message box')).toMatchObject({
      success: true,
      result: 'Checked checkbox "Text message"',
    });
    expect(await h.page.locator('input[value=sms]').isChecked()).toBe(true);
    expect(await h.run('choose Texas from the State dropdown')).toMatchObject({ success: true });
    expect(await h.page.locator('#state').inputValue()).toBe('TX');
    expect(await h.run('select WA from State')).toMatchObject({ success: true });
    expect(await h.page.locator('#state').inputValue()).toBe('WA');
    // A shared word alone is never enough: "Leeds" is half of two options.
    expect(await h.run('select Leeds from Branch')).toMatchObject({ success: false });
    expect(await h.page.locator('#branch').inputValue()).toBe('');
  });

  it('USWDS: "click the Text message box" with a checkbox and a text box both named so prefers the unambiguous one; coded state options', async () => {
    await open('/as-seen/uswds');
    expect(await h.run('click the Text message box', { set_cache: false })).toMatchObject({
      success: true,
      result: 'Clicked checkbox "Text message"',
    });
    expect(await h.page.locator('input[name=sms]').isChecked()).toBe(true);
    expect(await h.run('type 5550100 into the Text message number box')).toMatchObject({ success: true });
    expect(await h.page.locator('#sms-number').inputValue()).toBe('5550100');
    expect(await h.run('select Texas from State, territory, or military post')).toMatchObject({ success: true });
    expect(await h.page.locator('#state').inputValue()).toBe('TX');
  });

  it('a URL is a URL: open "Privacy" and open the Privacy page follow the link; an unknown name fails with the page untouched', async () => {
    await open('/as-seen/check');
    await h.page.getByLabel('Notes for the caseworker').fill('call after 5pm');
    const before = h.page.url();
    expect(await h.run('open "Cookies policy"')).toMatchObject({
      success: false,
      error: 'No link or button "Cookies policy" found on the page',
    });
    expect(h.page.url()).toBe(before);
    expect(await h.page.getByLabel('Notes for the caseworker').inputValue()).toBe('call after 5pm');
    expect(await h.run('go to "Privacy"')).toMatchObject({ success: false });
    expect(h.page.url()).toBe(before);
    expect(await h.run('open "Privacy"')).toMatchObject({ success: true, result: 'Clicked link "Privacy"' });
    expect(h.page.url()).toBe(h.server.url('/privacy-notice'));
    await open('/as-seen/check');
    expect(await h.run('open the Cookies page')).toMatchObject({ success: true });
    expect(h.page.url()).toBe(h.server.url('/cookies'));
  });

  it("a same-origin iframe and a shadow root: the frame's list is read by label; the shadow root's button is clicked, not the aria-hidden decoy", async () => {
    await open('/as-seen/account');
    await h.page.frameLocator('iframe').locator('dl').waitFor();
    expect(await h.run('what is the balance?')).toMatchObject({ success: true, result: '£1,204.50' });
    expect(await h.run('click Download statement', { set_cache: false })).toMatchObject({ success: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('shadow');
    expect(await h.run('click Close account', { set_cache: false })).toMatchObject({
      success: false,
      error: 'No element "Close account" found on the page',
    });
  });
});
