/**
 * The React widget corpus (test/fixtures/react-forms): forms built from eight component libraries,
 * each filled by its hand-written Playwright script (the form works and submits exactly `expected`) and
 * by builtin:autofill, which must submit exactly `expected` too. A form listed in KNOWN_FAILING may not
 * be filled yet, but it may never submit a wrong value: wrong values submitted are 0 for every form.
 * RF_FORMS / RF_LIBRARIES narrow the run (comma-separated names). The hand scripts run with
 * RF_HAND_SCRIPTS=1 and in `npm run bench -- autofill-react` (which times them and fails a form whose
 * script fails); `npm test` leaves them out: they check the bench's comparator, not Portico, and
 * autofill's run below is held to the same `expected` (docs/architecture.md, Test tiers).
 */
import { isDeepStrictEqual } from 'node:util';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import { jsonSchemas } from '../../src-main/base/jsonSchema.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import {
  KNOWN_FAILING,
  LIBRARIES,
  UNSTABLE,
  REACT_CORPUS,
  buildReactCorpus,
  reactCorpusHandlers,
  selectedForms,
  submitPath,
  type ReactCorpusForm,
} from '../fixtures/react-forms/corpus.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startFormServer, type FormPost, type FormServer } from '../helpers/formServer.ts';
import { fakeContext } from './fakeContext.ts';

const FORMS = selectedForms();

/** What went wrong in an autofill run: the error, the submissions the site got, and the agent's log. */
function diagnosis(form: ReactCorpusForm, failure: unknown, posts: FormPost[], logs: string[]): string {
  const lines = [`--- autofill on ${form.name} ---`];
  if (failure)
    lines.push(`failure: ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)}`);
  lines.push(`expected: ${JSON.stringify(form.expected)}`);
  lines.push(
    'submissions:',
    ...posts.map((p) => `  ${p.path} ${JSON.stringify(p.json)}`),
    'logs:',
    ...logs.map((l) => `  ${l}`),
  );
  return lines.join('\n');
}

describe('React widget corpus', () => {
  let browser: Browser;
  let closeBrowser: (() => Promise<void>) | undefined;
  let server: FormServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    const built = await buildReactCorpus(FORMS);
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
    // Hermetic: nothing but the test server is reachable (fonts and icons some libraries fetch included).
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort());
    page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
  });

  function submissions(form: ReactCorpusForm, since: number): FormPost[] {
    return (server as FormServer).posts.slice(since).filter((p) => p.path === submitPath(form));
  }

  it('is a corpus of realistic forms: four or more per library present, unique names, valid data, API-style keys', () => {
    expect(new Set(REACT_CORPUS.map((f) => f.name)).size).toBe(REACT_CORPUS.length);
    for (const library of LIBRARIES) {
      const count = REACT_CORPUS.filter((f) => f.library === library).length;
      if (count) expect(count, library).toBeGreaterThanOrEqual(4);
    }
    for (const form of REACT_CORPUS) {
      expect(form.name.startsWith(`${form.library}-`), form.name).toBe(true);
      expect(
        Object.keys(form.formData).filter((k) => !/^[a-z][a-z0-9_]*$/.test(k)),
        form.name,
      ).toEqual([]);
      // The job API refuses form_data its portal's schema rejects (formats included): validated as the API does.
      const validate = jsonSchemas.compile(form.formSchema, 'form_schema');
      expect(validate(form.formData) ? [] : validate.errors, form.name).toEqual([]);
      expect(form.components.length, form.name).toBeGreaterThan(0);
    }
    expect(
      Object.keys({ ...KNOWN_FAILING, ...UNSTABLE }).filter((name) => !REACT_CORPUS.some((f) => f.name === name)),
    ).toEqual([]);
    expect(Object.keys(UNSTABLE).filter((name) => name in KNOWN_FAILING)).toEqual([]);
  });

  for (const form of process.env.RF_HAND_SCRIPTS === '1' ? FORMS : []) {
    it(`hand script fills ${form.name}`, async () => {
      const since = (server as FormServer).posts.length;
      await form.script(page, (server as FormServer).origin);
      await page.getByRole('status').filter({ hasText: 'Your reference number is' }).waitFor({ timeout: 10_000 });
      const posts = submissions(form, since);
      expect(posts.map((p) => p.json)).toEqual([form.expected]);
    }, 60_000);
  }

  for (const form of FORMS) {
    const known = KNOWN_FAILING[form.name];
    const unstable = UNSTABLE[form.name];
    it(`autofill ${known || unstable ? 'submits no wrong value on' : 'fills'} ${form.name}`, async () => {
      const since = (server as FormServer).posts.length;
      const ctx = fakeContext({
        page,
        startUrl: (server as FormServer).url(`/rf/${form.name}/`),
        formData: form.formData as JsonObject,
        formSchema: form.formSchema as JsonObject,
        maxTurns: 20,
      });
      let failure: unknown;
      try {
        await new AutofillAgent({ navigationTimeoutMs: 15_000 }).run(ctx);
      } catch (error) {
        failure = error;
      }
      const posts = submissions(form, since);
      const report = diagnosis(form, failure, posts, ctx.logs);
      // Never a wrong value: every submission that reached the site is exactly the expected one.
      expect(
        posts.filter((p) => !isDeepStrictEqual(p.json, form.expected)).map((p) => p.json),
        report,
      ).toEqual([]);
      if (unstable) return;
      if (known) {
        const filled = !failure && posts.length === 1;
        expect(filled, `${form.name} is filled now: remove it from KNOWN_FAILING (it said: ${known})\n${report}`).toBe(
          false,
        );
        return;
      }
      if (failure) throw new Error(report, { cause: failure });
      expect(posts.length, report).toBe(1);
    }, 90_000);
  }
});
