import { isDeepStrictEqual } from 'node:util';

import type { Page } from 'playwright-core';

import { Ajv2020 } from 'ajv/dist/2020.js';

import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import {
  CORPUS,
  REQUIRED_COMPONENTS,
  corpusHandlers,
  receivedFields,
  type CorpusForm,
} from '../fixtures/design-systems/corpus.ts';
import type { FormPost, FormServer } from '../helpers/formServer.ts';
import { describe, expect, withForms } from '../helpers/fixtures.ts';
import { fakeContext } from './fakeContext.ts';

/** The confirmation each system's flows end on (GOV.UK panel, NHS panel, USWDS success alert). */
const CONFIRMATION = '.govuk-panel--confirmation, .nhsuk-panel, .usa-alert--success';

function describePost(post: FormPost): string {
  return `${post.path} ${JSON.stringify(receivedFields(post))}`;
}

/** What went wrong in an autofill run, for the failure message: error, mismatching fields, posts and the agent's log. */
function diagnosis(
  form: CorpusForm,
  failure: unknown,
  got: Record<string, string | string[]> | undefined,
  posts: FormPost[],
  logs: string[],
): string {
  const lines = [`--- autofill on ${form.name} ---`];
  if (failure)
    lines.push(`failure: ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)}`);
  if (!got) lines.push(`no POST reached ${form.submitPath}`);
  else {
    for (const key of new Set([...Object.keys(form.expected), ...Object.keys(got)])) {
      if (!isDeepStrictEqual(got[key], form.expected[key]))
        lines.push(`field ${key}: expected ${JSON.stringify(form.expected[key])}, got ${JSON.stringify(got[key])}`);
    }
  }
  lines.push('posts:', ...posts.map((p) => `  ${describePost(p)}`), 'logs:', ...logs.map((l) => `  ${l}`));
  return lines.join('\n');
}

const test = withForms(corpusHandlers());

describe('design-system corpus (GOV.UK Frontend, NHS.UK frontend, USWDS)', () => {
  /** Keeps runs hermetic: the NHS.UK stylesheet loads its fonts from assets.nhs.uk. */
  async function offline(page: Page): Promise<void> {
    await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/])/, (route) => route.abort());
  }

  function finalPost(forms: FormServer, form: CorpusForm, since: number): FormPost | undefined {
    return forms.posts
      .slice(since)
      .filter((p) => p.path === form.submitPath)
      .at(-1);
  }

  test('has at least 22 forms over the three systems covering every required component', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(22);
    expect(new Set(CORPUS.map((f) => f.name)).size).toBe(CORPUS.length);
    for (const system of ['govuk', 'nhsuk', 'uswds'] as const) {
      expect(CORPUS.filter((f) => f.system === system).length, system).toBeGreaterThanOrEqual(6);
    }
    const covered = new Set(CORPUS.flatMap((f) => f.components));
    expect(REQUIRED_COMPONENTS.filter((c) => !covered.has(c))).toEqual([]);
    for (const form of CORPUS) {
      // Keys are API names, never the label text: no key may contain a space or an upper-case letter.
      expect(
        Object.keys(form.formData).filter((k) => !/^[a-z][a-z0-9_]*$/.test(k)),
        form.name,
      ).toEqual([]);
      expect(form.startPath.startsWith(`/ds/${form.name}/`), form.name).toBe(true);
      // The job API refuses form_data its portal's schema rejects, so every corpus entry must be valid.
      const validate = new Ajv2020({ strict: false, allErrors: true }).compile(form.formSchema);
      expect(validate(form.formData) ? [] : validate.errors, form.name).toEqual([]);
    }
  });

  // The hand scripts check the bench's comparator, not Portico (autofill below is held to the same `expected`):
  // DS_HAND_SCRIPTS=1 runs them, as `npm run bench -- autofill-design-systems` does; `npm test` leaves them
  // out, like the React corpus's (RF_HAND_SCRIPTS; docs/architecture.md, Test tiers).
  for (const form of process.env.DS_HAND_SCRIPTS === '1' ? CORPUS : []) {
    test(`hand script fills ${form.name}`, async ({ page, forms }) => {
      await offline(page);
      const since = forms.posts.length;
      await form.script(page, forms.origin);
      await page.locator(CONFIRMATION).first().waitFor({ timeout: 30_000 });
      const post = finalPost(forms, form, since);
      expect(post, `no POST reached ${form.submitPath}`).toBeDefined();
      expect(receivedFields(post as FormPost)).toEqual(form.expected);
    }, 30_000);
  }

  for (const form of CORPUS) {
    test(`autofill fills ${form.name}`, async ({ page, forms }) => {
      await offline(page);
      const since = forms.posts.length;
      const ctx = fakeContext({
        page,
        startUrl: forms.url(form.startPath),
        formData: form.formData as JsonObject,
        formSchema: form.formSchema as JsonObject,
        maxTurns: 12,
      });
      let failure: unknown;
      try {
        await new AutofillAgent({ navigationTimeoutMs: 10_000 }).run(ctx);
      } catch (error) {
        failure = error;
      }
      const post = finalPost(forms, form, since);
      const got = post ? receivedFields(post) : undefined;
      const report = diagnosis(form, failure, got, forms.posts.slice(since), ctx.logs);
      if (failure) throw new Error(report, { cause: failure });
      expect(got, report).toEqual(form.expected);
    }, 45_000);
  }
});
