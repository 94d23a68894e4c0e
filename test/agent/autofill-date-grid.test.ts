/**
 * Date picker dialogs and calendar-only date fields (issue 20 item 3, docs/autofill.md "Date picker
 * dialogs and calendar-only date fields"): a page built from React Aria's real DialogTrigger +
 * Calendar (corpus form react-aria-home-viewing: a button "Choose date" opening a calendar grid on
 * March 2027, Sundays and 7 May 2027 unavailable, outside-month days drawn). The filler opens the
 * calendar, steps month by month, clicks the day whose name means the date, and reads the field back.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { cellDate, datesIn, shownMonth } from '../../src-main/agent/autofill/calendarFiller.ts';
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import { buildReactCorpus, REACT_CORPUS, reactCorpusHandlers, submitPath } from '../fixtures/react-forms/corpus.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startFormServer, type FormServer } from '../helpers/formServer.ts';
import { fakeContext } from './fakeContext.ts';

const form = REACT_CORPUS.find((f) => f.name === 'react-aria-home-viewing');
if (!form) throw new Error('corpus form react-aria-home-viewing is missing');

describe('calendar grid parts (pure)', () => {
  it('reads a day cell name as one date, whatever the words around it', () => {
    expect(cellDate('Friday, March 14, 2025')).toEqual({ year: 2025, month: 3, day: 14 });
    expect(cellDate('Today, Friday, March 14, 2025 selected')).toEqual({ year: 2025, month: 3, day: 14 });
    expect(cellDate('14')).toBeNull();
    expect(datesIn('Viewing date May 14, 2027')).toEqual([[{ year: 2027, month: 5, day: 14 }]]);
    expect(datesIn('Choose date')).toEqual([]);
    expect(shownMonth({ heading: 'Viewing date, April 2027', cells: [], prev: true, next: true })).toEqual({
      year: 2027,
      month: 4,
    });
  });
});

describe('date picker dialogs (calendar-only date field, React Aria)', () => {
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;
  let server: FormServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    const built = await buildReactCorpus([form]);
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

  async function fill(viewingDate: string): Promise<{ failure: unknown; sent: unknown[]; logs: string[] }> {
    const srv = server as FormServer;
    const since = srv.posts.length;
    const ctx = fakeContext({
      page,
      startUrl: srv.url('/rf/react-aria-home-viewing/'),
      formData: { ...(form?.formData as JsonObject), viewing_date: viewingDate },
      formSchema: form?.formSchema as JsonObject,
      maxTurns: 10,
    });
    let failure: unknown;
    try {
      await new AutofillAgent({ navigationTimeoutMs: 15_000 }).run(ctx);
    } catch (error) {
      failure = error;
    }
    const sent = srv.posts
      .slice(since)
      .filter((p) => p.path === submitPath(form as NonNullable<typeof form>))
      .map((p) => p.json);
    return { failure, sent, logs: ctx.logs };
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
});
