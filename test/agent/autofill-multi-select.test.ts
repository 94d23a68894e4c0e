/**
 * Multi-select lists (docs/autofill.md, "Multi-select lists"), on a hand-written page with no library:
 * a select-only button opening an `aria-multiselectable` listbox (one option chosen beforehand, to be
 * released), and a text combobox opening a menu of `menuitemcheckbox` items; a list value chooses
 * exactly its options and the form sends them. A list that takes one choice is never given two: the
 * job fails naming it, nothing sent. A long list that draws only some rows is searched through the
 * filter box in its popup. A listbox whose options carry `aria-checked` takes several choices even
 * when it does not say `aria-multiselectable`.
 */
import type { JsonObject } from '../../src-main/contract/common.ts';
import { type Autofill, autofillTest, describe, expect, html } from './autofillTest.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Language course</title>
<style>[role=listbox],[role=menu]{border:1px solid #888;padding:4px;width:220px}[role=option],[role=menuitemcheckbox]{padding:2px}</style></head><body>
<form id="f" action="/submit/multi" method="post">
  <h1>Language course</h1>
  <span id="ll">Languages you want to learn</span>
  <button type="button" id="lang" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="ll lang">French</button>
  <p id="dl">Dietary needs</p>
  <input id="diet" role="combobox" aria-labelledby="dl" aria-expanded="false" autocomplete="off" placeholder="Choose any">
  <span id="kl">Country of residence</span>
  <button type="button" id="country" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="kl country">Choose</button>
  <span id="cl">Certificate colour</span>
  <button type="button" id="colour" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="cl colour">Choose</button>
  <span id="tl">Talks you plan to attend</span>
  <button type="button" id="talks" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="tl talks">Choose</button>
  <div id="hidden"></div>
  <button type="submit">Enrol</button>
</form>
<script>
  const state = { lang: new Set(['fr']), diet: new Set(), colour: new Set(), country: new Set(), talks: new Set() };
  // A long list that draws only its first five rows, with a filter box in its popup.
  const COUNTRIES = ['Albania', 'Algeria', 'Andorra', 'Angola', 'Argentina', 'Armenia', 'Australia', 'Austria', 'Bahamas', 'Belgium', 'Zambia', 'Zimbabwe'];
  const LISTS = {
    lang: { role: 'listbox', item: 'option', multi: true, options: [['fr', 'French'], ['de', 'German'], ['es', 'Spanish']] },
    diet: { role: 'menu', item: 'menuitemcheckbox', multi: true, options: [['vg', 'Vegan'], ['nf', 'Nut-free'], ['gf', 'Gluten-free']] },
    colour: { role: 'listbox', item: 'option', multi: false, options: [['red', 'Red'], ['blue', 'Blue']] },
    // A list of checkbox-like options that never says aria-multiselectable: its options carry aria-checked.
    talks: { role: 'listbox', item: 'option', multi: true, checkable: true, options: [['key', 'Keynote'], ['pan', 'Panel'], ['wks', 'Workshop']] },
    country: { role: 'listbox', item: 'option', multi: false, filter: '', options: COUNTRIES.map((c) => [c.slice(0, 3).toUpperCase(), c]) },
  };
  let open = null;
  function close() { if (open) { open.el.remove(); document.getElementById(open.name).setAttribute('aria-expanded', 'false'); open = null; } }
  function render(name) {
    const spec = LISTS[name];
    const trigger = document.getElementById(name);
    close();
    const list = document.createElement('div');
    list.id = name + '-list';
    list.setAttribute('role', spec.role);
    if (spec.role === 'listbox' && spec.multi && !spec.checkable) list.setAttribute('aria-multiselectable', 'true');
    const shown = spec.filter === undefined ? spec.options : spec.options.filter(([, l]) => l.toLowerCase().includes(spec.filter.toLowerCase())).slice(0, 5);
    for (const [value, label] of shown) {
      const o = document.createElement('div');
      o.setAttribute('role', spec.item);
      o.textContent = label;
      const on = () => state[name].has(value);
      o.setAttribute(spec.item === 'option' ? 'aria-selected' : 'aria-checked', String(on()));
      if (spec.checkable) o.setAttribute('aria-checked', String(on()));
      o.addEventListener('mousedown', (e) => e.preventDefault());
      o.addEventListener('click', () => {
        if (!spec.multi) state[name].clear();
        if (on()) state[name].delete(value); else state[name].add(value);
        sync();
        if (!spec.multi) { close(); return; }
        o.setAttribute(spec.item === 'option' ? 'aria-selected' : 'aria-checked', String(on()));
        if (spec.checkable) o.setAttribute('aria-checked', String(on()));
      });
      list.append(o);
    }
    let popup = list;
    if (spec.filter !== undefined) {
      popup = document.createElement('div');
      const box = document.createElement('input');
      box.value = spec.filter;
      box.setAttribute('aria-label', 'Filter');
      box.addEventListener('input', () => { spec.filter = box.value; render(name); document.querySelector('#' + name + '-pop input').focus(); });
      popup.id = name + '-pop';
      popup.append(box, list);
    }
    trigger.after(popup);
    trigger.setAttribute('aria-controls', list.id);
    trigger.setAttribute('aria-expanded', 'true');
    open = { name, el: popup };
  }
  function sync() {
    const hidden = document.getElementById('hidden');
    hidden.innerHTML = '';
    for (const name of Object.keys(state)) for (const v of state[name]) {
      const i = document.createElement('input'); i.type = 'hidden'; i.name = name; i.value = v; hidden.append(i);
    }
    for (const name of ['lang', 'colour', 'country', 'talks']) {
      const labels = LISTS[name].options.filter(([v]) => state[name].has(v)).map(([, l]) => l);
      document.getElementById(name).textContent = labels.join(', ') || 'Choose';
    }
  }
  for (const name of Object.keys(LISTS)) document.getElementById(name).addEventListener('click', () => (open && open.name === name ? close() : render(name)));
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); });
  sync();
</script></body></html>`;

const test = autofillTest({ '/multi/form': html(PAGE) });

/** The enrolment form filled with `formData`: the outcome, with the posts to /submit/multi. */
const run = (autofill: Autofill, formData: JsonObject) =>
  autofill({
    path: '/multi/form',
    submitTo: '/submit/multi',
    formData,
    formSchema: {
      type: 'object',
      properties: {
        languages: { type: 'array', items: { type: 'string' }, title: 'Languages you want to learn' },
        dietary_needs: { type: 'array', items: { type: 'string' }, title: 'Dietary needs' },
        certificate_colour: { type: 'array', items: { type: 'string' }, title: 'Certificate colour' },
        country_of_residence: { type: 'string', title: 'Country of residence' },
        talks: { type: 'array', items: { type: 'string' }, title: 'Talks you plan to attend' },
      },
    },
  });

describe('multi-select lists in a page (no library)', () => {
  test('chooses exactly the listed options (releasing one chosen before) in a multiselectable listbox and a menu of checkable items', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(autofill, {
      languages: ['German', 'Spanish'],
      dietary_needs: ['Vegan', 'Nut-free'],
    });
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ lang: ['de', 'es'], diet: ['vg', 'nf'] }]);
    expect(logs.join('\n')).toContain(
      "languages → 'Languages you want to learn' (select-aria #lang) = German, Spanish (exact)",
    );
  });

  test('a listbox whose options carry aria-checked takes several choices, though it never says aria-multiselectable', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(autofill, { talks: ['Keynote', 'Workshop'] });
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ lang: 'fr', talks: ['key', 'wks'] }]);
  });

  test('a value naming no option chooses nothing: the job fails naming it, nothing is sent', async ({ autofill }) => {
    const { result, posts } = await run(autofill, { languages: ['German', 'Klingon'] });
    expect(result).toEqual({
      error: expect.stringContaining("'Klingon' isn't one of the options for 'Languages you want to learn"),
    });
    expect(posts).toEqual([]);
  });

  test('a list that takes one choice is never given two: the job fails, nothing is sent', async ({ autofill }) => {
    const { result, posts } = await run(autofill, { certificate_colour: ['Red', 'Blue'] });
    expect(result).toEqual({ error: expect.stringContaining('takes one choice; form_data gives 2 (Red, Blue)') });
    expect(posts).toEqual([]);
  });

  test('a long list drawing only some rows is searched through its filter box, and only a match as written counts there', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(autofill, { country_of_residence: 'Zambia' });
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ lang: 'fr', country: 'ZAM' }]);
    expect(logs).toContain("Country of residence: typing 'Zambia' into its list's filter box");
    const unknown = await run(autofill, { country_of_residence: 'Narnia' });
    expect(unknown.result).toEqual({
      error: expect.stringContaining("'Narnia' isn't one of the options for 'Country of residence"),
    });
    expect(unknown.posts).toEqual([]);
  });
});
