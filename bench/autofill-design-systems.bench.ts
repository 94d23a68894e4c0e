/**
 * Builtin autofill on the design-system corpus (GOV.UK Frontend, NHS.UK frontend, USWDS forms in
 * test/fixtures/design-systems) through the real job engine, against a hand-written Playwright script
 * of each form. Reports the pass rate (the job completes and the site receives exactly the expected
 * fields), wrong values, and the job time over the script time per form; target (issue 9): median ratio ≤ 1.3.
 * Writes bench/results/autofill-design-systems.json.
 */
import { isDeepStrictEqual } from 'node:util';

import { CORPUS, corpusHandlers, receivedFields } from '../test/fixtures/design-systems/corpus.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
import { runCorpusBench, runMain } from './corpusBench.ts';

/** Field sets equal regardless of key order. */
function sameFields(a: Record<string, string | string[]>, b: Record<string, string | string[]>): boolean {
  return isDeepStrictEqual(Object.fromEntries(Object.entries(a).sort()), Object.fromEntries(Object.entries(b).sort()));
}

runMain(async () => {
  const only = process.env.BENCH_FORMS?.split(',');
  await runCorpusBench({
    title: 'builtin autofill on the design-system corpus vs hand-written Playwright scripts of the same forms',
    resultName: 'autofill-design-systems',
    site: await startFormServer(corpusHandlers()),
    forms: CORPUS.filter((f) => !only || only.includes(f.name)).map((form) => ({
      name: form.name,
      group: form.system,
      startPath: form.startPath,
      formData: form.formData,
      formSchema: form.formSchema,
      script: form.script,
      check(site, since) {
        const post = site.posts
          .slice(since)
          .filter((p) => p.path === form.submitPath)
          .at(-1);
        const got = post ? receivedFields(post) : undefined;
        return { verdict: !got ? 'missing' : sameFields(got, form.expected) ? 'ok' : 'wrong', got };
      },
    })),
  });
});
