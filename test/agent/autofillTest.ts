import type { Page } from 'playwright-core';

import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import type { AgentOutcome } from '../../src-main/agent/agentTypes.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import { withForms } from '../helpers/fixtures.ts';
import type { FormPost, FormServer, Handler } from '../helpers/formServer.ts';
import { fakeContext } from './fakeContext.ts';

export { describe, expect } from 'vitest';

/** A form server route answering one HTML page. */
export const html =
  (body: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

/** One autofill job on a page of the file's form server. */
export interface AutofillRun {
  /** The page to open, a path on the form server. */
  path: string;
  /** The path whose posts the outcome holds; every post made during the run when absent. */
  submitTo?: string;
  formData: JsonObject;
  formSchema?: JsonObject;
  /** The job's wait budget in ms (the engine's default when absent). */
  budgetMs?: number;
}

export interface AutofillOutcome {
  /** What the agent returned, or the message it failed with. */
  result: { ok: AgentOutcome } | { error: string };
  /** The failure message; '' when the job succeeded. */
  failure: string;
  /** The posts to `submitTo` (or all posts) the site received during the run. */
  posts: FormPost[];
  logs: string[];
  /** The failure and the agent's log, one per line: the message for an assertion on the outcome. */
  report: string;
}

/** The `autofill` fixture: runs one job on the test's page. */
export type Autofill = (run: AutofillRun) => Promise<AutofillOutcome>;

/** Runs builtin:autofill (AutofillAgent with a stand-in job context) on `page` and says what it did and what was sent. */
export async function runAutofill(page: Page, forms: FormServer, run: AutofillRun): Promise<AutofillOutcome> {
  const base = fakeContext({
    page,
    startUrl: forms.url(run.path),
    formData: run.formData,
    ...(run.formSchema ? { formSchema: run.formSchema } : {}),
  });
  const budgetMs = run.budgetMs;
  const ctx = budgetMs
    ? { ...base, budget: { ms: () => budgetMs, exhausted: (d: string) => `out of time: ${d}` } }
    : base;
  const since = forms.posts.length;
  const result: AutofillOutcome['result'] = await new AutofillAgent().run(ctx).then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  const failure = 'error' in result ? result.error : '';
  const posts = forms.posts.slice(since).filter((p) => run.submitTo === undefined || p.path === run.submitTo);
  return { result, failure, posts, logs: base.logs, report: [failure, ...base.logs].join('\n') };
}

/**
 * `test` for an autofill browser test file: `forms` (one form server per file, serving `handlers`),
 * `browser` (one Chromium per file), `formPage` (one page per file: each job opens its own URL on it;
 * a fresh context per test cost these files about 40 % more CPU) and `autofill(run)`, which runs the
 * job on that page.
 *
 *   const test = autofillTest({ '/gym/form': html(PAGE) });
 *   test('…', async ({ autofill }) => { const { failure, posts, report } = await autofill({ path: '/gym/form', … }); });
 */
export function autofillTest(handlers: Record<string, Handler>) {
  return withForms(handlers)
    .extend('formPage', { scope: 'file' }, async ({ browser }, { onCleanup }) => {
      const page = await browser.newPage();
      onCleanup(() => page.close());
      return page;
    })
    .extend(
      'autofill',
      async ({ formPage, forms }): Promise<Autofill> =>
        (run) =>
          runAutofill(formPage, forms, run),
    );
}
