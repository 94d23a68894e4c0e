/**
 * A select-only combobox whose focusable trigger is visually hidden under its drawn box (PrimeReact's
 * CascadeSelect and Dropdown: an input clipped to 1px): the filler tries the keyboard first (ArrowDown on the
 * focused trigger, the APG way), then clicks where the box is drawn. A key the page answered with no change at
 * all opened nothing: the click follows at once, not after the list's whole wait (1.5 s a job in the React
 * corpus bench). A key the page did answer (here `aria-busy` at once, its list drawn 600 ms later) is waited
 * for as before: the list is chosen from, with no click to meet it late. Times are the page's own clock.
 */
import { autofillTest, describe, expect, html } from './autofillTest.ts';

const page = (keyboard: boolean): string => `<!doctype html><html lang="en"><head><title>Relocation</title>
<style>
  .box{position:relative;display:inline-block;width:220px;height:28px;border:1px solid #888}
  .hidden-accessible{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);margin:-1px;border:0;padding:0}
  [role=listbox]{border:1px solid #888;padding:4px;width:220px}[role=option]{padding:2px}
</style></head><body>
<form id="f" action="/submit/move" method="post">
  <h1>Relocation request</h1>
  <span id="ol">Destination office</span>
  <div class="box" id="box"><span class="hidden-accessible"><input id="office" readonly role="combobox"
    aria-haspopup="listbox" aria-expanded="false" aria-labelledby="ol"></span><span id="shown">Choose an office</span></div>
  <input type="hidden" name="office" id="office-value">
  <button type="submit">Send request</button>
</form>
<script>
  const OFFICES = [['lis', 'Lisbon'], ['ber', 'Berlin'], ['osl', 'Oslo']];
  const input = document.getElementById('office');
  window.times = {};
  let list = null;
  function close() { if (list) { list.remove(); list = null; input.setAttribute('aria-expanded', 'false'); } }
  function open() {
    if (list) return;
    input.removeAttribute('aria-busy');
    list = document.createElement('div');
    list.id = 'office-list';
    list.setAttribute('role', 'listbox');
    for (const [value, label] of OFFICES) {
      const o = document.createElement('div');
      o.setAttribute('role', 'option');
      o.setAttribute('aria-selected', 'false');
      o.textContent = label;
      o.addEventListener('click', () => {
        document.getElementById('office-value').value = value;
        document.getElementById('shown').textContent = label;
        close();
      });
      list.append(o);
    }
    document.getElementById('box').after(list);
    input.setAttribute('aria-controls', list.id);
    input.setAttribute('aria-expanded', 'true');
  }
  input.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown') return;
    window.times.key ??= performance.now();
    ${keyboard ? "e.preventDefault(); input.setAttribute('aria-busy', 'true'); setTimeout(open, 600);" : '// this widget opens from the pointer only'}
  });
  document.getElementById('box').addEventListener('pointerdown', () => { window.times.pointer ??= performance.now(); });
  document.getElementById('box').addEventListener('click', () => (list ? close() : open()));
  document.getElementById('f').addEventListener('submit', () => {
    document.getElementById('f').insertAdjacentHTML('beforeend', '<input type="hidden" name="times" value="' + JSON.stringify(window.times).replace(/"/g, '&quot;') + '">');
  });
</script></body></html>`;

const test = autofillTest({ '/move/pointer': html(page(false)), '/move/keyboard': html(page(true)) });

const SCHEMA = { type: 'object', properties: { destination_office: { type: 'string', title: 'Destination office' } } };

describe('a select whose trigger is visually hidden under its drawn box', () => {
  test('a key the page did not answer at all is followed by the click at once, not after the list wait', async ({
    autofill,
  }) => {
    const { result, posts, report } = await autofill({
      path: '/move/pointer',
      submitTo: '/submit/move',
      formData: { destination_office: 'Berlin' },
      formSchema: SCHEMA,
    });
    expect(result, report).toHaveProperty('ok');
    expect(posts).toHaveLength(1);
    const fields = posts[0]?.fields as Record<string, string>;
    expect(fields.office).toBe('ber');
    const times = JSON.parse(fields.times ?? '{}') as { key?: number; pointer?: number };
    expect(times.key).toBeTypeOf('number');
    // The list's wait after a key was 1.5 s; a key that changed nothing is given 300 ms (page clock).
    expect((times.pointer ?? 0) - (times.key ?? 0)).toBeLessThan(1200);
  });

  test('a key the page answered is waited for: its late list is chosen from, with no click', async ({ autofill }) => {
    const { result, posts, report } = await autofill({
      path: '/move/keyboard',
      submitTo: '/submit/move',
      formData: { destination_office: 'Oslo' },
      formSchema: SCHEMA,
    });
    expect(result, report).toHaveProperty('ok');
    const fields = posts[0]?.fields as Record<string, string>;
    expect(fields.office).toBe('osl');
    expect(JSON.parse(fields.times ?? '{}')).not.toHaveProperty('pointer');
  });
});
