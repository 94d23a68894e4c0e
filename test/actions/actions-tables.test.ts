// Issue 24: reading a table by row and column ("what is the rate for vehicles for February?", "read the
// status of order 1042") and acting inside one row ("click Delete for Invoice 7"). The tables are the
// design systems' own example markup, read from the packages in node_modules (GOV.UK Frontend's and
// NHS.UK Frontend's fixtures.json, USWDS's sortable-table Twig template), on pages carrying the
// packages' CSS and JavaScript (NHS.UK's and USWDS's scripts make their tables sortable and re-order
// rows); the row-action table is GOV.UK table markup of our own. Effects are read from the page itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as gov from '../fixtures/design-systems/govukMarkup.ts';
import * as nhs from '../fixtures/design-systems/nhsukMarkup.ts';
import { NODE_MODULES } from '../fixtures/design-systems/shared.ts';
import * as us from '../fixtures/design-systems/uswdsMarkup.ts';
import { html, useActionHarness } from './actionHarness.ts';

/** One example's HTML from a package's fixtures.json (the markup its own tests render), by its name and description ("default responsive"). */
function packageFixture(file: string, name: string): string {
  const { fixtures } = JSON.parse(readFileSync(join(NODE_MODULES, file), 'utf8')) as {
    fixtures: Array<{ name: string; description?: string; html: string }>;
  };
  const found = fixtures.find((f) => [f.name, f.description].filter(Boolean).join(' ') === name);
  if (!found) throw new Error(`${file} has no fixture ${JSON.stringify(name)}`);
  return found.html;
}

/** USWDS's sortable table as its Twig template writes it (the template's only logic is the sticky/scrollable switches, left off). */
const uswdsSortable = readFileSync(
  join(NODE_MODULES, '@uswds/uswds/packages/usa-table/src/usa-table--sortable/usa-table--sortable.twig'),
  'utf8',
)
  .replace(/\{%[\s\S]*?%\}/g, '')
  .replace(/\{\{[\s\S]*?\}\}/g, '');

const invoiceRow = (name: string, amount: string): string => `<tr class="govuk-table__row">
  <td class="govuk-table__cell">${name}</td><td class="govuk-table__cell govuk-table__cell--numeric">${amount}</td>
  <td class="govuk-table__cell"><a class="govuk-link" href="#edit" onclick="document.title = 'edit ${name}'; return false">Edit</a>
  <button type="button" class="govuk-button govuk-button--warning govuk-!-margin-bottom-0" data-module="govuk-button" onclick="document.title = 'deleted ${name}'">Delete</button></td></tr>`;

/** GOV.UK: the package's "with head and caption" table, a row-action table (in `order`), an orders table keyed by number, a summary list. */
const govPage = (order: 'asc' | 'desc'): string => {
  const invoices = [
    ['Invoice 6', '£120.00'],
    ['Invoice 7', '£75.50'],
    ['Invoice 70', '£9.99'],
  ] as const;
  const rows = (order === 'asc' ? invoices : [...invoices].reverse())
    .map(([name, amount]) => invoiceRow(name, amount))
    .join('\n');
  return gov.govukPage(
    'Your account',
    `
<h1 class="govuk-heading-l">Your account</h1>
${packageFixture('govuk-frontend/dist/govuk/components/table/fixtures.json', 'with head and caption')}
<table class="govuk-table"><caption class="govuk-table__caption govuk-table__caption--m">Invoices</caption>
  <thead class="govuk-table__head"><tr class="govuk-table__row"><th scope="col" class="govuk-table__header">Invoice</th><th scope="col" class="govuk-table__header govuk-table__header--numeric">Amount</th><th scope="col" class="govuk-table__header"><span class="govuk-visually-hidden">Actions</span></th></tr></thead>
  <tbody class="govuk-table__body">${rows}</tbody>
</table>
<table class="govuk-table"><caption class="govuk-table__caption govuk-table__caption--m">Orders</caption>
  <thead class="govuk-table__head"><tr class="govuk-table__row"><th scope="col" class="govuk-table__header">Order</th><th scope="col" class="govuk-table__header">Status</th><th scope="col" class="govuk-table__header">Amount</th></tr></thead>
  <tbody class="govuk-table__body">
    <tr class="govuk-table__row"><td class="govuk-table__cell">1041</td><td class="govuk-table__cell"><strong class="govuk-tag govuk-tag--green">Delivered</strong></td><td class="govuk-table__cell">£12.00</td></tr>
    <tr class="govuk-table__row"><td class="govuk-table__cell">1042</td><td class="govuk-table__cell"><strong class="govuk-tag govuk-tag--blue">Dispatched</strong></td><td class="govuk-table__cell">£30.00</td></tr>
    <tr class="govuk-table__row"><td class="govuk-table__cell">1043</td><td class="govuk-table__cell"><strong class="govuk-tag govuk-tag--blue">Dispatched</strong></td><td class="govuk-table__cell">£8.00</td></tr>
  </tbody>
</table>
${gov.summaryList([
  { key: 'Name', value: 'Sarah Philips', href: '#name' },
  { key: 'Date of birth', value: '5 January 1978', href: '#dob' },
])}`,
    { service: 'Manage your account' },
  );
};

const nhsPage = nhs.nhsukPage(
  'Appointments',
  `<h1>Appointments</h1>
${packageFixture('nhsuk-frontend/dist/nhsuk/components/tables/fixtures.json', 'sortable')}
${packageFixture('nhsuk-frontend/dist/nhsuk/components/tables/fixtures.json', 'default responsive')}`,
  { service: 'Manage appointments' },
);

const uswdsPage = us.uswdsPage('Admissions', `<h1>Admissions</h1>${uswdsSortable}`, { agency: 'Example agency' });

describe('tables read by row and column, and actions inside one row (issue 24)', () => {
  const h = useActionHarness({
    '/tables/gov': html(govPage('asc')),
    '/tables/gov-reordered': html(govPage('desc')),
    '/tables/nhs': html(nhsPage),
    '/tables/uswds': html(uswdsPage),
  });
  const open = async (path: string) => {
    await h.page.goto(h.server.url(path));
  };

  it('GOV.UK table fixture: the cell of a row (its row header) under a column (its header), never the label; a header over several rows still asks for the row', async () => {
    await open('/tables/gov');
    expect(await h.run('what is the rate for vehicles for February?')).toMatchObject({
      success: true,
      result: '£55',
      set_cache: true,
    });
    expect(await h.run('read the Rate for bicycles of March')).toMatchObject({ success: true, result: '£165' });
    // A row named by its column's header and its cell ("order 1042" for 1042 under "Order").
    expect(await h.run('read the status of order 1042')).toMatchObject({ success: true, result: 'Dispatched' });
    expect(await h.run('what is the amount for Invoice 7?')).toMatchObject({ success: true, result: '£75.50' });
    // The same words, cached: the cell is read again by row and column.
    await open('/tables/gov');
    expect(await h.run('what is the rate for vehicles for February?')).toMatchObject({
      success: true,
      result: '£55',
      used_cache: true,
    });
    // A row or column nobody has is an honest failure, never a neighbour's value.
    expect(await h.run('read the status of order 1044')).toMatchObject({ success: false });
    expect(await h.run('read the colour of order 1042')).toMatchObject({ success: false });
    expect(await h.run('read Status')).toMatchObject({
      success: false,
      error: 'That header heads 3 rows: name the row too',
    });
  });

  it('a row action: "click Delete for Invoice 7" clicks the Delete of that row (not Invoice 70\'s), also cached after the rows are re-ordered', async () => {
    await open('/tables/gov');
    expect(await h.run('click Delete for Invoice 7', { id: 'delete-7' })).toMatchObject({
      success: true,
      result: 'Clicked button "Delete"',
      set_cache: true,
    });
    expect(await h.page.title()).toBe('deleted Invoice 7');
    expect(await h.run('click the Edit link in the Invoice 70 row', { set_cache: false })).toMatchObject({
      success: true,
    });
    expect(await h.page.title()).toBe('edit Invoice 70');
    // Next release: the rows come in the other order. The cached step (same id) finds the row by its key, not its position.
    await open('/tables/gov-reordered');
    expect(await h.run('click Delete for Invoice 7', { id: 'delete-7' })).toMatchObject({
      success: true,
      used_cache: true,
    });
    expect(await h.page.title()).toBe('deleted Invoice 7');
    // The summary list's rows too: the Change link of the Date of birth row.
    expect(await h.run('click Change for Date of birth', { set_cache: false })).toMatchObject({
      success: true,
      result: 'Clicked link "Change date of birth"',
    });
    expect(h.page.url()).toBe(h.server.url('/tables/gov-reordered#dob'));
  });

  it('without the row, Delete is ambiguous; a row that is not there fails with the page untouched', async () => {
    await open('/tables/gov');
    expect(await h.run('click Delete', { set_cache: false })).toMatchObject({
      success: false,
      error: expect.stringContaining('Ambiguous target: 3 elements'),
    });
    expect(await h.run('click Delete for Invoice 9', { set_cache: false })).toMatchObject({ success: false });
    expect(await h.run('click Archive for Invoice 7', { set_cache: false })).toMatchObject({
      success: false,
      error: 'No element "Archive" in the row of "Invoice 7"',
    });
    expect(await h.page.title()).toBe('Your account - Manage your account - GOV.UK');
  });

  it('NHS.UK sortable and responsive table fixtures: a multi-word header with "of" in it; the responsive table\'s hidden repeated headings are not part of the value', async () => {
    await open('/tables/nhs');
    expect(await h.run('what is the date of birth of David Chen?')).toMatchObject({
      success: true,
      result: '19 March 1981',
    });
    expect(await h.run('read the name for 13:10')).toMatchObject({ success: true, result: 'David Chen' });
    expect(await h.run('what is the possible cause for Itchy blisters')).toMatchObject({
      success: true,
      result: 'Shingles, chickenpox',
    });
    // Sorted by the package's own script (its header buttons): the rows move, the reading does not.
    await h.page.getByRole('button', { name: 'Name' }).click();
    expect(await h.page.locator('table.nhsuk-table--sortable tbody tr').first().innerText()).toContain('David Chen');
    expect(await h.run('what is the date of birth of David Chen?')).toMatchObject({
      success: true,
      result: '19 March 1981',
      used_cache: true,
    });
  });

  it('USWDS sortable table (its script re-orders the rows on load): the cell under a long header for a row header', async () => {
    await open('/tables/uswds');
    await h.page.locator('.usa-table__header__button').first().waitFor();
    expect(await h.run('what is the date admitted to union for Alaska?')).toMatchObject({
      success: true,
      result: 'Jan. 3, 1959',
    });
    expect(await h.run('read the Percent of voters in favor of ratification for Hawaii')).toMatchObject({
      success: true,
      result: '94.3%',
    });
  });
});
