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

const test = autofillTest({ '/gym/form': html(PAGE), '/class/form': html(JUMPING) });

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
});
