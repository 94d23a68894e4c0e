/**
 * Date picker dialogs and calendar-only date fields (issue 20 item 3, docs/autofill.md "Date picker
 * dialogs and calendar-only date fields"): a page built from React Aria's real DialogTrigger +
 * Calendar (corpus form react-aria-home-viewing: a button "Choose date" opening a calendar grid on
 * March 2027, Sundays and 7 May 2027 unavailable, outside-month days drawn). The filler opens the
 * calendar, steps month by month, clicks the day whose name means the date, and reads the field back.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  cellDate,
  cellsFor,
  datesIn,
  monthCell,
  monthViewYear,
  pickerIndex,
  shownMonth,
  shownMonths,
  viewOf,
  yearCell,
} from '../../src-main/agent/autofill/calendarFiller.ts';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { type FrameScan, fromJsonText, scanPageText } from '../../src-main/agent/injected/index.ts';
import type { SubmissionReceipt } from '../../src-main/agent/agentTypes.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import { buildReactCorpus, REACT_CORPUS, reactCorpusHandlers, submitPath } from '../fixtures/react-forms/corpus.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startFormServer, type FormServer } from '../helpers/formServer.ts';
import { fakeContext } from './fakeContext.ts';

const form = REACT_CORPUS.find((f) => f.name === 'react-aria-home-viewing');
if (!form) throw new Error('corpus form react-aria-home-viewing is missing');
const insurance = REACT_CORPUS.find((f) => f.name === 'react-aria-travel-insurance');
if (!insurance) throw new Error('corpus form react-aria-travel-insurance is missing');
const cottage = REACT_CORPUS.find((f) => f.name === 'react-aria-cottage-booking');
if (!cottage) throw new Error('corpus form react-aria-cottage-booking is missing');
const library = REACT_CORPUS.find((f) => f.name === 'chakra-library-card');
if (!library) throw new Error('corpus form chakra-library-card is missing');

describe('calendar grid parts (pure)', () => {
  it('reads a day cell name as one date, whatever the words around it', () => {
    expect(cellDate('Friday, March 14, 2025')).toEqual({ year: 2025, month: 3, day: 14 });
    expect(cellDate('Today, Friday, March 14, 2025 selected')).toEqual({ year: 2025, month: 3, day: 14 });
    expect(cellDate('14')).toBeNull();
    expect(cellDate('Choose Friday, March 14, 2025')).toEqual({ year: 2025, month: 3, day: 14 });
    expect(
      cellDate('Selected Range: Thursday, February 25 to Thursday, March 4, 2027, Thursday, March 4, 2027 selected'),
    ).toEqual({ year: 2027, month: 3, day: 4 });
    expect(pickerIndex('month', 'Jul')).toBe(7);
    expect(pickerIndex('month', 'September')).toBe(9);
    expect(pickerIndex('month', '12')).toBe(12);
    expect(pickerIndex('month', 'Ma')).toBe(-1);
    expect(pickerIndex('year', '1986')).toBe(1986);
    expect(
      shownMonth({
        heading: '',
        cells: [],
        prev: false,
        next: false,
        month: { kind: 'listbox', options: [], shown: 'July' },
        year: { kind: 'select', options: ['1986'], shown: '1986' },
        months: [''],
        range: false,
        views: [],
      }),
    ).toEqual({ year: 1986, month: 7 });
    expect(datesIn('Viewing date May 14, 2027')).toEqual([[{ year: 2027, month: 5, day: 14 }]]);
    expect(datesIn('Choose date')).toEqual([]);
    expect(
      shownMonth({
        heading: 'Viewing date, April 2027',
        cells: [],
        prev: true,
        next: true,
        month: null,
        year: null,
        months: ['Viewing date, April 2027'],
        range: false,
        views: [],
      }),
    ).toEqual({
      year: 2027,
      month: 4,
    });
  });
});

describe('month and year views (pure)', () => {
  const cell = (name: string, disabled = false) => ({
    mark: name,
    name,
    disabled,
    hidden: false,
    selected: false,
    grid: 0,
  });
  const facts = (heading: string, names: string[]) => ({
    heading,
    cells: names.map((n) => cell(n)),
    prev: true,
    next: false,
    month: null,
    year: null,
    months: [heading],
    range: false,
    views: ['Switch to year view'],
  });
  it('tells a day, month or year view by what its cells name, and the year a month view is in', () => {
    expect(monthCell('March 1958')).toEqual({ month: 3, year: 1958 });
    expect(monthCell('Mar')).toEqual({ month: 3, year: null });
    expect(monthCell('Choose Friday, March 7, 1958')).toBeNull();
    expect(yearCell('1958')).toBe(1958);
    expect(yearCell('March 1958')).toBeNull();
    const months = ['January', 'February', 'March', 'April', 'May', 'June'];
    expect(
      viewOf(facts('December 2014', ['Choose Monday, December 1, 2014', 'Choose Tuesday, December 2, 2014'])),
    ).toBe('day');
    expect(
      viewOf(
        facts(
          '2014',
          months.map((m) => `${m} 2014`),
        ),
      ),
    ).toBe('month');
    expect(
      monthViewYear(
        facts(
          'December 2014',
          months.map((m) => `${m} 2014`),
        ),
      ),
    ).toBe(2014);
    // Cells naming the month alone: the year from the heading, only when it names exactly one.
    expect(
      monthViewYear(
        facts(
          '1958',
          months.map((m) => m.slice(0, 3)),
        ),
      ),
    ).toBe(1958);
    expect(monthViewYear(facts('1950 – 1959', months))).toBeNull();
    expect(viewOf(facts('2010 – 2019', ['2010', '2011', '2012', '2013']))).toBe('year');
    expect(viewOf(facts('', ['Today', 'Clear', 'Done']))).toBeNull();
  });
});

describe('two months side by side (pure)', () => {
  // April and May 2027 shown: April's grid draws 1 May greyed and disabled, May's draws 25-30 April.
  const cell = (name: string, grid: number, disabled = false) => ({
    mark: `c-${grid}-${name}`,
    name,
    disabled,
    hidden: false,
    selected: false,
    grid,
  });
  const facts = {
    heading: 'April – May 2027',
    cells: [
      cell('Friday, April 30, 2027', 0),
      cell('Saturday, May 1, 2027', 0, true),
      cell('Friday, April 30, 2027', 1, true),
      cell('Saturday, May 1, 2027', 1),
    ],
    prev: false,
    next: true,
    month: null,
    year: null,
    months: ['Stay dates, April 2027', 'Stay dates, May 2027'],
    range: true,
    views: [],
  };
  it("reads each grid's month and takes a day only from its own month's grid, never the look-alike beside it", () => {
    expect(shownMonths(facts)).toEqual([
      { year: 2027, month: 4 },
      { year: 2027, month: 5 },
    ]);
    expect(shownMonth(facts)).toEqual({ year: 2027, month: 4 });
    expect(cellsFor(facts, { year: 2027, month: 5, day: 1 }).map((c) => c.mark)).toEqual(['c-1-Saturday, May 1, 2027']);
    expect(cellsFor(facts, { year: 2027, month: 4, day: 30 }).map((c) => c.mark)).toEqual([
      'c-0-Friday, April 30, 2027',
    ]);
    // Unnamed grids: each by the month most of its days are in.
    const unnamed = {
      ...facts,
      months: ['', ''],
      cells: [...facts.cells, cell('Thursday, April 29, 2027', 0), cell('Sunday, May 2, 2027', 1)],
    };
    expect(shownMonths(unnamed)).toEqual([
      { year: 2027, month: 4 },
      { year: 2027, month: 5 },
    ]);
  });
});

describe('date picker dialogs (calendar-only date field, React Aria)', () => {
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;
  let server: FormServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    const built = await buildReactCorpus([form, insurance, cottage, library]);
    const [launched, started] = await Promise.all([launchTestBrowser(), startFormServer(reactCorpusHandlers(built))]);
    browser = launched.browser;
    closeBrowser = launched.close;
    server = started;
  }, 600_000);
  afterAll(async () => {
    await closeBrowser?.();
    await server?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort());
    page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
  });

  async function fill(
    viewingDate: string,
    on = form as NonNullable<typeof form>,
    formData: JsonObject = { ...(form?.formData as JsonObject), viewing_date: viewingDate },
  ): Promise<{ failure: unknown; sent: unknown[]; logs: string[]; receipts: SubmissionReceipt[] }> {
    const srv = server as FormServer;
    const since = srv.posts.length;
    const receipts: SubmissionReceipt[] = [];
    const ctx = fakeContext({
      page,
      startUrl: srv.url(`/rf/${on.name}/`),
      formData,
      formSchema: on.formSchema as JsonObject,
      maxTurns: 10,
    });
    ctx.reportSubmission = (receipt) => receipts.push(receipt);
    let failure: unknown;
    try {
      await new AutofillAgent({ navigationTimeoutMs: 15_000 }).run(ctx);
    } catch (error) {
      failure = error;
    }
    const sent = srv.posts
      .slice(since)
      .filter((p) => p.path === submitPath(on))
      .map((p) => p.json);
    return { failure, sent, logs: ctx.logs, receipts };
  }

  const body = (viewingDate: string): unknown => ({ ...(form?.expected as object), viewingDate });

  it('steps two months ahead to May 2027 and picks Friday, May 14, 2027', async () => {
    const run = await fill('2027-05-14');
    expect(run.failure, run.logs.join('\n')).toBeUndefined();
    expect(run.sent).toEqual([body('2027-05-14')]);
  }, 60_000);

  it('picks 2 April in April, not the outside-month 2 April drawn in March nor 2 March', async () => {
    const run = await fill('2 April 2027');
    expect(run.failure, run.logs.join('\n')).toBeUndefined();
    expect(run.sent).toEqual([body('2027-04-02')]);
  }, 60_000);

  it('an unavailable day (a Sunday) fails the job saying why, and nothing is sent', async () => {
    const run = await fill('2027-03-21');
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(/Sunday, March 21, 2027.*not available/);
  }, 60_000);

  // Corpus form react-aria-travel-insurance: a date of birth from a calendar whose month and year are
  // dropdowns (React Aria Selects in the calendar's header; 1930-2008), trip dates as a range in a
  // calendar shown on the page with two months side by side (from January 2027; each grid draws the
  // neighbouring month's days greyed and disabled, named as the real ones), the day cover starts in
  // another calendar shown on the page (from January 2027). The form itself passes in the corpus test.
  const insured = (changes: JsonObject): JsonObject => ({ ...(insurance?.formData as JsonObject), ...changes });

  it("a year the calendar's year dropdown does not offer fails saying so; no neighbouring year, nothing sent", async () => {
    const run = await fill('', insurance, insured({ date_of_birth: '1925-05-01' }));
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(/Date of birth.*offers no year 1925 in its year dropdown \(2008 … 1930\)/);
  }, 60_000);

  it("a trip starting before the range calendar's first month fails before any day is clicked; nothing sent", async () => {
    const run = await fill('', insurance, insured({ trip_dates: { start: '2026-12-28', end: '2027-01-03' } }));
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(/calendar of 'Trip dates' does not go to December 2026/);
  }, 60_000);

  it("an inline calendar showing January and February is one field; a trip ending 1 February is picked in February's grid, not January's greyed 1 February", async () => {
    const run = await fill('', insurance, insured({ trip_dates: { start: '2027-01-28', end: '2027-02-01' } }));
    expect(run.failure, run.logs.join('\n')).toBeUndefined();
    expect(run.sent).toEqual([
      { ...(insurance?.expected as object), trip: { departs: '2027-01-28', returns: '2027-02-01' } },
    ]);
    // Both dates of the range are in the request (trip.departs, trip.returns): each key verified on its own.
    const receipt = run.receipts.at(-1);
    expect(receipt?.verified, JSON.stringify(receipt)).toEqual(
      expect.arrayContaining(['trip_dates.start', 'trip_dates.end']),
    );
  }, 60_000);

  // Corpus form react-aria-cottage-booking: the stay is a range in a popup calendar behind "Choose dates"
  // (React Aria's DialogTrigger + RangeCalendar showing April and May 2027 side by side, from 1 April;
  // 10-14 May booked). The corpus test fills it across two pages of months (30 May - 5 June).
  const stay = (check_in: string, check_out: string): JsonObject => ({
    ...(cottage?.formData as JsonObject),
    stay: { check_in, check_out },
  });

  it("a range ending on 1 May is picked in May's grid, not April's greyed 1 May beside it; each date verified in the request", async () => {
    const run = await fill('', cottage, stay('2027-04-28', '2027-05-01'));
    expect(run.failure, run.logs.join('\n')).toBeUndefined();
    expect(run.sent).toEqual([{ ...(cottage?.expected as object), arrival: '2027-04-28', departure: '2027-05-01' }]);
    // The request carries both dates (as `arrival` and `departure`): each key of the range is verified on its own.
    const receipt = run.receipts.at(-1);
    expect(receipt?.verified, JSON.stringify(receipt)).toEqual(
      expect.arrayContaining(['stay.check_in', 'stay.check_out']),
    );
    expect(receipt?.unverified, JSON.stringify(receipt)).not.toEqual(expect.arrayContaining(['stay.check_in']));
    expect(receipt?.unverified, JSON.stringify(receipt)).not.toEqual(expect.arrayContaining(['stay.check_out']));
  }, 60_000);

  it("the field is read back by its trigger's text, its name and its group's text sent together", async () => {
    // Each locator read of the trigger and its group, with its start and end as places in one sequence.
    const reads: Array<{ what: string; start: number; end: number }> = [];
    let seq = 0;
    const proto = Object.getPrototypeOf(page.locator('body')) as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const originals = new Map<string, (...a: unknown[]) => Promise<unknown>>();
    for (const method of ['innerText', 'getAttribute', 'count']) {
      const original = proto[method] as (...a: unknown[]) => Promise<unknown>;
      originals.set(method, original);
      proto[method] = function (this: unknown, ...args: unknown[]) {
        const read = { what: `${method} ${String((this as { _selector?: string })._selector)}`, start: seq++, end: -1 };
        reads.push(read);
        return original.apply(this, args).finally(() => {
          read.end = seq++;
        });
      };
    }
    let run: Awaited<ReturnType<typeof fill>>;
    try {
      run = await fill('', cottage, stay('2027-04-28', '2027-05-01'));
    } finally {
      for (const [method, original] of originals) proto[method] = original;
    }
    expect(run.failure, run.logs.join('\n')).toBeUndefined();
    expect(run.sent).toEqual([{ ...(cottage?.expected as object), arrival: '2027-04-28', departure: '2027-05-01' }]);
    const text = reads.findLast(
      (r) => r.what.startsWith('innerText') && !r.what.includes('ancestor::'),
    ) as (typeof reads)[number];
    const name = reads.findLast((r) => r.what.startsWith('getAttribute')) as (typeof reads)[number];
    const group = reads.findLast(
      (r) => r.what.startsWith('count') && r.what.includes('ancestor::'),
    ) as (typeof reads)[number];
    expect([text, name, group].every(Boolean), JSON.stringify(reads)).toBe(true);
    // All three sent before any of them answered.
    expect(Math.max(text.start, name.start, group.start)).toBeLessThan(Math.min(text.end, name.end, group.end));
  }, 60_000);

  it('a stay running into a booked day fails before any day is clicked, naming it; nothing sent', async () => {
    const run = await fill('', cottage, stay('2027-05-06', '2027-05-12'));
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(/Wednesday, May 12, 2027.*not available in the calendar of 'Stay dates'/);
    expect((await page.locator('#stay-button').innerText()).trim()).toBe('Choose dates');
  }, 60_000);

  // Corpus form chakra-library-card: Chakra's DatePicker drawn without its input (a trigger "Open
  // calendar" beside an untied <label>Date of birth</label>), opening on December 2014 (its max), with
  // month and year views behind "Switch to month view" / "Switch to year view"; dates read back as
  // MM/DD/YYYY. The corpus test fills 1958-03-07 through the year and month views (read back
  // "03/07/1958", two ways, settled by the calendar opened again).
  const card = (date_of_birth: string): JsonObject => ({ ...(library?.formData as JsonObject), date_of_birth });

  it("a year after the calendar's last (2016, greyed in its year view) fails naming it; nothing sent", async () => {
    const run = await fill('', library, card('2016-05-10'));
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(
      /calendar of 'Date of birth' does not offer the year 2016 \('2016' is unavailable\)/,
    );
  }, 60_000);

  it("ties a calendar trigger to its field's label by the page's structure (or a hidden aria-labelledby target), and never to a label two triggers share", async () => {
    // Each field on its own line; `labelledBy` of the calendar controls found, by trigger id.
    await page.setContent(`<form>
      <div><label for="absent-input">Date of birth</label><div><button id="untied" type="button" aria-label="Open calendar" aria-haspopup="grid">Select date</button></div></div>
      <div><label for="absent-2">Travel dates</label><div><button id="twin-a" type="button" aria-label="Open calendar" aria-haspopup="grid">Start</button><button id="twin-b" type="button" aria-label="Open calendar" aria-haspopup="grid">End</button></div></div>
      <div><label for="city">City</label><input id="city"><button id="beside-input" type="button" aria-label="Open calendar" aria-haspopup="dialog">Pick</button></div>
      <div><label>Renewal date <button id="wrapped" type="button" aria-haspopup="dialog">Choose date</button></label></div>
      <fieldset><legend>Moving date</legend><button id="legend" type="button" aria-label="Open calendar" aria-haspopup="dialog">Pick</button></fieldset>
      <div><button id="after" type="button" aria-label="Open calendar" aria-haspopup="grid">Select date</button><label for="gone">Start date</label></div>
      <div><span id="hidden-label" hidden>Date of <b>departure</b></span><button id="labelled-hidden" type="button" aria-labelledby="hidden-label" aria-haspopup="dialog">Choose date</button></div>
    </form>`);
    const scan = fromJsonText<FrameScan>(await page.evaluate(scanPageText));
    const calendars = Object.fromEntries(
      scan.controls.filter((c) => c.type === 'calendar').map((c) => [c.id, c.labelledBy]),
    );
    // An aria-labelledby target that is hidden still names it (accessible name computation).
    expect(calendars).toEqual({
      untied: 'Date of birth',
      wrapped: 'Renewal date',
      legend: 'Moving date',
      'labelled-hidden': 'Date of departure',
    });
  });

  it("a cover start day before the inline calendar's first month fails saying so, no neighbouring day; nothing sent", async () => {
    const run = await fill('', insurance, insured({ cover_start_date: '2026-12-31' }));
    expect(run.sent).toEqual([]);
    expect(String(run.failure)).toMatch(/calendar of 'Cover start date' does not go to December 2026/);
  }, 60_000);
});
