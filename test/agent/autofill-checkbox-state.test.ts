/**
 * Checkboxes and radios drawn by their label (the input visually hidden inside it, as React Aria's
 * Checkbox and Radio draw them) whose state commits a moment after the click — what a loaded machine
 * does to a React re-render (issue 20 item 3; react-aria-personal-details once went red in CI with
 * "did not change its state"). The filler clicks the label once and waits for the control's own
 * `checked` state against the job's wait budget; it never clicks again or forces a state. A checkbox
 * that never takes the click fails the job saying so, and nothing is sent.
 */
import { type Autofill, autofillTest, describe, expect, html } from './autofillTest.ts';

// Each click's native toggle is undone at once (the widget controls its input) and the state the click
// asked for is committed 400 ms later, as a busy main thread commits a re-render late. `takes` false:
// the widget never takes a click (its state stays as it is).
const FORM = (takes: boolean): string => `<!doctype html><html lang="en"><head><title>Your details</title>
<style>.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);margin:-1px;padding:0;border:0;white-space:nowrap}
label{display:inline-flex;gap:6px;align-items:center;padding:4px}.box{width:14px;height:14px;border:1px solid #333}</style>
</head><body><h1>Your details</h1>
<form action="/submit/details" method="post">
  <fieldset><legend>Preferred contact method</legend>
    <label><input class="sr" type="radio" name="contact" value="email"><span class="box"></span>Email</label>
    <label><input class="sr" type="radio" name="contact" value="phone"><span class="box"></span>Phone</label>
  </fieldset>
  <label><input class="sr" type="checkbox" name="terms" value="yes"><span class="box"></span>I agree to the terms and conditions</label>
  <button type="submit">Save details</button>
</form>
<script>
  for (const input of document.querySelectorAll('input.sr')) {
    input.addEventListener('click', (event) => {
      // During the click the input already shows the state the click asks for; the default is then undone.
      const want = input.checked;
      event.preventDefault();
      if (${takes}) setTimeout(() => { input.checked = want; input.nextElementSibling.style.background = want ? '#333' : ''; }, 400);
    });
  }
</script></body></html>`;

// An ARIA switch (role=switch, aria-checked) that commits each activation `lateMs` late, toggling: a filler
// that clicked, gave up waiting and pressed Space would see it on once and send it off a moment later.
// `presses` counts activations as they happen.
const SWITCH_FORM = (
  lateMs: number,
): string => `<!doctype html><html lang="en"><head><title>Alerts</title></head><body><h1>Alerts</h1>
<form action="/submit/alerts" method="post">
  <span id="alerts-label">Send me text alerts</span>
  <div id="switch" role="switch" tabindex="0" aria-checked="false" aria-labelledby="alerts-label"
    style="display:inline-block;width:40px;height:20px;border:1px solid #333"></div>
  <input type="hidden" name="alerts" id="alerts" value="off">
  <input type="hidden" name="presses" id="presses" value="0">
  <button type="submit">Save alerts</button>
</form>
<script>
  const sw = document.getElementById('switch');
  const presses = document.getElementById('presses');
  const activate = () => {
    presses.value = String(Number(presses.value) + 1);
    setTimeout(() => {
      const on = sw.getAttribute('aria-checked') !== 'true';
      sw.setAttribute('aria-checked', String(on));
      document.getElementById('alerts').value = on ? 'on' : 'off';
    }, ${lateMs});
  };
  sw.addEventListener('click', activate);
  sw.addEventListener('keydown', (event) => { if (event.key === ' ') { event.preventDefault(); activate(); } });
</script></body></html>`;

const SCHEMA = {
  type: 'object',
  required: ['contact_method', 'accept_terms'],
  properties: {
    contact_method: { type: 'string', title: 'Preferred contact method', enum: ['Email', 'Phone'] },
    accept_terms: { type: 'boolean', title: 'I agree to the terms and conditions' },
  },
};

const test = autofillTest({
  '/late/form': html(FORM(true)),
  '/never/form': html(FORM(false)),
  '/switch/form': html(SWITCH_FORM(700)),
  '/slow-switch/form': html(SWITCH_FORM(3500)),
});

describe('checkboxes and radios drawn by their label wait for their own state', () => {
  const DETAILS = {
    formData: { contact_method: 'Phone', accept_terms: true },
    formSchema: SCHEMA,
    submitTo: '/submit/details',
  };
  const ALERTS = {
    formData: { text_alerts: true },
    formSchema: {
      type: 'object',
      required: ['text_alerts'],
      properties: { text_alerts: { type: 'boolean', title: 'Send me text alerts' } },
    },
    submitTo: '/submit/alerts',
  };
  /** Autofill on `path` with the details form's data and schema (and `budgetMs`, a wait budget); the outcome. */
  const run = (autofill: Autofill, path: string, budgetMs?: number) =>
    autofill({ path, ...DETAILS, ...(budgetMs ? { budgetMs } : {}) });
  const runSwitch = (autofill: Autofill, path: string) => autofill({ path, ...ALERTS });

  test('a label click whose state commits late is waited for: one click each, both values sent', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(autofill, '/late/form');
    expect(result, `${JSON.stringify(result)}\n${logs.join('\n')}`).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ contact: 'phone', terms: 'yes' }]);
  }, 60_000);

  test('a checkbox that never takes the click fails the job saying so; no state is forced, nothing is sent', async ({
    autofill,
  }) => {
    const { result, posts } = await run(autofill, '/never/form', 2000);
    expect(result).toEqual({ error: expect.stringMatching(/stayed unchecked after clicking its label/) });
    expect(posts).toEqual([]);
  }, 60_000);

  test('an ARIA switch whose state commits late gets one activation, is waited for, and is sent on', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await runSwitch(autofill, '/switch/form');
    expect(result, `${JSON.stringify(result)}\n${logs.join('\n')}`).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ alerts: 'on', presses: '1' }]);
  }, 60_000);

  test('an ARIA switch that answers the click after the Space flips back: the job fails saying so, nothing is sent', async ({
    autofill,
  }) => {
    const { result, posts } = await runSwitch(autofill, '/slow-switch/form');
    expect(result).toEqual({ error: expect.stringMatching(/changed again after a click and then Space/) });
    expect(posts).toEqual([]);
  }, 60_000);
});
