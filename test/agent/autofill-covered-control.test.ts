/**
 * A control something else is drawn over when it is to be clicked (fillBase.ts `pointerReaches`):
 * - a panel still closing over it (as Material's select menu fades out over the field below, the corpus's
 *   material-web forms): the hit test is made again in the page about every frame, and the control is clicked
 *   once it is on top — no Playwright trial click (which retries 20 then 100 then 500 ms apart and waits two
 *   frames each try, then the click waits them again);
 * - a cover that never goes: the trial click still decides, and the control is clicked by its label (as
 *   before), never through the cover.
 */
import type { Locator } from 'playwright-core';

import { autofillTest, describe, expect, html } from './autofillTest.ts';

// A text box whose blur draws a panel over the checkbox below for `closeMs` (0: for good); the page says
// whether the checkbox was clicked while the panel was drawn, and whether the panel had been drawn when the checkbox was clicked.
const page = (closeMs: number): string => `<!doctype html><html lang="en"><head><title>Join the library</title>
<style>
  #row { position: relative; padding: 8px 0; }
  #panel { position: absolute; left: 0; top: 0; width: 60px; height: 40px; background: rgba(255,255,255,0.01); }
</style></head><body>
<main id="main"><h1>Join the library</h1>
<form id="f" novalidate>
  <p><label for="email">Email</label> <input id="email" name="email" type="email"></p>
  <div id="row"><input id="events" type="checkbox" name="events"> <span style="margin-left:80px"><label for="events">Email me about library events</label></span></div>
  <button type="submit">Apply for a card</button>
</form></main>
<script>
  const row = document.getElementById('row');
  const box = document.getElementById('events');
  const seen = { drawnBeforeClick: false, clickedUnderPanel: false };
  let drawn = false;
  let panel = null;
  document.getElementById('email').addEventListener('blur', () => {
    if (panel) return;
    panel = document.createElement('div');
    panel.id = 'panel';
    row.append(panel);
    drawn = true;
    ${closeMs ? `setTimeout(() => { panel.remove(); }, ${closeMs});` : ''}
  });
  box.addEventListener('pointerdown', () => { if (panel && panel.isConnected) seen.clickedUnderPanel = true; });
  box.addEventListener('click', () => { seen.drawnBeforeClick = drawn; });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = { email: document.getElementById('email').value, events: box.checked, ...seen };
    await fetch('/submit/card', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    document.getElementById('main').innerHTML = '<h1>Thank you</h1><p role="status">Your application has been received.</p>';
  });
</script></body></html>`;

const test = autofillTest({
  '/closing/form': html(page(400)),
  '/covered/form': html(page(0)),
});

const SCHEMA = {
  type: 'object',
  properties: {
    email: { type: 'string', title: 'Email', format: 'email' },
    events: { type: 'boolean', title: 'Email me about library events' },
  },
};

/** Runs `run` and counts Playwright's trial clicks (`click({ trial: true })`) made meanwhile. */
async function trialClicks(formPage: import('playwright-core').Page, run: () => Promise<void>): Promise<number> {
  let trials = 0;
  const proto = Object.getPrototypeOf(formPage.locator('body')) as Locator;
  const click = proto.click;
  proto.click = function (this: Locator, options?: Parameters<Locator['click']>[0]) {
    if (options?.trial) trials += 1;
    return click.call(this, options);
  } as Locator['click'];
  try {
    await run();
  } finally {
    proto.click = click;
  }
  return trials;
}

describe('a control covered when it is to be clicked', () => {
  test('a panel still closing over it: clicked once it is on top, with no trial click', async ({
    autofill,
    formPage,
  }) => {
    const trials = await trialClicks(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/closing/form',
        submitTo: '/submit/card',
        formData: { email: 'aisha.rahman@example.co.uk', events: true },
        formSchema: SCHEMA,
      });
      expect(failure, report).toBe('');
      // The panel was drawn before the checkbox's click (the email is filled first, and left), and the click
      // waited for it to go: the checkbox itself took it.
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([
        { email: 'aisha.rahman@example.co.uk', events: true, drawnBeforeClick: true, clickedUnderPanel: false },
      ]);
    });
    expect(trials).toBe(0);
  });

  test('a cover that stays: the trial click decides, and the checkbox is clicked by its label', async ({
    autofill,
    formPage,
  }) => {
    const trials = await trialClicks(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/covered/form',
        submitTo: '/submit/card',
        formData: { email: 'aisha.rahman@example.co.uk', events: true },
        formSchema: SCHEMA,
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([
        { email: 'aisha.rahman@example.co.uk', events: true, drawnBeforeClick: true, clickedUnderPanel: false },
      ]);
    });
    expect(trials).toBe(1);
  });
});
