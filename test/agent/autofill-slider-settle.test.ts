/**
 * Sliders whose app state follows them late (docs/autofill.md, Sliders), on a hand-written page: a
 * controlled `role=slider` drawn the way a React component library draws one — the widget keeps its
 * own value (aria-valuenow), tells the app in the frame after each change (an effect), and takes the
 * app's value back a frame later whenever the app's value changed (a prop sync). A key pressed before
 * the app has caught up is undone a moment later (and the two may then chase each other), so a filler
 * that presses keys back to back and reads at once claims a value the form never sends. Keys are pressed one at a time, the page let settle after each, and the value
 * must hold before it is claimed: the form sends exactly the value given.
 */
import { autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Join the gym</title>
<style>#s{display:block;width:300px;height:16px;background:#ddd}</style></head><body>
<main id="main"><h1>Join the gym</h1>
<form id="f" novalidate>
  <span id="vl">How many times a week do you plan to visit?</span>
  <div id="s" role="slider" tabindex="0" aria-labelledby="vl" aria-valuemin="0" aria-valuemax="10" aria-valuenow="0"></div>
  <button type="submit">Join now</button>
</form></main>
<script>
  let shown = 0; // the widget's own value
  let app = 0; // the app's state, which the form sends
  let lastProp = 0; // the app value the widget last took back
  const s = document.getElementById('s');
  const draw = () => s.setAttribute('aria-valuenow', String(shown));
  // The widget tells the app in the frame after it changed (an effect after the render)...
  const tell = (v) => requestAnimationFrame(() => { app = v; requestAnimationFrame(takeBack); });
  // ...and takes the app's value back a frame later when the app re-renders with a new one (a prop sync).
  const takeBack = () => {
    if (app === lastProp) return;
    lastProp = app;
    if (shown !== app) { shown = app; draw(); tell(shown); }
  };
  s.addEventListener('keydown', (e) => {
    const next = { ArrowRight: shown + 1, ArrowUp: shown + 1, ArrowLeft: shown - 1, ArrowDown: shown - 1, Home: 0, End: 10 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    shown = Math.max(0, Math.min(10, next));
    draw();
    tell(shown);
  });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/gym', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ visits_per_week: app }) });
    document.getElementById('main').innerHTML = '<h1>Welcome</h1><p role="status">Thank you, your membership has been received.</p>';
  });
</script></body></html>`;

// A range input (its step known) that moves itself once it is focused (to a value of its own: a "suggested"
// setting): the filler starts from the value the page scan read (8), and the keys planned from there (three
// ArrowLeft towards 5) land it back on 8. The plan is made again from what it then reads, so it still
// reaches 5, and no reading is mistaken for "the keys do not move it".
const JUMPING = `<!doctype html><html lang="en"><head><title>Book a class</title></head><body>
<main id="main"><h1>Book a class</h1>
<form id="f" novalidate>
  <label for="r">How many sessions would you like?</label>
  <input id="r" name="sessions" type="range" min="0" max="20" step="1" value="8">
  <button type="submit">Book</button>
</form></main>
<script>
  const r = document.getElementById('r');
  r.addEventListener('focus', () => {
    r.value = '11';
    r.dispatchEvent(new Event('input', { bubbles: true }));
  }, { once: true });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/class', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessions: Number(r.value) }) });
    document.getElementById('main').innerHTML = '<h1>Booked</h1><p role="status">Thank you, your booking has been received.</p>';
  });
</script></body></html>`;

// A `role=slider` with no step the filler can read (learnt from one press) that moves itself one notch in the
// frame after it is focused (a widget that "wakes up" to its default): the filler's start read must come after
// the focus and after that move, or the press's move and the focus's move are taken together for one step.
const WAKING = `<!doctype html><html lang="en"><head><title>Rate the talk</title>
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
  const set = (n) => { v = Math.max(0, Math.min(10, n)); s.setAttribute('aria-valuenow', String(v)); };
  s.addEventListener('focus', () => requestAnimationFrame(() => set(v + 1)), { once: true });
  s.addEventListener('keydown', (e) => {
    const next = { ArrowRight: v + 1, ArrowLeft: v - 1, Home: 0, End: 10 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    set(next);
  });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/rating', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rating: v }) });
    document.getElementById('main').innerHTML = '<h1>Thanks</h1><p role="status">Thank you, your rating has been received.</p>';
  });
</script></body></html>`;

const test = autofillTest({ '/gym/form': html(PAGE), '/class/form': html(JUMPING), '/rating/form': html(WAKING) });

describe('a slider whose app state follows it late (no library)', () => {
  test('presses one key at a time, lets the app catch up, and claims the value only once it holds', async ({
    autofill,
  }) => {
    const { failure, posts, report } = await autofill({
      path: '/gym/form',
      submitTo: '/submit/gym',
      formData: { visits_per_week: 6 },
      formSchema: {
        type: 'object',
        properties: {
          visits_per_week: { type: 'integer', title: 'How many times a week do you plan to visit?' },
        },
      },
    });
    expect(failure, report).toBe('');
    expect(
      posts.map((p) => p.json),
      report,
    ).toEqual([{ visits_per_week: 6 }]);
  });

  test('starts from the scanned value when the step is known, and plans again from what a slider that moved then reads', async ({
    autofill,
  }) => {
    const { failure, posts, report } = await autofill({
      path: '/class/form',
      submitTo: '/submit/class',
      formData: { sessions: 5 },
      formSchema: {
        type: 'object',
        properties: { sessions: { type: 'integer', title: 'How many sessions would you like?' } },
      },
    });
    expect(failure, report).toBe('');
    expect(
      posts.map((p) => p.json),
      report,
    ).toEqual([{ sessions: 5 }]);
  });

  test('focuses a slider whose step it learns in the start read itself, and reads it once the focus has moved it', async ({
    autofill,
    formPage,
  }) => {
    // No page call of its own focuses a slider (each press focuses it first, and the start read of a slider whose
    // step is learnt focuses it in its own call): a focus call is one more round trip per slider.
    const locatorProto = Object.getPrototypeOf(formPage.locator('body')) as { focus: (...args: unknown[]) => unknown };
    const focus = locatorProto.focus;
    let focusCalls = 0;
    locatorProto.focus = function (this: unknown, ...args: unknown[]) {
      focusCalls += 1;
      return focus.apply(this, args);
    };
    const run = async (path: string, submitTo: string, formData: Record<string, number>, title: string) =>
      autofill({
        path,
        submitTo,
        formData,
        formSchema: {
          type: 'object',
          properties: { [Object.keys(formData)[0] as string]: { type: 'integer', title } },
        },
      });
    try {
      const rating = await run('/rating/form', '/submit/rating', { rating: 7 }, 'How would you rate the talk?');
      expect(rating.failure, rating.report).toBe('');
      expect(
        rating.posts.map((p) => p.json),
        rating.report,
      ).toEqual([{ rating: 7 }]);
      const sessions = await run('/class/form', '/submit/class', { sessions: 5 }, 'How many sessions would you like?');
      expect(sessions.failure, sessions.report).toBe('');
      expect(
        sessions.posts.map((p) => p.json),
        sessions.report,
      ).toEqual([{ sessions: 5 }]);
    } finally {
      locatorProto.focus = focus;
    }
    expect(focusCalls).toBe(0);
  });
});
