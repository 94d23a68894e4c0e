// A cached single action through the API vs the raw Playwright call it replays, in the same run and the
// same session browser. API: POST /public/single-actions/run-action with an `id` whose cached step is
// "click button Save" (used_cache must be true). Raw: a Playwright client connected over the session's
// cdp_url clicking getByRole('button', {name: 'Save', exact: true}) on the same page. Runs alternate so
// machine load hits both alike; the overhead is the difference of the medians (on the realistic page the
// median of the pairs' differences is reported too, and each pair's order alternates).
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import * as gov from '../test/fixtures/design-systems/govukMarkup.ts';
import { assetHandlers } from '../test/fixtures/design-systems/shared.ts';
import { startFormServer, type Handler } from '../test/helpers/formServer.ts';
import { median, startSessionBench } from './lib.ts';

const RUNS = Number(process.env.BENCH_ACTION_RUNS ?? 60);
const REAL_RUNS = Number(process.env.BENCH_ACTION_REAL_RUNS ?? 30);

/**
 * A GOV.UK-sized page (issue 24): the package's CSS, header and footer, a 12-row summary list with Change
 * links, a 30-row table with row actions, form fields, a state select with coded labels and two
 * same-origin iframes (one with its own description list). `drift` renames every id and class hook the
 * raw script does not use and reverses the summary rows, as a site's next release might.
 */
function realPage(drift: boolean): string {
  const rows = [
    ['Name', 'Sarah Philips'],
    ['Date of birth', '5 January 1978'],
    ['Reference number', 'HDJ2123F'],
    ...Array.from({ length: 9 }, (_, i) => [`Detail ${i + 1}`, `Value ${i + 1}`]),
  ];
  const ordered = drift ? [...rows].reverse() : rows;
  const table = Array.from(
    { length: 30 },
    (_, i) =>
      `<tr class="govuk-table__row"><th scope="row" class="govuk-table__header">APP-${1000 + i}</th><td class="govuk-table__cell">${i % 3 ? 'Submitted' : 'Approved'}</td><td class="govuk-table__cell"><a class="govuk-link" href="#r${i}">View<span class="govuk-visually-hidden"> application APP-${1000 + i}</span></a></td></tr>`,
  ).join('');
  const suffix = drift ? '-v2' : '';
  return gov.govukPage(
    'Check your answers',
    `
<h1 class="govuk-heading-l">Check your answers</h1>
${gov.summaryList(ordered.map(([key, value]) => ({ key: key ?? '', value: value ?? '', href: '#change' })))}
${gov.input({ id: `given${suffix}`, name: 'given', label: 'First or given name' })}
${gov.input({ id: `family${suffix}`, name: 'family', label: 'Last or family name' })}
${gov.checkboxes({
  name: 'contact',
  legend: 'How would you like to be contacted?',
  items: [
    { value: 'email', text: 'Email' },
    { value: 'sms', text: 'Text message' },
  ],
  values: {},
})}
${gov.select({
  id: `state${suffix}`,
  label: 'State',
  options: [
    { value: '', text: 'Choose a state' },
    { value: 'TX', text: 'TX - Texas' },
    { value: 'TN', text: 'TN - Tennessee' },
    { value: 'WA', text: 'WA - Washington' },
  ],
  values: {},
})}
<table class="govuk-table"><caption class="govuk-table__caption">Applications</caption><thead class="govuk-table__head"><tr class="govuk-table__row"><th scope="col" class="govuk-table__header">Reference</th><th scope="col" class="govuk-table__header">Status</th><th scope="col" class="govuk-table__header">Action</th></tr></thead><tbody class="govuk-table__body">${table}</tbody></table>
<iframe src="/statement" title="Statement" style="width:600px;height:160px"></iframe>
<iframe src="/help" title="Help" style="width:600px;height:120px"></iframe>
<button type="button" class="govuk-button${drift ? ' app-save' : ''}" data-module="govuk-button" onclick="this.dataset.n = String(Number(this.dataset.n || 0) + 1)">Save and continue later</button>
<p class="govuk-body"><a class="govuk-link" href="/privacy">Privacy</a></p>`,
    { service: 'Apply for a licence' },
  );
}

const FRAME =
  '<!doctype html><title>Statement</title><dl><dt>Balance</dt><dd>£1,204.50</dd><dt>Account number</dt><dd>12345678</dd></dl>';
const HELP = '<!doctype html><title>Help</title><p>Need help? <a href="/contact">Contact us</a></p>';

/** One action on the realistic page and how its effect is checked over a separate CDP connection. */
interface Case {
  action: string;
  check(page: Page, outcome: Record<string, unknown>): Promise<boolean>;
}

const CASES: Case[] = [
  { action: 'extract the date of birth', check: async (_p, o) => o.result === '5 January 1978' },
  { action: 'what is the reference number?', check: async (_p, o) => o.result === 'HDJ2123F' },
  { action: 'what is the balance?', check: async (_p, o) => o.result === '£1,204.50' },
  {
    action: 'type Ada into first name',
    check: async (p) => (await p.locator('input[name=given]').inputValue()) === 'Ada',
  },
  {
    action: 'type Lovelace into the surname field',
    check: async (p) => (await p.locator('input[name=family]').inputValue()) === 'Lovelace',
  },
  { action: 'tick the Text message box', check: async (p) => p.locator('input[value=sms]').isChecked() },
  {
    action: 'choose Texas from the State dropdown',
    check: async (p) => (await p.locator('select[name^=state]').inputValue()) === 'TX',
  },
  { action: 'click application APP-1007', check: async (p) => p.url().endsWith('#r7') },
  { action: 'read APP-1003', check: async (_p, o) => o.result === 'Approved' },
  {
    action: 'click the Save and continue later button',
    check: async (p) =>
      (await p.getByRole('button', { name: 'Save and continue later' }).getAttribute('data-n')) !== null,
  },
];

/**
 * First-run success, replay and drift of the issue-24 cases on the realistic page, each effect checked
 * over a second CDP connection; then a cached action through the API against the same operation in raw
 * Playwright (alternating), for a click, a summary-list read, a select and a fill.
 */
async function realistic(
  post: (path: string, body: unknown) => Promise<Record<string, unknown>>,
  sessionId: string,
  cdpUrl: string,
): Promise<Record<string, unknown>> {
  const handlers: Record<string, Handler> = {
    ...assetHandlers(),
    '/check': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(realPage(false)),
    '/check-v2': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(realPage(true)),
    '/statement': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(FRAME),
    '/help': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HELP),
  };
  const server = await startFormServer(handlers);
  const client = await chromium.connectOverCDP(cdpUrl);
  try {
    const page = client.contexts().flatMap((c) => c.pages())[0];
    if (!page) throw new Error('no session page over the CDP URL');
    const act = (action: string, id?: string) =>
      post('/public/single-actions/run-action', { session_id: sessionId, action, ...(id && { id }) });
    const load = async (path: string): Promise<void> => {
      await page.goto(server.url(path));
      await page.frameLocator('iframe[title=Statement]').locator('dl').waitFor();
    };
    const pass = async (path: string, cached: boolean): Promise<number> => {
      let right = 0;
      for (const [i, c] of CASES.entries()) {
        await load(path);
        const outcome = await act(c.action, `bench-real-${i}`);
        if (outcome.success === true && (!cached || outcome.used_cache === true) && (await c.check(page, outcome)))
          right += 1;
      }
      return right;
    };
    const firstRun = await pass('/check', false);
    const replay = await pass('/check', true);
    // Drift: the same ids map to the renamed page; what still resolves (by role and name, or afresh) must have the right effect.
    let drift = 0;
    for (const [i, c] of CASES.entries()) {
      await load('/check-v2');
      const outcome = await act(c.action, `bench-real-${i}`);
      if (outcome.success === true && (await c.check(page, outcome))) drift += 1;
    }

    await load('/check');
    const ops: Array<{ name: string; action: string; raw: () => Promise<unknown> }> = [
      {
        name: 'click',
        action: 'click the Save and continue later button',
        raw: () => page.getByRole('button', { name: 'Save and continue later', exact: true }).click(),
      },
      {
        name: 'extract',
        action: 'extract the date of birth',
        raw: () => page.locator('.govuk-summary-list__row:nth-child(2) .govuk-summary-list__value').innerText(),
      },
      {
        name: 'select',
        action: 'choose Texas from the State dropdown',
        raw: () => page.locator('#state').selectOption('TX'),
      },
      { name: 'fill', action: 'type Ada into first name', raw: () => page.locator('#given').fill('Ada') },
    ];
    const overhead: Record<string, unknown> = {};
    for (const op of ops) {
      const id = `bench-op-${op.name}`;
      const first = await act(op.action, id);
      if (first.success !== true) throw new Error(`${op.action}: ${JSON.stringify(first)}`);
      const api: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i <= REAL_RUNS; i += 1) {
        // Alternating pairs, the order swapped every other run so neither side always goes first.
        const apiFirst = i % 2 === 0;
        let replayed: Record<string, unknown> = {};
        let apiMs = 0;
        let rawMs = 0;
        for (const side of apiFirst ? ['api', 'raw'] : ['raw', 'api']) {
          const t0 = performance.now();
          if (side === 'api') replayed = await act(op.action, id);
          else await op.raw();
          if (side === 'api') apiMs = performance.now() - t0;
          else rawMs = performance.now() - t0;
        }
        if (replayed.used_cache !== true || replayed.success !== true)
          throw new Error(`${op.action} run ${i} did not replay: ${JSON.stringify(replayed)}`);
        if (i === 0) continue;
        api.push(apiMs);
        raw.push(rawMs);
      }
      const pairs = api.map((a, k) => a - (raw[k] ?? 0));
      overhead[op.name] = {
        api_median_ms: round(median(api)),
        raw_median_ms: round(median(raw)),
        overhead_ms: round(median(api) - median(raw)),
        pair_difference_median_ms: round(median(pairs)),
      };
    }
    const worst = Math.max(...Object.values(overhead).map((o) => (o as { overhead_ms: number }).overhead_ms));
    return {
      cases: CASES.length,
      first_run_success: firstRun,
      replay_right: replay,
      drift_right: drift,
      overhead,
      worst_overhead_ms: worst,
      met: worst <= 30,
    };
  } finally {
    await client.close();
    await server.close();
  }
}
const PAGE =
  '<!doctype html><title>Bench</title><h1>Draft</h1><button onclick="this.dataset.n = String(Number(this.dataset.n ?? 0) + 1)">Save</button><label>Notes <input></label>';

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (v: number): number => Math.round(v * 10) / 10;

async function main(): Promise<void> {
  const loadAtStart = loadavg().map(round);
  const { pageUrl, post, close } = await startSessionBench('actions', PAGE);
  try {
    const session = await post('/public/sessions', {});
    const sessionId = String(session.session_id);
    const action = async (): Promise<Record<string, unknown>> =>
      post('/public/single-actions/run-action', {
        session_id: sessionId,
        action: 'click the Save button',
        id: 'bench-save',
      });
    await post('/public/single-actions/run-action', { session_id: sessionId, action: `go to ${pageUrl}` });
    const first = await action();
    if (first.success !== true || first.set_cache !== true)
      throw new Error(`first run did not store the step: ${JSON.stringify(first)}`);

    const client = await chromium.connectOverCDP(String(session.cdp_url));
    const page = client
      .contexts()
      .flatMap((c) => c.pages())
      .find((p) => p.url() === pageUrl);
    if (!page) throw new Error('the session page is not visible over the CDP URL');
    const button = page.getByRole('button', { name: 'Save', exact: true });

    const api: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i <= RUNS; i += 1) {
      const t0 = performance.now();
      const replayed = await action();
      const t1 = performance.now();
      await button.click();
      const t2 = performance.now();
      if (replayed.used_cache !== true || replayed.success !== true)
        throw new Error(`run ${i} did not replay: ${JSON.stringify(replayed)}`);
      if (i === 0) continue; // warm-up
      api.push(t1 - t0);
      raw.push(t2 - t1);
    }
    const clicks = Number(await button.getAttribute('data-n'));
    await client.close();
    const real = await realistic(post, sessionId, String(session.cdp_url));

    const overhead = median(api) - median(raw);
    const result = {
      bench: 'single-actions',
      date: new Date().toISOString(),
      runs: RUNS,
      target: 'cached action through the API ≤ 30 ms over the raw Playwright call (difference of medians)',
      api_ms: { median: round(median(api)), p90: round(percentile(api, 90)) },
      raw_playwright_over_cdp_ms: { median: round(median(raw)), p90: round(percentile(raw, 90)) },
      overhead_ms_median: round(overhead),
      met: overhead <= 30,
      clicks_counted_by_page: clicks,
      realistic_page: real,
      machine: {
        cpus: cpus().length,
        platform: process.platform,
        loadavg_at_start: loadAtStart,
        loadavg: loadavg().map(round),
      },
    };
    await writeFile(
      join(import.meta.dirname, 'results', 'single-actions.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ api: result.api_ms, raw: result.raw_playwright_over_cdp_ms, overhead_ms: result.overhead_ms_median, met: result.met, realistic_page: real })}\n`,
    );
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
