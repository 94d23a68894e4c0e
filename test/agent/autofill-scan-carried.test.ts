/**
 * The page scan a `next` click's settle makes as it answers (navigation.ts `clickAndSettle` with `scan`,
 * injected/index.ts `scanPageText` given clickSettled's arguments): the next step is read from it, not scanned again in a call of its own,
 * when nothing was done or waited for after it. A step whose "Next" sends a request the submission watch checks is
 * scanned again after that request is answered, as before.
 */
import { scanPageText } from '../../src-main/agent/injected/index.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import type { Page } from 'playwright-core';
import { autofillTest, describe, expect, html } from './autofillTest.ts';

/** A two-step form drawn by script; with `?draft`, "Next" also posts the first step (answered 400 ms later) as it draws the second. */
const PAGE = `<!doctype html><html lang="en"><head><title>Join the choir</title></head><body>
<main id="main"></main>
<script>
  const main = document.getElementById('main');
  const draft = location.search.includes('draft');
  let name = '';
  function stepOne() {
    main.innerHTML = '<h1>About you</h1><form id="one"><label for="name">Full name</label><input id="name" name="name">' +
      '<button type="button" id="next">Next</button></form>';
    document.getElementById('next').addEventListener('click', async () => {
      name = document.getElementById('name').value;
      if (draft) fetch('/submit/draft', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
      stepTwo();
    });
  }
  function stepTwo() {
    main.innerHTML = '<h1>How to reach you</h1><form id="two"><label for="email">Email address</label><input id="email" name="email" type="email">' +
      '<button type="submit">Submit</button></form>';
    document.getElementById('two').addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = { name, email: document.getElementById('email').value };
      await fetch('/submit/choir', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      main.innerHTML = '<h1>Thank you</h1><p role="status">Your application has been received.</p>';
    });
  }
  stepOne();
</script></body></html>`;

const SCHEMA = {
  type: 'object',
  required: ['full_name', 'email'],
  properties: { full_name: { type: 'string', title: 'Full name' }, email: { type: 'string', format: 'email' } },
};

const test = autofillTest({
  '/choir/form': html(PAGE),
  // Answered after the second step is drawn: the click's settle waits for it, and its scan comes after the answer.
  '/submit/draft': (_req, res) => setTimeout(() => res.writeHead(204).end(), 400),
});

/** Counts the page scans of a job by the function sent (the page's main frame: this page has no other). */
function countScans(page: Page): { scans: () => number; carried: () => number; restore: () => void } {
  const frame = page.mainFrame();
  const evaluate = frame.evaluate.bind(frame);
  let scans = 0;
  let carried = 0;
  frame.evaluate = ((fn: unknown, arg?: unknown) => {
    // A scan call of its own has no argument; a click's settle that scans as it answers passes clickSettled's.
    if (fn === scanPageText) {
      if (arg === undefined) scans += 1;
      else carried += 1;
    }
    return evaluate(fn as never, arg as never);
  }) as typeof frame.evaluate;
  return { scans: () => scans, carried: () => carried, restore: () => (frame.evaluate = evaluate) };
}

describe('the scan a next click settles with', () => {
  test('is the next step read: no scan call of its own after "Next"', async ({ autofill, formPage }) => {
    const count = countScans(formPage);
    let outcome: Awaited<ReturnType<typeof autofill>>;
    try {
      outcome = await autofill({
        path: '/choir/form',
        submitTo: '/submit/choir',
        formData: { full_name: 'Nia Okafor', email: 'nia@example.org' },
        formSchema: SCHEMA as JsonObject,
      });
    } finally {
      count.restore();
    }
    const { failure, posts, report } = outcome;
    expect(failure, report).toBe('');
    expect(posts.map((p) => p.json)).toEqual([{ name: 'Nia Okafor', email: 'nia@example.org' }]);
    // Step one (the turn's scan, the reveal pass's after the fill), "Next" settling with its scan (step two's read),
    // step two's reveal pass, the page after the submit. A scan call after "Next" would make it 5.
    expect(count.carried()).toBe(1);
    expect(count.scans()).toBe(4);
  });

  test('a "Next" that posts what it holds: step two is scanned again after that request is answered', async ({
    autofill,
    formPage,
  }) => {
    const count = countScans(formPage);
    let outcome: Awaited<ReturnType<typeof autofill>>;
    try {
      outcome = await autofill({
        path: '/choir/form?draft',
        formData: { full_name: 'Nia Okafor', email: 'nia@example.org' },
        formSchema: SCHEMA as JsonObject,
      });
    } finally {
      count.restore();
    }
    const { failure, posts, report } = outcome;
    expect(failure, report).toBe('');
    expect(posts.map((p) => [p.path, p.json])).toEqual([
      ['/submit/draft', { name: 'Nia Okafor' }],
      ['/submit/choir', { name: 'Nia Okafor', email: 'nia@example.org' }],
    ]);
    // The watch checked the draft's request: the settle's scan (after its answer) is not used, step two is scanned
    // on its own (4 if it were used).
    expect(count.carried()).toBe(1);
    expect(count.scans()).toBe(5);
  });
});
