// Issue 24: the cached path reads its target and what the operation needs in one call into the document
// the step was stored in (the page's own, or the frame's), then drives the element through its stored
// selector. These cases show that this path has the same effects as the fresh one on design-system
// markup (a coded select option, a USWDS checkbox drawn by its label, a summary-list value, a field's
// value), that a step stored in one document never acts in another, and that steps stored before the
// document was kept still replay. Effects are read from the page itself.
import { describe, expect, it } from 'vitest';
import * as gov from '../fixtures/design-systems/govukMarkup.ts';
import * as us from '../fixtures/design-systems/uswdsMarkup.ts';
import { DEFAULT_WORKSPACE_ID } from '../../src-main/engine/firstStart.ts';
import { html, useActionHarness } from './actionHarness.ts';

const govForm = gov.govukPage(
  'Your details',
  `
${gov.summaryList([
  { key: 'Name', value: 'Sarah Philips', href: '#name' },
  { key: 'Date of birth', value: '5 January 1978', href: '#dob' },
])}
${gov.input({ id: 'given', label: 'First or given name' })}
${gov.select({
  id: 'state',
  label: 'State',
  options: [
    { value: '', text: 'Choose a state' },
    { value: 'TX', text: 'TX - Texas' },
    { value: 'WA', text: 'WA - Washington' },
  ],
  values: {},
})}
${gov.checkboxes({
  name: 'contact',
  legend: 'How would you like to be contacted?',
  items: [
    { value: 'email', text: 'Email' },
    { value: 'sms', text: 'Text message' },
  ],
  values: {},
})}`,
  { service: 'Apply for a licence' },
);

const uswdsForm = us.uswdsPage(
  'Preferences',
  us.checkbox({ name: 'sms', value: 'yes', text: 'Text message', values: {} }),
  { agency: 'Example agency' },
);

/** A page whose Download button is in the page (`where: 'page'`) or only inside its same-origin frame (`'frame'`). */
const framed = (
  where: 'page' | 'frame',
): string => `<!doctype html><html lang="en"><title>Statement</title><h1>Statement</h1>
${where === 'page' ? '<button onclick="document.body.dataset.clicked = \'page\'">Download</button>' : ''}
<iframe src="/replay/frame" title="Statement" style="width:500px;height:200px"></iframe></html>`;
const frameDoc = `<!doctype html><title>Frame</title><dl><dt>Balance</dt><dd>£1,204.50</dd></dl>
<button onclick="parent.document.body.dataset.clicked = 'frame'">Download</button>`;

let framedWhere: 'page' | 'frame' = 'page';

describe('cached replay: one call into the stored document, the same effects as a fresh run (issue 24)', () => {
  const h = useActionHarness({
    '/replay/gov': html(govForm),
    '/replay/uswds': html(uswdsForm),
    '/replay/framed': (req, res) => html(framed(framedWhere))(req, res, null, h.server),
    '/replay/frame': html(frameDoc),
  });
  const open = async (path: string) => {
    await h.page.goto(h.server.url(path));
  };
  const twice = async (path: string, action: string, check: () => Promise<unknown>, expected: unknown) => {
    await open(path);
    expect(await h.run(action)).toMatchObject({ success: true, set_cache: true });
    expect(await check()).toEqual(expected);
    await open(path);
    const replayed = await h.run(action);
    expect(replayed).toMatchObject({ success: true, used_cache: true });
    expect(await check()).toEqual(expected);
    return replayed;
  };

  it("GOV.UK: a coded option, a field, a checkbox and a summary-list value replay with the fresh run's effect", async () => {
    await twice(
      '/replay/gov',
      'choose Texas from the State dropdown',
      () => h.page.locator('#state').inputValue(),
      'TX',
    );
    await twice('/replay/gov', 'type Ada into first name', () => h.page.locator('#given').inputValue(), 'Ada');
    await twice('/replay/gov', 'tick the Text message box', () => h.page.locator('input[value=sms]').isChecked(), true);
    expect(await twice('/replay/gov', 'extract the date of birth', async () => 'read', 'read')).toMatchObject({
      result: '5 January 1978',
    });
    // A field's value, read through the same call that found it.
    await h.page.locator('#given').fill('Grace');
    expect(await h.run('read the first name')).toMatchObject({ success: true, result: 'Grace' });
    expect(await h.run('read the first name')).toMatchObject({ success: true, used_cache: true, result: 'Grace' });
  });

  it('USWDS: a checkbox whose input is drawn by its label is toggled through the label on replay too', async () => {
    await twice(
      '/replay/uswds',
      'click the Text message checkbox',
      () => h.page.locator('input[name=sms]').isChecked(),
      true,
    );
  });

  it('a step stored in the page never acts in a frame, and one stored in a frame replays there', async () => {
    framedWhere = 'page';
    await open('/replay/framed');
    await h.page.frameLocator('iframe').locator('dl').waitFor();
    // Both the page and its frame have a Download button: the fresh run refuses to choose.
    expect(await h.run('click Download', { id: 'download', set_cache: false })).toMatchObject({
      success: false,
      error: expect.stringMatching(/^Ambiguous target: 2 elements/),
    });
    // Stored from the page's own button (the frame's hidden for a moment), the step is the page's.
    await h.page
      .frameLocator('iframe')
      .locator('button')
      .evaluate((b) => {
        (b as HTMLElement).hidden = true;
      });
    expect(await h.run('click Download', { id: 'download' })).toMatchObject({ success: true, set_cache: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('page');
    // Next version: only the frame has a Download button. The page's step does not apply there: resolved afresh.
    framedWhere = 'frame';
    await open('/replay/framed');
    await h.page.frameLocator('iframe').locator('dl').waitFor();
    expect(await h.run('click Download', { id: 'download' })).toMatchObject({
      success: true,
      used_cache: false,
      cache_failed: true,
      set_cache: true,
    });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('frame');
    // Now stored as the frame's: replayed in the frame.
    await open('/replay/framed');
    await h.page.frameLocator('iframe').locator('dl').waitFor();
    expect(await h.run('click Download', { id: 'download' })).toMatchObject({ success: true, used_cache: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('frame');
    expect(await h.run('what is the balance?', { id: 'balance' })).toMatchObject({
      success: true,
      result: '£1,204.50',
      set_cache: true,
    });
    expect(await h.run('what is the balance?', { id: 'balance' })).toMatchObject({
      success: true,
      result: '£1,204.50',
      used_cache: true,
    });
  });

  it('a step stored before the document was kept (no frame in its target) still replays, searching the page and its frames', async () => {
    framedWhere = 'frame';
    await open('/replay/framed');
    await h.page.frameLocator('iframe').locator('dl').waitFor();
    h.store.actionCache.put(
      {
        workspaceId: DEFAULT_WORKSPACE_ID,
        cacheKey: 'id:old-step',
        stepId: 'old-step',
        action: 'click Download',
        page: h.server.url('/replay/framed'),
        recipe: {
          version: 1,
          op: 'click',
          target: { role: 'button', name: 'Download', by: 'role', selector: 'body > button:nth-of-type(1)' },
        },
      },
      true,
    );
    expect(await h.run('click Download', { id: 'old-step' })).toMatchObject({ success: true, used_cache: true });
    expect(await h.page.evaluate(() => document.body.dataset.clicked)).toBe('frame');
  });
});
