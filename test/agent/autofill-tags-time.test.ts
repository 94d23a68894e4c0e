/**
 * Tag inputs, 12-hour times with an AM/PM select, hours/minutes number boxes and comboboxes named by
 * their trigger button (docs/autofill.md), on hand-written pages with no library, each drawn the way
 * the React corpus's components draw them (Blueprint TagInput / TimePicker / Select, Carbon TimePicker):
 * - a tag input whose Enter also submits the form (it does not prevent the default): the tags are made
 *   one by one, read back, and the form is sent once, with both tags — never after the first Enter;
 * - a box hinting "press Enter after each" that makes no tag: the job fails, nothing is sent;
 * - a bare box (no chip, no hint) given a list: tried as a tag input (a tag per value, read back); a
 *   plain text box that makes no tag is asked about (or the job fails) — the list never goes in joined;
 * - "13:30" into a 12-hour box and its AM/PM select: "1:30" (the box's pattern) and PM; a select that
 *   falls back to AM fails the job, nothing sent;
 * - month and year as two unnamed comboboxes, each holding one button named "Month founded" / "Year
 *   founded": one month-year date;
 * - hours and minutes as two number boxes in one row: one time field.
 */
import { AutofillAgent } from '../../src-main/agent/autofill/index.ts';
import type { JsonObject } from '../../src-main/contract/common.ts';
import { type Autofill, autofillTest, describe, expect, html } from './autofillTest.ts';
import { fakeContext } from './fakeContext.ts';

const shell = (title: string, body: string, script = ''): string =>
  `<!doctype html><html lang="en"><head><title>${title}</title>
<style>.chip{display:inline-block;border:1px solid #888;margin:2px;padding:1px 4px}[role=listbox]{border:1px solid #888;width:200px}[role=combobox]{display:inline-block}</style>
</head><body><h1>${title}</h1>${body}<script>${script}</script></body></html>`;

// A tag input like Blueprint's TagInput: Enter with text adds a chip (with a remove button) and clears
// the box — and does not prevent the default, so the browser also submits the form (implicit submission).
// `clicks`: the pointer presses on the box are counted into a hidden field sent with the form; `blurs`: the
// box drops the focus after each tag it makes; `pointerFirst`: the box ignores keys until it has had a pointer press.
const TAGS = (hint: string, makesTags: boolean, { clicks = false, blurs = false, pointerFirst = false } = {}): string =>
  shell(
    'Grant keywords',
    `<form action="/submit/tags" method="post">
  <p><label for="org">Organisation name</label> <input id="org" name="organisation"></p>
  <div class="group">
    <label for="kw">Keywords describing the project</label>
    <div class="box"><div class="values" id="values"><input id="kw"></div></div>
    <div class="hint">${hint}</div>
  </div>
  <div id="hidden"></div>${clicks ? '<input type="hidden" name="box_clicks" id="clicks" value="0">' : ''}
  <button type="submit">Submit application</button>
</form>`,
    `const kw = document.getElementById('kw');
  ${clicks ? "kw.addEventListener('pointerdown', () => { const c = document.getElementById('clicks'); c.value = String(Number(c.value) + 1); });" : ''}
  let pressed = false;
  kw.addEventListener('pointerdown', () => { pressed = true; });
  kw.addEventListener('keydown', (e) => { if (${pointerFirst} && !pressed) { e.preventDefault(); e.stopImmediatePropagation(); } });
  const tags = [];
  function draw() {
    for (const c of document.querySelectorAll('.chip')) c.remove();
    document.getElementById('hidden').innerHTML = '';
    for (const t of tags) {
      const chip = document.createElement('span');
      chip.className = 'chip';
      const text = document.createElement('span');
      text.textContent = t;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.setAttribute('aria-label', 'Remove tag ' + t);
      remove.textContent = '×';
      remove.addEventListener('click', () => { tags.splice(tags.indexOf(t), 1); draw(); });
      chip.append(text, remove);
      kw.before(chip);
      const h = document.createElement('input');
      h.type = 'hidden'; h.name = 'keywords'; h.value = t;
      document.getElementById('hidden').append(h);
    }
  }
  kw.addEventListener('keydown', (e) => {
    if (${makesTags} && e.key === 'Enter' && kw.value.trim()) { tags.push(kw.value.trim()); kw.value = ''; draw(); ${blurs ? 'kw.blur();' : ''} }
  });`,
  );

// A plain text box under the same label, no chip, no hint: Enter (stopped by the guard) and a comma make no tag.
const BARE_TEXT = shell(
  'Grant keywords',
  `<form action="/submit/tags" method="post">
  <p><label for="org">Organisation name</label> <input id="org" name="organisation"></p>
  <p><label for="kw">Keywords describing the project</label> <input id="kw" name="keywords"></p>
  <button type="submit">Submit application</button>
</form>`,
);

const TIME = (sticky: boolean): string =>
  shell(
    'Request time off',
    `<form action="/submit/time" method="post">
  <label for="t">Time you leave on the first day</label>
  <div class="picker">
    <div><input id="t" name="time" placeholder="hh:mm" maxlength="5" pattern="(1[012]|[1-9]):[0-5][0-9](\\s)?"></div>
    <div><select id="ampm" name="period" aria-label="AM or PM"><option value="AM">AM</option><option value="PM">PM</option></select></div>
  </div>
  <button type="submit">Send request</button>
</form>`,
    // A broken picker: its AM/PM select falls back to AM whatever is chosen.
    sticky ? `document.getElementById('ampm').addEventListener('change', (e) => { e.target.value = 'AM'; });` : '',
  );

// Month and year as Blueprint Selects draw them: an unnamed role=combobox around one button named by aria-label.
const FOUNDED = shell(
  'Organisation details',
  `<form action="/submit/founded" method="post">
  <label>When was your organisation founded?</label>
  <div class="content"><div class="row">
    <div role="combobox" aria-haspopup="listbox" aria-expanded="false" aria-controls="list-month"><button type="button" aria-label="Month founded">Choose month</button></div>
    <div role="combobox" aria-haspopup="listbox" aria-expanded="false" aria-controls="list-year"><button type="button" aria-label="Year founded">Choose year</button></div>
  </div></div>
  <input type="hidden" name="month" id="month"><input type="hidden" name="year" id="year">
  <button type="submit">Save</button>
</form>`,
  `const LISTS = { month: ['January', 'February', 'March', 'April', 'May', 'June', 'July'], year: ['2016', '2015', '2014', '2013'] };
  for (const box of document.querySelectorAll('[role=combobox]')) {
    const name = box.getAttribute('aria-controls').slice(5);
    box.querySelector('button').addEventListener('click', () => {
      const old = document.getElementById('list-' + name);
      if (old) { old.remove(); box.setAttribute('aria-expanded', 'false'); return; }
      const list = document.createElement('ul');
      list.id = 'list-' + name;
      list.setAttribute('role', 'listbox');
      for (const item of LISTS[name]) {
        const li = document.createElement('li');
        li.setAttribute('role', 'option');
        li.textContent = item;
        li.addEventListener('click', () => {
          box.querySelector('button').textContent = item;
          document.getElementById(name).value = item;
          list.remove();
          box.setAttribute('aria-expanded', 'false');
        });
        list.append(li);
      }
      document.body.append(list);
      box.setAttribute('aria-expanded', 'true');
    });
  }`,
);

// Hours and minutes as Blueprint's TimePicker draws them: two number boxes in one row under a plain label.
// `clicks`: the pointer presses on the boxes are counted into a hidden field sent with the form;
// `pointerFirst`: each box ignores keys until it has had a pointer press (a box that is only edited once clicked).
const START_FORM = ({ clicks = false, pointerFirst = false } = {}): string =>
  shell(
    'Volunteer availability',
    `<form action="/submit/start" method="post">
  <label>Earliest time you can start</label>
  <div class="picker"><div class="row">
    <input aria-label="hours (24hr clock)" name="hour" type="number" min="0" max="23" value="9"><span>:</span>
    <input aria-label="minutes" name="minute" type="number" min="0" max="59" value="00">
  </div></div>${clicks ? '<input type="hidden" name="box_clicks" id="clicks" value="0">' : ''}
  <button type="submit">Save</button>
</form>`,
    `for (const box of document.querySelectorAll('.row input')) {
    let pressed = false;
    box.addEventListener('pointerdown', () => {
      pressed = true;
      const count = document.getElementById('clicks');
      if (count) count.value = String(Number(count.value) + 1);
    });
    box.addEventListener('keydown', (e) => { if (${pointerFirst} && !pressed) e.preventDefault(); });
  }`,
  );
const START = START_FORM();

// Hour and minute boxes with the AM/PM part as a custom dropdown (a button opening a listbox, drawn the
// way React Aria's and Chakra's Select draw it: the button named by its value and "AM/PM", the list in a
// popover at the end of the page, a hidden input carrying the choice). `sticky`: a broken dropdown that
// keeps showing AM whatever is clicked.
const START12 = (sticky: boolean): string =>
  shell(
    'Shift preferences',
    `<form action="/submit/start12" method="post">
  <span id="start-label">Earliest time you can start</span>
  <div role="group" aria-labelledby="start-label" class="row">
    <input aria-label="Hours" name="hour" type="number" min="1" max="12"><span>:</span>
    <input aria-label="Minutes" name="minute" type="number" min="0" max="59">
    <span id="period-label" hidden>AM/PM</span>
    <button type="button" id="period" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="period-value period-label"><span id="period-value">AM</span> <span aria-hidden="true">▾</span></button>
    <input type="hidden" name="period" value="AM">
  </div>
  <button type="submit">Save preferences</button>
</form>`,
    `const button = document.getElementById('period');
  const hidden = document.querySelector('input[name=period]');
  let list = null;
  button.addEventListener('click', () => {
    if (list) { list.remove(); list = null; button.setAttribute('aria-expanded', 'false'); return; }
    list = document.createElement('ul');
    list.setAttribute('role', 'listbox');
    for (const p of ['AM', 'PM']) {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.textContent = p;
      li.addEventListener('click', () => {
        const chosen = ${sticky} ? 'AM' : p;
        document.getElementById('period-value').textContent = chosen;
        hidden.value = chosen;
        list.remove(); list = null; button.setAttribute('aria-expanded', 'false');
      });
      list.append(li);
    }
    document.body.append(list);
    button.setAttribute('aria-expanded', 'true');
  });`,
  );

const test = autofillTest({
  '/tags/form': html(TAGS('Press Enter after each keyword', true)),
  '/tags/plain': html(TAGS('Press Enter after each keyword', false)),
  '/tags/bare': html(TAGS('', true)),
  '/tags/bare-text': html(BARE_TEXT),
  '/tags/clicks': html(TAGS('Press Enter after each keyword', true, { clicks: true })),
  '/tags/clicks-blur': html(TAGS('Press Enter after each keyword', true, { clicks: true, blurs: true })),
  '/tags/pointer-first': html(TAGS('Press Enter after each keyword', true, { clicks: true, pointerFirst: true })),
  '/time/form': html(TIME(false)),
  '/time/sticky': html(TIME(true)),
  '/founded/form': html(FOUNDED),
  '/start/form': html(START),
  '/start/clicks': html(START_FORM({ clicks: true })),
  '/start/pointer-first': html(START_FORM({ clicks: true, pointerFirst: true })),
  '/start12/form': html(START12(false)),
  '/start12/sticky': html(START12(true)),
});

/** Autofill on `path` with `formData`: the outcome, with the posts to `submitTo`. */
const run = (autofill: Autofill, path: string, submitTo: string, formData: JsonObject, formSchema: JsonObject) =>
  autofill({ path, submitTo, formData, formSchema });

describe('tag inputs, 12-hour times, time boxes and trigger-named comboboxes (no library)', () => {
  const TAG_SCHEMA = {
    type: 'object',
    required: ['organisation_name', 'keywords'],
    properties: {
      organisation_name: { type: 'string', title: 'Organisation name' },
      keywords: { type: 'array', items: { type: 'string' }, title: 'Keywords describing the project' },
    },
  };
  const TAG_DATA = { organisation_name: 'Northside Garden', keywords: ['food growing', 'youth'] };
  /** The tag pages' job: TAG_DATA into the page at `path`, sent to /submit/tags. */
  const runTags = (autofill: Autofill, path: string) =>
    autofill({ path, submitTo: '/submit/tags', formData: TAG_DATA, formSchema: TAG_SCHEMA });

  test('adds each tag with Enter, reads the chips back, and the form goes once with both (Enter never submits it early)', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await runTags(autofill, '/tags/form');
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([
      { organisation: 'Northside Garden', keywords: ['food growing', 'youth'] },
    ]);
    expect(logs).toContain("keywords → 'Keywords describing the project' (tags #kw) = food growing, youth (exact)");
    expect(logs.join('\n')).toMatch(/Enter would have submitted the form \(\d+×\); stopped/);
  });

  test('the first tag goes in with no click (fill focuses the box); a box that kept the focus after a tag is typed into at once; one that dropped it is clicked', async ({
    autofill,
  }) => {
    const kept = await runTags(autofill, '/tags/clicks');
    expect(kept.result, kept.report).toHaveProperty('ok');
    expect(kept.posts.map((p) => p.fields)).toEqual([
      { organisation: 'Northside Garden', keywords: ['food growing', 'youth'], box_clicks: '0' },
    ]);
    const dropped = await runTags(autofill, '/tags/clicks-blur');
    expect(dropped.result, dropped.report).toHaveProperty('ok');
    expect(dropped.posts.map((p) => p.fields)).toEqual([
      { organisation: 'Northside Garden', keywords: ['food growing', 'youth'], box_clicks: '1' },
    ]);
  });

  test('a box that takes keys only after a pointer press makes no tag of the unclicked first value: it is clicked and given it again', async ({
    autofill,
  }) => {
    const { result, posts, report } = await runTags(autofill, '/tags/pointer-first');
    expect(result, report).toHaveProperty('ok');
    // Clicked by the comma's try and by the clearing after it (both type keys), then Enter made the first tag.
    expect(posts.map((p) => p.fields)).toEqual([
      { organisation: 'Northside Garden', keywords: ['food growing', 'youth'], box_clicks: '2' },
    ]);
  });

  test('a box that makes no tag fails the job naming it; nothing is sent', async ({ autofill }) => {
    const { result, posts } = await runTags(autofill, '/tags/plain');
    expect(result).toEqual({
      error: expect.stringContaining("'Keywords describing the project' made no tag of 'food growing'"),
    });
    expect(posts).toEqual([]);
  });

  test('a bare box (no chip, no hint yet) given a list is tried as a tag input: each value made a tag, read back, sent once', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await runTags(autofill, '/tags/bare');
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([
      { organisation: 'Northside Garden', keywords: ['food growing', 'youth'] },
    ]);
    expect(logs).toContain("keywords → 'Keywords describing the project' (text #kw) = food growing, youth (exact)");
    expect(logs).toContain('Keywords describing the project: a tag input (each value made a tag on Enter or a comma)');
    const receipt = (result as { ok: { result: { receipt?: { verified: string[] } } } }).ok.result.receipt;
    expect(receipt?.verified).toContain('keywords');
  });

  test('a bare text box that makes no tag of a list fails saying so, left empty; the list is never typed as one text', async ({
    autofill,
    formPage,
  }) => {
    const { result, posts } = await runTags(autofill, '/tags/bare-text');
    expect(result).toEqual({
      error: expect.stringMatching(
        /'Keywords describing the project' made no tag of 'food growing' on Enter or a comma, so it takes one text, not the list 'food growing', 'youth'/,
      ),
    });
    expect(posts).toEqual([]);
    expect(await formPage.locator('#kw').inputValue()).toBe('');
  });

  test('with a human, a bare text box that makes no tag is asked about; the answer is what goes in', async ({
    formPage,
    forms,
  }) => {
    const since = forms.posts.length;
    const ctx = fakeContext({
      page: formPage,
      startUrl: forms.url('/tags/bare-text'),
      formData: TAG_DATA,
      formSchema: TAG_SCHEMA,
      answers: ['food growing and youth work'],
    });
    await new AutofillAgent().run(ctx);
    expect(ctx.questions.map((q) => q.question)).toEqual([
      expect.stringContaining("'Keywords describing the project' made no tag of 'food growing' on Enter or a comma"),
    ]);
    expect(
      forms.posts
        .slice(since)
        .filter((p) => p.path === '/submit/tags')
        .map((p) => p.fields),
    ).toEqual([{ organisation: 'Northside Garden', keywords: 'food growing and youth work' }]);
  });

  const TIME_SCHEMA = {
    type: 'object',
    required: ['leaving_time'],
    properties: { leaving_time: { type: 'string', title: 'Time you leave on the first day' } },
  };

  test("types '13:30' into a 12-hour box as the box's pattern wants it and chooses PM in its AM/PM select", async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(
      autofill,
      '/time/form',
      '/submit/time',
      { leaving_time: '13:30' },
      TIME_SCHEMA,
    );
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ time: '1:30', period: 'PM' }]);
    expect(logs).toContain("leaving_time → 'Time you leave on the first day' (text name=time) = 1:30 PM (normalised)");
    // The submission check read the two parts together as 13:30.
    expect(logs.join('\n')).toContain('1 value(s) verified');
  });

  test('an AM/PM select that shows AM after PM was chosen fails the job; nothing is sent', async ({ autofill }) => {
    const { result, posts } = await run(
      autofill,
      '/time/sticky',
      '/submit/time',
      { leaving_time: '13:30' },
      TIME_SCHEMA,
    );
    expect(result).toEqual({
      error: expect.stringContaining(
        "'Time you leave on the first day' shows '1:30 AM' after typing 1:30 and choosing PM",
      ),
    });
    expect(posts).toEqual([]);
  });

  test('month and year comboboxes named only by the button inside them are one month-year date', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(
      autofill,
      '/founded/form',
      '/submit/founded',
      { founded: '2014-06' },
      {
        type: 'object',
        required: ['founded'],
        properties: {
          founded: { type: 'string', title: 'When was your organisation founded?', description: 'YYYY-MM' },
        },
      },
    );
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ month: 'June', year: '2014' }]);
    expect(logs).toContain("founded → 'When was your organisation founded?' (dateSplit-aria) = 2014-06 (normalised)");
  });

  test('hours and minutes number boxes in one row are one time field', async ({ autofill }) => {
    const { result, posts, logs } = await run(
      autofill,
      '/start/form',
      '/submit/start',
      { earliest_start: '08:30' },
      {
        type: 'object',
        required: ['earliest_start'],
        properties: { earliest_start: { type: 'string', title: 'Earliest time you can start' } },
      },
    );
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ hour: '08', minute: '30' }]);
    expect(logs).toContain("earliest_start → 'Earliest time you can start' (time-segments) = 08:30 (exact)");
  });

  test('number boxes are focused by a key and typed with no pause first; boxes that take no keys before a click are typed again clicked, with the pause', async ({
    autofill,
    formPage,
  }) => {
    const schema = {
      type: 'object',
      required: ['earliest_start'],
      properties: { earliest_start: { type: 'string', title: 'Earliest time you can start' } },
    };
    // What the filler asks the keyboard to type, and with what pause between a key's down and up.
    const typed: Array<{ keys: string; delay: number }> = [];
    const keyboard = formPage.keyboard;
    const type = keyboard.type.bind(keyboard);
    keyboard.type = (keys, options) => {
      typed.push({ keys, delay: options?.delay ?? 0 });
      return type(keys, options);
    };
    try {
      const quick = await run(autofill, '/start/clicks', '/submit/start', { earliest_start: '08:30' }, schema);
      expect(quick.result, quick.report).toHaveProperty('ok');
      expect(quick.posts.map((p) => p.fields)).toEqual([{ hour: '08', minute: '30', box_clicks: '0' }]);
      expect(typed).toEqual([
        { keys: '08', delay: 0 },
        { keys: '30', delay: 0 },
      ]);
      typed.length = 0;
      // Boxes that ignore keys until clicked still show 9 and 00 after the quick try: clicked and typed again.
      const clicked = await run(autofill, '/start/pointer-first', '/submit/start', { earliest_start: '08:30' }, schema);
      expect(clicked.result, clicked.report).toHaveProperty('ok');
      expect(clicked.posts.map((p) => p.fields)).toEqual([{ hour: '08', minute: '30', box_clicks: '2' }]);
      expect(typed).toEqual([
        { keys: '08', delay: 0 },
        { keys: '30', delay: 0 },
        { keys: '08', delay: 15 },
        { keys: '30', delay: 15 },
      ]);
    } finally {
      keyboard.type = type;
    }
  });

  const START12_SCHEMA = {
    type: 'object',
    required: ['earliest_start'],
    properties: { earliest_start: { type: 'string', title: 'Earliest time you can start' } },
  };

  test('hour and minute boxes with a custom AM/PM dropdown are one time field: 13:30 is 01, 30 and PM', async ({
    autofill,
  }) => {
    const { result, posts, logs } = await run(
      autofill,
      '/start12/form',
      '/submit/start12',
      { earliest_start: '13:30' },
      START12_SCHEMA,
    );
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ hour: '01', minute: '30', period: 'PM' }]);
    expect(logs).toContain("earliest_start → 'Earliest time you can start' (time-segments) = 13:30 (exact)");
  });

  test('an AM/PM dropdown that keeps showing AM after PM was chosen fails the job; nothing is sent', async ({
    autofill,
  }) => {
    const { result, posts } = await run(
      autofill,
      '/start12/sticky',
      '/submit/start12',
      { earliest_start: '13:30' },
      START12_SCHEMA,
    );
    expect(result).toEqual({
      error: expect.stringContaining(
        "'Earliest time you can start' shows '01 30 AM' after typing 13:30 into its parts",
      ),
    });
    expect(posts).toEqual([]);
  });
});
