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

const test = autofillTest({ '/gym/form': html(PAGE) });

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
});
