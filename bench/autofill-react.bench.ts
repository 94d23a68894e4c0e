/**
 * Builtin autofill on the React widget corpus (test/fixtures/react-forms: Chakra UI, React Aria Components,
 * PrimeReact, Fluent UI v9, Carbon, Blueprint, Shoelace, Material Web) through the real job engine, against
 * a hand-written Playwright script of each form. Reports the pass rate, wrong values (must be 0: any
 * submission that is not exactly the expected JSON) and the median job time over the script time
 * (target ≤ 1.3). RF_FORMS / RF_LIBRARIES narrow the run. Writes bench/results/autofill-react.json.
 */
import { isDeepStrictEqual } from 'node:util';

import {
  buildReactCorpus,
  reactCorpusHandlers,
  selectedForms,
  submitPath,
} from '../test/fixtures/react-forms/corpus.ts';
import { startFormServer } from '../test/helpers/formServer.ts';
import { runCorpusBench, runMain } from './corpusBench.ts';

runMain(async () => {
  const forms = selectedForms();
  await runCorpusBench({
    title: 'builtin autofill on the React widget corpus vs hand-written Playwright scripts of the same forms',
    resultName: 'autofill-react',
    site: await startFormServer(reactCorpusHandlers(await buildReactCorpus(forms))),
    forms: forms.map((form) => ({
      name: form.name,
      group: form.library,
      startPath: `/rf/${form.name}/`,
      formData: form.formData,
      formSchema: form.formSchema,
      script: form.script,
      check(site, since) {
        const bodies = site.posts
          .slice(since)
          .filter((p) => p.path === submitPath(form))
          .map((p) => p.json);
        const wrong = bodies.find((b) => !isDeepStrictEqual(b, form.expected));
        return {
          verdict: wrong !== undefined ? 'wrong' : bodies.length ? 'ok' : 'missing',
          got: wrong ?? bodies.at(-1),
        };
      },
    })),
  });
});
