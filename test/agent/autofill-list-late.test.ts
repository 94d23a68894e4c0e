/**
 * A list that opens late because its page is busy (a loaded machine: the page answers the filler's reads
 * between long tasks but draws few frames): the filler waits for the list while the page has drawn fewer
 * than a second of frames since the press, not a fixed 1.5 s after which it pressed ArrowDown and, 1 s
 * later, failed "did not open its list of options" (carbon-leave-request in the React corpus bench, at
 * load). The page's own work is the delay (a chain of long tasks started by the click), not a sleep in
 * the test. A list that never opens still fails, after the press's wait and the ArrowDown's.
 */
import { type Autofill, autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Leave</title>
<style>[role=listbox]{border:1px solid #888;padding:4px;width:220px}[role=option]{padding:2px}</style></head><body>
<form id="f" action="/submit/leave" method="post">
  <h1>Request time off</h1>
  <span id="kl">Type of leave</span>
  <button type="button" id="kind" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="kl kind">Choose a type</button>
  <input type="hidden" name="kind" id="kind-value">
  <span id="nl">Parking permit</span>
  <button type="button" id="never" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="nl never">Choose</button>
  <button type="submit">Send request</button>
</form>
<script>
  const KINDS = [['annual', 'Annual leave'], ['sick', 'Sick leave'], ['unpaid', 'Unpaid leave']];
  // How long the page is busy after a press before it draws the list: a chain of long tasks (a heavy
  // re-render on a loaded machine), between which it still answers the filler's reads.
  const BUSY_MS = Number(new URLSearchParams(location.search).get('busy') || '0');
  const trigger = document.getElementById('kind');
  let list = null;
  let pending = false;
  window.opened = [];
  function close() { if (list) { list.remove(); list = null; trigger.setAttribute('aria-expanded', 'false'); } }
  function draw() {
    pending = false;
    list = document.createElement('div');
    list.id = 'kind-list';
    list.setAttribute('role', 'listbox');
    for (const [value, label] of KINDS) {
      const o = document.createElement('div');
      o.setAttribute('role', 'option');
      o.setAttribute('aria-selected', 'false');
      o.textContent = label;
      o.addEventListener('click', () => { document.getElementById('kind-value').value = value; trigger.textContent = label; close(); });
      list.append(o);
    }
    trigger.after(list);
    trigger.setAttribute('aria-controls', list.id);
    trigger.setAttribute('aria-expanded', 'true');
  }
  function open() {
    if (list || pending) return;
    pending = true;
    const until = performance.now() + BUSY_MS;
    window.opened.push(Math.round(performance.now()));
    const step = () => {
      const end = Math.min(until, performance.now() + 300);
      while (performance.now() < end) {}
      if (performance.now() < until) setTimeout(step, 0); else draw();
    };
    setTimeout(step, 0);
  }
  // A click toggles the list (a second click while it opens cancels nothing: it is already coming);
  // ArrowDown opens it, as a select-only combobox does.
  trigger.addEventListener('click', () => (list ? close() : open()));
  trigger.addEventListener('keydown', (e) => { if (e.key === 'ArrowDown') { e.preventDefault(); open(); } });
</script></body></html>`;

const test = autofillTest({ '/leave/form': html(PAGE) });

const SCHEMA = {
  type: 'object',
  properties: {
    type_of_leave: { type: 'string', title: 'Type of leave' },
    parking_permit: { type: 'string', title: 'Parking permit' },
  },
};

const run = (autofill: Autofill, busyMs: number, formData: Record<string, string>) =>
  autofill({ path: `/leave/form?busy=${busyMs}`, submitTo: '/submit/leave', formData, formSchema: SCHEMA });

describe('a list whose page is too busy to draw it at once', () => {
  test('is waited for while the page draws few frames, then chosen (no ArrowDown meeting it late)', async ({
    autofill,
  }) => {
    const { result, posts, report } = await run(autofill, 8000, { type_of_leave: 'Sick leave' });
    expect(result, report).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ kind: 'sick' }]);
  });

  test('a list that never opens still fails, naming it, and nothing is sent', async ({ autofill }) => {
    const started = Date.now();
    const { result, posts } = await run(autofill, 0, { type_of_leave: 'Sick leave', parking_permit: 'Yes' });
    expect(result).toEqual({
      error: expect.stringContaining("'Parking permit' did not open its list of options"),
    });
    expect(posts).toEqual([]);
    // A page that draws its frames is not waited for past the press's wait and the ArrowDown's.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
