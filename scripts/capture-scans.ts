// Records page scans (FrameScan JSON, what the in-page scanner returns) from real pages into
// test/fixtures/scans/*.json, for the unit tests of the filler's pure decisions (plan.ts) — they run on
// these scans without a browser. For each source it records the start page as loaded (`<name>.start`), then
// runs builtin:autofill on it and records the page at each step it records: right before each click it makes
// (`<name>.step-N`, the page filled) and, when the run completes, the final page (the last step). The form
// server's origin is written as http://forms.test so the files do not change with the port.
//
//   node scripts/capture-scans.ts                 # every source below
//   node scripts/capture-scans.ts govuk-wizard    # only these (names as below)
//
// Needs Chromium (/usr/bin/chromium or PORTICO_TEST_CHROMIUM) and, for React corpus sources, the
// bundles (built and cached on first use, see test/fixtures/react-forms/corpus.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Page } from 'playwright-core';

import { AutofillAgent } from '../src-main/agent/autofill/index.ts';
import { scanAll } from '../src-main/agent/autofill/wizard.ts';
import type { JsonObject } from '../src-main/contract/common.ts';
import { fakeContext } from '../test/agent/fakeContext.ts';
import { CORPUS, corpusHandlers } from '../test/fixtures/design-systems/corpus.ts';
import { buildReactCorpus, REACT_CORPUS, reactCorpusHandlers } from '../test/fixtures/react-forms/corpus.ts';
import { launchTestBrowser } from '../test/helpers/chromium.ts';
import { startFormServer, type Handler } from '../test/helpers/formServer.ts';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'scans');
export const FIXTURE_ORIGIN = 'http://forms.test';

interface Source {
  name: string;
  /** Path on the form server. */
  path: string;
  formData: JsonObject;
  formSchema: JsonObject;
  /**
   * Values typed (Playwright `fill`, by CSS selector) into the start page before one more recording,
   * `<name>.typed`: a page holding values as a person left them (e.g. ones its HTML5 constraints reject).
   */
  typed?: Record<string, string>;
}

const PLAIN: Source[] = [
  {
    name: 'forms-registration',
    path: '/forms/registration.html',
    formData: {
      full_name: 'Ada Lovelace',
      email: 'ada@example.org',
      date_of_birth: '1990-12-10',
      country: 'GB',
      consent: true,
    },
    formSchema: {
      type: 'object',
      required: ['full_name', 'email', 'date_of_birth', 'country', 'consent'],
      properties: {},
    },
  },
  {
    name: 'forms-constraint',
    path: '/forms/constraint.html',
    formData: { visit_date: '2026-07-01', telephone: '+44 20 7946 0000', guests: 3 },
    formSchema: { type: 'object', properties: {} },
    typed: { '#vd': '2026-07-01', '#ph': '+44 20 7946 0000', '#guests': '3' },
  },
  {
    name: 'forms-account',
    path: '/forms/account.html',
    formData: { email: 'a@b.org', password: 'pa55-word!' },
    formSchema: { type: 'object', required: ['email', 'password'], properties: {} },
  },
  {
    name: 'forms-ambiguous',
    path: '/forms/ambiguous.html',
    formData: { city: 'Oslo' },
    formSchema: { type: 'object', required: ['city'], properties: {} },
  },
];

const DESIGN_SYSTEMS = ['govuk-wizard', 'nhsuk-radios-conditional', 'uswds-address-combo-box', 'govuk-error-summary'];
const REACT = ['chakra-event-registration', 'react-aria-personal-details', 'carbon-gym-membership'];

function sources(): { sources: Source[]; react: typeof REACT_CORPUS } {
  const out = [...PLAIN];
  for (const form of CORPUS.filter((f) => DESIGN_SYSTEMS.includes(f.name)))
    out.push({
      name: form.name,
      path: form.startPath,
      formData: form.formData as JsonObject,
      formSchema: form.formSchema as JsonObject,
    });
  const react = REACT_CORPUS.filter((f) => REACT.includes(f.name));
  for (const form of react)
    out.push({
      name: form.name,
      path: `/rf/${form.name}/`,
      formData: form.formData as JsonObject,
      formSchema: form.formSchema as JsonObject,
    });
  return { sources: out, react };
}

async function record(page: Page, origin: string, source: Source, label: string): Promise<void> {
  const frames = await scanAll({ page } as Parameters<typeof scanAll>[0]);
  const fixture = {
    source: source.name,
    page: label,
    capturedWith: 'scripts/capture-scans.ts',
    formData: source.formData,
    formSchema: source.formSchema,
    frames: frames.map((f, index) => ({ frame: index, scan: f.scan })),
  };
  const text = JSON.stringify(fixture, null, 1).replaceAll(origin, FIXTURE_ORIGIN);
  writeFileSync(join(OUT, `${source.name}.${label}.json`), `${text}\n`);
  console.log(`${source.name}.${label}: ${frames.reduce((n, f) => n + f.scan.controls.length, 0)} control(s)`);
}

/** Waits until a script-rendered page shows a control or a button (at most ~5 s). */
async function settled(page: Page): Promise<void> {
  for (let i = 0; i < 25; i += 1) {
    const frames = await scanAll({ page } as Parameters<typeof scanAll>[0]);
    if (frames.some((f) => f.scan.controls.length || f.scan.buttons.some((b) => b.visible))) return;
    await page.waitForTimeout(200);
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const all = sources();
  const chosen = all.sources.filter((s) => !only.length || only.includes(s.name));
  const react = all.react.filter((f) => chosen.some((s) => s.name === f.name));
  const handlers: Record<string, Handler> = {
    ...corpusHandlers(),
    ...(react.length ? reactCorpusHandlers(await buildReactCorpus(react)) : {}),
  };
  mkdirSync(OUT, { recursive: true });
  const [browser, server] = await Promise.all([launchTestBrowser(), startFormServer(handlers)]);
  try {
    for (const source of chosen) {
      const context = await browser.newContext();
      const page = await context.newPage();
      // Hermetic: nothing outside the form server (the NHS.UK stylesheet loads fonts from assets.nhs.uk).
      await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort());
      const url = `${server.origin}${source.path}`;
      await page.goto(url, { waitUntil: 'load' });
      await settled(page);
      await record(page, server.origin, source, 'start');
      if (source.typed) {
        for (const [selector, value] of Object.entries(source.typed)) await page.fill(selector, value);
        await record(page, server.origin, source, 'typed');
      }
      let step = 0;
      const ctx = fakeContext({
        page,
        startUrl: url,
        formData: source.formData,
        formSchema: source.formSchema,
        maxTurns: 30,
      });
      const recordStep = ctx.recordStep.bind(ctx);
      ctx.recordStep = async (description) => {
        step += 1;
        await record(page, server.origin, source, `step-${step}`);
        await recordStep(description);
      };
      try {
        await new AutofillAgent({ minKeyDelayMs: 0, maxKeyDelayMs: 0 }).run(ctx);
      } catch (error) {
        console.log(`${source.name}: the filler stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
