/**
 * Reads of a control that do not depend on each other go to the page together (docs/performance.md, "Session 15:
 * carbfl"): a select-only list's reads before anything is pressed are one round trip (the popup kind, the hidden
 * value, the lists already open marked, the hit test, aria-expanded; were two), a combobox's suggestions are read
 * by their texts alone (no count of the options first), and a checkbox drawn by its label has its label counted
 * with its first state read. Every read still happens, and the form still sends exactly what was given.
 */
import type { Frame, Locator, Page } from 'playwright-core';

import {
  hasFocus,
  listTakesMany,
  markListsBefore,
  optionsCheckable,
  readOptions,
  twoFrames,
} from '../../src-main/agent/injected/index.ts';
import { autofillTest, describe, expect, html } from './autofillTest.ts';

// A checkbox whose input is moved off-screen and drawn by its label (USWDS, Carbon).
const LABEL_DRAWN = `<!doctype html><html lang="en"><head><title>Newsletter</title>
<style>.box{position:absolute;left:-9999px}.box+label{display:inline-block;padding:4px 4px 4px 24px}</style></head><body>
<main id="main"><h1>Newsletter</h1>
<form id="f" novalidate>
  <p><input class="box" type="checkbox" id="news" name="news"><label for="news">Send me the monthly newsletter</label></p>
  <button type="submit">Save</button>
</form></main>
<script>
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/news', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ news: document.getElementById('news').checked }) });
    document.getElementById('main').innerHTML = '<h1>Saved</h1><p role="status">Thank you, your choice has been saved.</p>';
  });
</script></body></html>`;

// A button opening an aria-multiselectable listbox that stays open while options are chosen.
const MULTI = `<!doctype html><html lang="en"><head><title>Workshop topics</title>
<style>[role=listbox]{border:1px solid #888;padding:4px;width:220px}[role=option]{padding:2px}</style></head><body>
<main id="main"><h1>Workshop topics</h1>
<form id="f" novalidate>
  <span id="tl">Topics you want covered</span>
  <button type="button" id="topics" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="tl topics">Choose</button>
  <button type="submit">Book</button>
</form></main>
<script>
  const TOPICS = [['test', 'Testing'], ['perf', 'Performance'], ['a11y', 'Accessibility']];
  const chosen = new Set();
  const trigger = document.getElementById('topics');
  let list = null;
  const close = () => { if (list) { list.remove(); list = null; } trigger.setAttribute('aria-expanded', 'false'); };
  trigger.addEventListener('click', () => {
    if (list) return close();
    list = document.createElement('div');
    list.id = 'topics-list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-multiselectable', 'true');
    for (const [value, label] of TOPICS) {
      const o = document.createElement('div');
      o.setAttribute('role', 'option');
      o.textContent = label;
      o.dataset.value = value;
      o.setAttribute('aria-selected', String(chosen.has(value)));
      o.addEventListener('click', () => {
        if (chosen.has(value)) chosen.delete(value); else chosen.add(value);
        o.setAttribute('aria-selected', String(chosen.has(value)));
        trigger.textContent = TOPICS.filter(([v]) => chosen.has(v)).map(([, l]) => l).join(', ') || 'Choose';
      });
      list.append(o);
    }
    trigger.after(list);
    trigger.setAttribute('aria-controls', list.id);
    trigger.setAttribute('aria-expanded', 'true');
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') close(); });
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/topics', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ topics: TOPICS.filter(([v]) => chosen.has(v)).map(([v]) => v) }) });
    document.getElementById('main').innerHTML = '<h1>Booked</h1><p role="status">Thank you, your booking has been received.</p>';
  });
</script></body></html>`;

// A text date field whose calendar (a role=grid popup) opens on focus and closes on a press outside it.
const CALENDAR = `<!doctype html><html lang="en"><head><title>Leave</title>
<style>#cal{position:absolute;left:10px;top:160px;width:260px;height:120px;background:#eee;border:1px solid #888}</style></head><body>
<form id="f" action="/submit/leave" method="post">
  <h1>Request time off</h1>
  <label for="start">First day of leave</label> <input id="start" name="start" placeholder="mm/dd/yyyy">
  <button type="submit">Send request</button>
</form>
<div id="cal" role="grid" aria-label="Choose a date" hidden></div>
<script>
  const cal = document.getElementById('cal');
  const start = document.getElementById('start');
  start.addEventListener('focus', () => { cal.hidden = false; });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') cal.hidden = true; });
  document.addEventListener('mousedown', (e) => {
    if (!cal.hidden && e.target !== start && !cal.contains(e.target)) cal.hidden = true;
  }, true);
</script></body></html>`;

// A plain checkbox, drawn by itself beside its label.
const PLAIN_BOX = `<!doctype html><html lang="en"><head><title>Consent</title></head><body>
<main id="main"><h1>Consent</h1>
<form id="f" novalidate>
  <p><input type="checkbox" id="ok" name="ok"> <label for="ok">I consent to a background check</label></p>
  <button type="submit">Send</button>
</form></main>
<script>
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/consent', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: document.getElementById('ok').checked }) });
    document.getElementById('main').innerHTML = '<h1>Sent</h1><p role="status">Thank you, your consent has been received.</p>';
  });
</script></body></html>`;

// A switch that takes no pointer click (visually hidden under its drawn box and text): Space on it toggles it.
const SWITCH = `<!doctype html><html lang="en"><head><title>Timetable</title>
<style>.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}.box{display:inline-block;width:40px;height:20px;background:#ccc}</style></head><body>
<main id="main"><h1>Timetable</h1>
<form id="f" novalidate>
  <p><button type="button" role="switch" id="sw" class="vh" aria-checked="false" aria-labelledby="swl"></button>
  <span class="box" aria-hidden="true"></span> <span id="swl">Send me the weekly class timetable</span></p>
  <button type="submit">Save</button>
</form></main>
<script>
  const sw = document.getElementById('sw');
  sw.addEventListener('click', () => sw.setAttribute('aria-checked', String(sw.getAttribute('aria-checked') !== 'true')));
  document.getElementById('f').addEventListener('submit', async (e) => {
    e.preventDefault();
    await fetch('/submit/timetable', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timetable: sw.getAttribute('aria-checked') === 'true' }) });
    document.getElementById('main').innerHTML = '<h1>Saved</h1><p role="status">Thank you, your choice has been saved.</p>';
  });
</script></body></html>`;

const test = autofillTest({
  '/label-drawn/form': html(LABEL_DRAWN),
  '/multi/form': html(MULTI),
  '/calendar/form': html(CALENDAR),
  '/switch/form': html(SWITCH),
  '/plain-box/form': html(PLAIN_BOX),
});

/** Whether every call of `calls` was sent before any of them answered (one round trip). */
function together(calls: Call[]): boolean {
  const firstAnswer = Math.min(...calls.map((c) => c.end));
  return calls.every((c) => c.start < firstAnswer);
}

/** One page call of the filler: what it was, and its start and end as places in one sequence of events. */
interface Call {
  what: string;
  start: number;
  end: number;
}

/** Runs `run` and returns the page calls made meanwhile (frame evaluates, the locator reads and clicks), in start order. */
async function pageCalls(page: Page, run: () => Promise<void>): Promise<Call[]> {
  const calls: Call[] = [];
  let seq = 0;
  const frameProto = Object.getPrototypeOf(page.mainFrame()) as Frame;
  const locatorProto = Object.getPrototypeOf(page.locator('body')) as Locator;
  const restore: (() => void)[] = [];
  const wrap = (proto: object, method: string, name: (self: unknown, args: unknown[]) => string): void => {
    const target = proto as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const original = target[method] as (...a: unknown[]) => Promise<unknown>;
    target[method] = function (this: unknown, ...args: unknown[]) {
      const call: Call = { what: name(this, args), start: seq++, end: -1 };
      calls.push(call);
      return original.apply(this, args).finally(() => {
        call.end = seq++;
      });
    };
    restore.push(() => {
      target[method] = original;
    });
  };
  wrap(frameProto, 'evaluate', (_self, [fn, arg]) =>
    fn === markListsBefore
      ? 'markListsBefore'
      : arg && typeof arg === 'object' && 'read' in arg
        ? `controlRead:${String((arg as { read: string }).read)}`
        : 'evaluate',
  );
  const named = new Map<unknown, string>([
    [listTakesMany, 'listTakesMany'],
    [optionsCheckable, 'optionsCheckable'],
    [readOptions, 'readOptions'],
    [twoFrames, 'twoFrames'],
    [hasFocus, 'hasFocus'],
  ]);
  for (const method of [
    'getAttribute',
    'inputValue',
    'evaluate',
    'evaluateAll',
    'count',
    'click',
    'isVisible',
    'allInnerTexts',
    'focus',
    'press',
  ])
    wrap(
      locatorProto,
      method,
      (self, args) =>
        `${method}${named.has(args[0]) ? `:${named.get(args[0])}` : ''} ${(self as { _selector?: string })._selector ?? String(self)}${method === 'getAttribute' || method === 'press' ? ` ${String(args[0])}` : ''}`,
    );
  try {
    await run();
  } finally {
    for (const undo of restore) undo();
  }
  return calls;
}

describe('reads sent together', () => {
  test('a select-only list: every read before it is pressed is one round trip', async ({
    autofill,
    formPage,
    forms,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, report } = await autofill({
        path: '/forms/aria-selects.html',
        formData: {
          full_name: 'Hedy Lamarr',
          department: 'engineering',
          start_month: 'march',
          preferred_language: 'spanish',
        },
      });
      expect(failure, report).toBe('');
    });
    expect(forms.postsTo('/submit/aria-selects').at(-1)?.fields).toEqual({
      full_name: 'Hedy Lamarr',
      department: 'eng',
      start_month: 'March',
      language: 'es',
    });
    // The two select-only lists (MUI's, Headless UI's): from the first read before the list is opened to the
    // click that opens it, every read has started before any of them answered.
    const lists = calls.filter((c) => c.what === 'markListsBefore');
    expect(lists).toHaveLength(2);
    for (const list of lists) {
      const opening = calls.find((c) => c.start > list.start && c.what.startsWith('click '));
      expect(opening, 'the click that opens the list').toBeDefined();
      // The calls sent after the last answer that came before markListsBefore was sent, up to that click.
      const prevEnd = Math.max(-1, ...calls.filter((c) => c.end < list.start).map((c) => c.end));
      const reads = calls.filter((c) => c.start > prevEnd && c.start < (opening as Call).start);
      const firstAnswer = Math.min(...reads.map((c) => c.end));
      const names = reads.map((c) => c.what);
      expect(names.some((n) => n.includes('aria-haspopup'))).toBe(true);
      expect(names.some((n) => n.includes('aria-expanded'))).toBe(true);
      expect(names).toContain('controlRead:pointerTarget');
      expect(names).toContain('controlRead:findListbox');
      expect(
        reads.filter((c) => c.start > firstAnswer).map((c) => c.what),
        'reads sent after one before them answered',
      ).toEqual([]);
    }
  });

  test('a combobox: its suggestions are read by their texts, with no count of the options first', async ({
    autofill,
    formPage,
    forms,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, report } = await autofill({
        path: '/forms/aria-selects.html',
        formData: {
          full_name: 'Hedy Lamarr',
          department: 'design',
          start_month: 'april',
          preferred_language: 'portuguese (brazil)',
        },
      });
      expect(failure, report).toBe('');
    });
    expect(forms.postsTo('/submit/aria-selects').at(-1)?.fields).toEqual({
      full_name: 'Hedy Lamarr',
      department: 'design',
      start_month: 'April',
      language: 'pt-BR',
    });
    const optionReads = calls.filter((c) => c.what.includes('[role="option"]:visible'));
    expect(optionReads.map((c) => c.what.split(' ')[0])).toContain('allInnerTexts');
    expect(optionReads.filter((c) => c.what.startsWith('count ')).map((c) => c.what)).toEqual([]);
  });

  test('a checkbox drawn by its label: the label is counted with the first state read', async ({
    autofill,
    formPage,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/label-drawn/form',
        submitTo: '/submit/news',
        formData: { news: true },
        formSchema: {
          type: 'object',
          properties: { news: { type: 'boolean', title: 'Send me the monthly newsletter' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ news: true }]);
    });
    const first = calls.find((c) => c.what === 'controlRead:controlState');
    const count = calls.find((c) => c.what.startsWith('count ') && c.what.includes('label[for="news"]'));
    expect(first, 'the first state read').toBeDefined();
    expect(count, 'the label count').toBeDefined();
    // Sent before the state read answered (it used to follow it).
    expect((count as Call).start).toBeLessThan((first as Call).end);
    // The state is still read after the click, and the label is what was clicked.
    const click = calls.find((c) => c.what.startsWith('click ') && c.what.includes('label[for="news"]'));
    expect(click).toBeDefined();
    expect(calls.some((c) => c.what === 'controlRead:controlState' && c.start > (click as Call).end)).toBe(true);
  });

  test("a multi-select list: the open list is read at once, and each option's place and label before its click", async ({
    autofill,
    formPage,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/multi/form',
        submitTo: '/submit/topics',
        formData: { topics: ['Testing', 'Accessibility'] },
        formSchema: {
          type: 'object',
          properties: { topics: { type: 'array', items: { type: 'string' }, title: 'Topics you want covered' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ topics: ['test', 'a11y'] }]);
    });
    const takesMany = calls.find((c) => c.what.startsWith('evaluate:listTakesMany '));
    const options = calls.find((c) => c.what.startsWith('evaluateAll:readOptions ') && !c.what.includes('>> nth='));
    expect(takesMany, 'the list says whether it takes many').toBeDefined();
    expect(options, 'the options read').toBeDefined();
    expect(together([takesMany as Call, options as Call])).toBe(true);
    // Before each option's click: whether it is there and what it says, sent together.
    const clicks = calls.filter((c) => c.what.startsWith('click ') && c.what.includes('data-portico-option'));
    expect(clicks).toHaveLength(2);
    for (const click of clicks) {
      const before = calls.filter((c) => c.end < click.start);
      const there = before.filter((c) => c.what.startsWith('isVisible ') && c.what.includes('>> nth=')).at(-1);
      const label = before
        .filter((c) => c.what.startsWith('evaluateAll:readOptions ') && c.what.includes('>> nth='))
        .at(-1);
      expect(there, 'the option is looked at').toBeDefined();
      expect(label, 'its label is read').toBeDefined();
      expect(together([there as Call, label as Call])).toBe(true);
    }
  });

  test('a select-only list: after the option is clicked, what the widget shows and whether its list is open are read together', async ({
    autofill,
    formPage,
    forms,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, report } = await autofill({
        path: '/forms/aria-selects.html',
        formData: { full_name: 'Hedy Lamarr', department: 'sales', start_month: 'june', preferred_language: 'german' },
      });
      expect(failure, report).toBe('');
    });
    expect(forms.postsTo('/submit/aria-selects').at(-1)?.fields).toEqual({
      full_name: 'Hedy Lamarr',
      department: 'sales',
      start_month: 'June',
      language: 'de',
    });
    const chosen = calls.filter(
      (c) => c.what.startsWith('click ') && c.what.includes('data-portico-option') && c.what.includes('>> nth='),
    );
    expect(chosen.length).toBeGreaterThanOrEqual(2);
    for (const click of chosen) {
      const after = calls.filter((c) => c.start > click.end);
      const open = after.find((c) => c.what.startsWith('isVisible ') && c.what.includes('data-portico-option'));
      const look = after[0];
      expect(open, 'whether the list is still open').toBeDefined();
      expect(look, 'the first look at what the widget shows').toBeDefined();
      expect(look).not.toBe(open);
      expect(together([look as Call, open as Call])).toBe(true);
    }
  });

  test('a date field whose calendar was closed: what it shows and whether it holds the focus are read together', async ({
    autofill,
    formPage,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/calendar/form',
        submitTo: '/submit/leave',
        formData: { start: '2027-07-05' },
        formSchema: {
          type: 'object',
          properties: { start: { type: 'string', format: 'date', title: 'First day of leave' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.fields),
        report,
      ).toEqual([{ start: '07/05/2027' }]);
    });
    const frames = calls.find((c) => c.what.startsWith('evaluate:twoFrames '));
    expect(frames, 'the two frames after the close').toBeDefined();
    const after = calls.filter((c) => c.start > (frames as Call).end);
    const value = after.find((c) => c.what.startsWith('inputValue '));
    const focus = after.find((c) => c.what.startsWith('evaluate:hasFocus '));
    expect(value, 'what the field shows').toBeDefined();
    expect(focus, 'whether it holds the focus').toBeDefined();
    expect(together([value as Call, focus as Call])).toBe(true);
  });

  test('a switch that takes no pointer click is given Space by one press (it focuses first), no focus call of its own', async ({
    autofill,
    formPage,
  }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/switch/form',
        submitTo: '/submit/timetable',
        formData: { timetable: true },
        formSchema: {
          type: 'object',
          properties: { timetable: { type: 'boolean', title: 'Send me the weekly class timetable' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ timetable: true }]);
    });
    expect(calls.filter((c) => c.what.startsWith('press ') && c.what.endsWith(' Space'))).toHaveLength(1);
    expect(calls.filter((c) => c.what.startsWith('focus ')).map((c) => c.what)).toEqual([]);
  });

  test('a checkbox drawn by itself: its hit test is made with its first state read', async ({ autofill, formPage }) => {
    const calls = await pageCalls(formPage, async () => {
      const { failure, posts, report } = await autofill({
        path: '/plain-box/form',
        submitTo: '/submit/consent',
        formData: { ok: true },
        formSchema: {
          type: 'object',
          properties: { ok: { type: 'boolean', title: 'I consent to a background check' } },
        },
      });
      expect(failure, report).toBe('');
      expect(
        posts.map((p) => p.json),
        report,
      ).toEqual([{ ok: true }]);
    });
    const first = calls.find((c) => c.what === 'controlRead:controlState');
    const hit = calls.find((c) => c.what === 'controlRead:pointerTarget');
    expect(first, 'the first state read').toBeDefined();
    expect(hit, 'the hit test').toBeDefined();
    expect(together([first as Call, hit as Call])).toBe(true);
    // Then the click on the box itself, and its state read after it.
    const click = calls.find((c) => c.what.startsWith('click ') && c.what.includes('data-portico-id'));
    expect(click).toBeDefined();
    expect(calls.some((c) => c.what === 'controlRead:controlState' && c.start > (click as Call).end)).toBe(true);
  });
});
