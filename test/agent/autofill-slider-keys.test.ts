/**
 * An `<input type=range>` (its min/max/step read by the scan) gets its planned keys pressed back to back and one
 * settle after the last (docs/autofill.md, Sliders): a settle of two frames after each key was most of a
 * slider's time. A `role=slider` still gets one key at a time. The guards stay: a slider that loses keys pressed that fast ends the round short of
 * the goal and is then moved one key at a time, and the value reached must still hold before it is claimed (a
 * slider the app moves back 30 ms later is caught, moved again, and the form sends exactly the value given).
 */
import type { Frame, Locator } from 'playwright-core';

import { autofillTest, describe, expect, html } from './autofillTest.ts';

const page = (
  title: string,
  script: string,
): string => `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<main id="main"><h1>${title}</h1>
<form id="f" novalidate>
  <label for="r">How many sessions would you like?</label>
  <input id="r" name="sessions" type="range" min="0" max="20" step="1" value="0">
  <button type="submit">Book</button>
</form></main>
<script>
  const r = document.getElementById('r');
  const extra = {};
  ${script}
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/class', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessions: Number(r.value), ...extra }) });
    document.getElementById('main').innerHTML = '<h1>Booked</h1><p role="status">Thank you, your booking has been received.</p>';
  });
</script></body></html>`;

// A plain range input.
const PLAIN = page('Book a class', '');

// An app that is busy for two frames after each change and drops a key pressed meanwhile (its handler
// prevents the input's own move): keys pressed back to back move it one step. It drops the second key it
// gets in any case (on a loaded machine the presses may come more than two frames apart).
const LOSING = page(
  'Book a class',
  `let busy = false;
  extra.dropped = 0;
  let keys = 0;
  r.addEventListener('keydown', (e) => { keys += 1; if (busy || keys === 2) { e.preventDefault(); extra.dropped += 1; } });
  r.addEventListener('input', () => { busy = true; requestAnimationFrame(() => requestAnimationFrame(() => { busy = false; })); });`,
);

// An app that takes the value back a step 30 ms after the slider first reaches 6 (a late correction: a timer, not
// a frame): the value reached does not hold, and a filler that claimed it at once would send 5.
const SWINGING = page(
  'Book a class',
  `extra.swung = false;
  r.addEventListener('input', () => {
    if (r.value !== '6' || extra.swung) return;
    setTimeout(() => { extra.swung = true; r.value = '5'; r.dispatchEvent(new Event('input', { bubbles: true })); }, 30);
  });`,
);

// A `role=slider` (no step: learnt from the first key): its keys still go one at a time, a settle after each.
// Carbon's (carbon-gym-membership) keeps its own value and the app's in step by effects; keys pressed back to
// back set the two chasing each other for good.
const ARIA = `<!doctype html><html lang="en"><head><title>Rate the talk</title>
<style>#s{display:block;width:300px;height:16px;background:#ddd}</style></head><body>
<main id="main"><h1>Rate the talk</h1>
<form id="f" novalidate>
  <span id="rl">How would you rate the talk?</span>
  <div id="s" role="slider" tabindex="0" aria-labelledby="rl" aria-valuemin="0" aria-valuemax="10" aria-valuenow="0"></div>
  <button type="submit">Send rating</button>
</form></main>
<script>
  const s = document.getElementById('s');
  let v = 0;
  s.addEventListener('keydown', (e) => {
    const next = { ArrowRight: v + 1, ArrowLeft: v - 1, Home: 0, End: 10 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    v = Math.max(0, Math.min(10, next));
    s.setAttribute('aria-valuenow', String(v));
  });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/rating', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rating: v }) });
    document.getElementById('main').innerHTML = '<h1>Thanks</h1><p role="status">Thank you, your rating has been received.</p>';
  });
</script></body></html>`;

const test = autofillTest({
  '/aria/form': html(ARIA),
  '/plain/form': html(PLAIN),
  '/losing/form': html(LOSING),
  '/swinging/form': html(SWINGING),
});

const SCHEMA = {
  type: 'object',
  properties: { sessions: { type: 'integer', title: 'How many sessions would you like?' } },
};

/** Runs `run` and says what the filler sent the slider, in order: a key press, or a settle (a page call waiting for still frames). */
async function sliderCalls(formPage: import('playwright-core').Page, run: () => Promise<void>): Promise<string[]> {
  const calls: string[] = [];
  const locatorProto = Object.getPrototypeOf(formPage.locator('body')) as Locator;
  const frameProto = Object.getPrototypeOf(formPage.mainFrame()) as Frame;
  const press = locatorProto.press;
  const evaluate = frameProto.evaluate;
  locatorProto.press = function (this: Locator, key: string, ...rest: unknown[]) {
    calls.push(key);
    return (press as (...a: unknown[]) => Promise<void>).apply(this, [key, ...rest]);
  } as Locator['press'];
  frameProto.evaluate = function (this: Frame, fn: unknown, arg?: unknown) {
    if (arg && typeof arg === 'object' && 'frames' in arg && 'maxMs' in arg) calls.push('settle');
    return (evaluate as (...a: unknown[]) => Promise<unknown>).apply(this, [fn, arg]);
  } as Frame['evaluate'];
  try {
    await run();
  } finally {
    locatorProto.press = press;
    frameProto.evaluate = evaluate;
  }
  return calls.filter((c) => c === 'settle' || c.startsWith('Arrow') || c === 'Home' || c === 'End');
}

describe('a slider whose step is known', () => {
  test('presses the planned keys back to back and settles once, after the last', async ({ autofill, formPage }) => {
    const calls = await sliderCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/plain/form',
        submitTo: '/submit/class',
        formData: { sessions: 6 },
        formSchema: SCHEMA,
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ sessions: 6 }]);
    });
    expect(calls).toEqual([
      'ArrowRight',
      'ArrowRight',
      'ArrowRight',
      'ArrowRight',
      'ArrowRight',
      'ArrowRight',
      'settle',
    ]);
  });

  test('presses a role=slider one key at a time, a settle after each', async ({ autofill, formPage }) => {
    const calls = await sliderCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/aria/form',
        submitTo: '/submit/rating',
        formData: { rating: 7 },
        formSchema: {
          type: 'object',
          properties: { rating: { type: 'integer', title: 'How would you rate the talk?' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ rating: 7 }]);
    });
    // The start read, the key that learns the step, then End and three ArrowLeft from 1 (fewer presses than six ArrowRight).
    expect(calls).toEqual([
      'settle',
      'ArrowRight',
      'settle',
      'End',
      'settle',
      'ArrowLeft',
      'settle',
      'ArrowLeft',
      'settle',
      'ArrowLeft',
      'settle',
    ]);
  });

  test('moves a slider that lost keys pressed back to back one key at a time', async ({ autofill }) => {
    const { failure, posts, report } = await autofill({
      path: '/losing/form',
      submitTo: '/submit/class',
      formData: { sessions: 6 },
      formSchema: SCHEMA,
    });
    expect(failure, report).toBe('');
    const sent = posts.map((p) => p.json as { sessions: number; dropped: number });
    expect(
      sent.map((p) => p.sessions),
      report,
    ).toEqual([6]);
    // The page did drop keys (else this test shows nothing): the rounds after the first made up for them.
    expect(sent[0]?.dropped, report).toBeGreaterThan(0);
  });

  test('still waits for the value reached to hold: a slider the app takes back 30 ms later is moved again', async ({
    autofill,
  }) => {
    const { failure, posts, report } = await autofill({
      path: '/swinging/form',
      submitTo: '/submit/class',
      formData: { sessions: 6 },
      formSchema: SCHEMA,
    });
    expect(failure, report).toBe('');
    expect(
      posts.map((p) => p.json),
      report,
    ).toEqual([{ sessions: 6, swung: true }]);
  });
});
