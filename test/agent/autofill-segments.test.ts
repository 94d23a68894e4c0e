/**
 * Sectioned date and time fields (docs/autofill.md, "Sectioned date and time fields"): the pure parts
 * (segments.ts: the goal a value means, the keys typed per segment, what the segments read back as)
 * without a browser, then one hand-written page in Chromium: a day/month/year field and a 24-hour
 * time field built from plain `role=spinbutton` divs (no library), filled by builtin:autofill and
 * read back; and a field that shows another day than the one typed, which is never claimed. Also a
 * one-time code in a row of one-character boxes, which is one field too.
 */
import { describe, expect, it } from 'vitest';

import {
  readSegments,
  sameSegmentValue,
  segmentGoal,
  segmentKeys,
  segmentText,
  type SegmentReading,
} from '../../src-main/agent/autofill/segments.ts';
import type { SegmentedField, SegmentFacts, SegmentKind } from '../../src-main/agent/injected/index.ts';
import { type Autofill, autofillTest, html } from './autofillTest.ts';

const seg = (pid: string, kind: SegmentKind, min: number, max: number, part = 0): SegmentFacts => ({
  pid,
  kind,
  part,
  min,
  max,
  now: null,
  text: '',
  valueText: 'Empty',
});
const US_DATE: SegmentedField = {
  kind: 'date',
  list: [seg('m', 'month', 1, 12), seg('d', 'day', 1, 31), seg('y', 'year', 1, 9999)],
};
const TIME_12: SegmentedField = {
  kind: 'time',
  list: [seg('h', 'hour', 1, 12), seg('min', 'minute', 0, 59), seg('ap', 'dayPeriod', 0, 1)],
};
const RANGE: SegmentedField = {
  kind: 'dateRange',
  list: [
    seg('m1', 'month', 1, 12),
    seg('d1', 'day', 1, 31),
    seg('y1', 'year', 1, 9999),
    seg('m2', 'month', 1, 12, 1),
    seg('d2', 'day', 1, 31, 1),
    seg('y2', 'year', 1, 9999, 1),
  ],
};
const read = (field: SegmentedField, texts: string[]): SegmentReading[] =>
  field.list.map((s, i) => ({ kind: s.kind, part: s.part, text: texts[i] as string, now: null, valueText: '' }));

describe('sectioned fields: goals and keys', () => {
  it('types each part padded to its width, in the order the field draws them', () => {
    const goal = segmentGoal(US_DATE, '1990-07-04');
    expect(goal).toEqual({ goal: { date: { year: 1990, month: 7, day: 4 } } });
    if (!('goal' in goal)) throw new Error('no goal');
    expect(segmentKeys(US_DATE, goal.goal)).toEqual({
      keys: [
        { pid: 'm', kind: 'month', keys: '07' },
        { pid: 'd', kind: 'day', keys: '04' },
        { pid: 'y', kind: 'year', keys: '1990' },
      ],
    });
  });
  it('writes a 24-hour time on a 12-hour field with its AM/PM part (noon and midnight are 12)', () => {
    const keys = (value: string): string[] => {
      const goal = segmentGoal(TIME_12, value);
      if (!('goal' in goal)) throw new Error(goal.problem);
      const plan = segmentKeys(TIME_12, goal.goal);
      return 'keys' in plan ? plan.keys.map((k) => k.keys) : [plan.problem];
    };
    expect(keys('14:30')).toEqual(['02', '30', 'P']);
    expect(keys('09:15')).toEqual(['09', '15', 'A']);
    expect(keys('12:05')).toEqual(['12', '05', 'P']);
    expect(keys('00:40')).toEqual(['12', '40', 'A']);
    expect(keys('3:00 pm')).toEqual(['03', '00', 'P']);
  });
  it('spreads {start, end} over the two halves of a range', () => {
    const goal = segmentGoal(RANGE, { start: '2027-01-18', end: '2027-01-22' });
    if (!('goal' in goal)) throw new Error('no goal');
    const plan = segmentKeys(RANGE, goal.goal);
    expect('keys' in plan && plan.keys.map((k) => k.keys)).toEqual(['01', '18', '2027', '01', '22', '2027']);
  });
  it('refuses what the field cannot hold: a time for a date, a non-date, an end before the start, a part the value lacks', () => {
    expect(segmentGoal(US_DATE, '14:30')).toHaveProperty('problem');
    expect(segmentGoal(US_DATE, '2026-02-30')).toHaveProperty('problem');
    expect(segmentGoal(TIME_12, '2026-12-14')).toHaveProperty('problem');
    expect(segmentGoal(RANGE, { start: '2027-01-22', end: '2027-01-18' })).toHaveProperty('problem');
    const withTime: SegmentedField = { kind: 'date', list: [...US_DATE.list, seg('h', 'hour', 0, 23)] };
    expect(segmentKeys(withTime, { date: { year: 2026, month: 12, day: 14 } })).toEqual({
      problem: 'the field has a hour part the value does not give',
    });
    const twoDigitYear: SegmentedField = {
      kind: 'date',
      list: [seg('d', 'day', 1, 31), seg('m', 'month', 1, 12), seg('y', 'year', 0, 99)],
    };
    expect(segmentKeys(twoDigitYear, { date: { year: 1990, month: 7, day: 4 } })).toHaveProperty('problem');
  });
});

describe('sectioned fields: reading back', () => {
  it('reads the digits each part shows (a month by name too) and compares the whole value', () => {
    const goal = { date: { year: 1990, month: 7, day: 4 } };
    expect(sameSegmentValue(US_DATE, readSegments(US_DATE, read(US_DATE, ['7', '4', '1990'])), goal)).toBe(true);
    expect(sameSegmentValue(US_DATE, readSegments(US_DATE, read(US_DATE, ['Jul', '04', '1990'])), goal)).toBe(true);
    expect(sameSegmentValue(US_DATE, readSegments(US_DATE, read(US_DATE, ['7', '5', '1990'])), goal)).toBe(false);
  });
  it('an empty part (its placeholder, no aria-valuenow) is no value at all', () => {
    expect(readSegments(US_DATE, read(US_DATE, ['mm', '4', '1990']))).toBeNull();
  });
  it('a 12-hour reading needs its AM/PM: 2:30 PM is 14:30, 2:30 AM is not', () => {
    const goal = { time: { hour: 14, minute: 30, second: 0 } };
    expect(sameSegmentValue(TIME_12, readSegments(TIME_12, read(TIME_12, ['2', '30', 'PM'])), goal)).toBe(true);
    expect(sameSegmentValue(TIME_12, readSegments(TIME_12, read(TIME_12, ['2', '30', 'AM'])), goal)).toBe(false);
    expect(readSegments(TIME_12, read(TIME_12, ['2', '30', '––']))).toBeNull();
  });
  it('writes what it read as ISO text for the receipt and the submission check', () => {
    expect(
      segmentText(RANGE, { date: { year: 2027, month: 1, day: 18 }, end: { year: 2027, month: 1, day: 22 } }),
    ).toBe('2027-01-18 – 2027-01-22');
    expect(segmentText(TIME_12, { time: { hour: 9, minute: 5, second: 0 } })).toBe('09:05');
  });
});

// A sectioned field with no library behind it: plain divs, role=spinbutton, digits typed into the
// focused part, aria-valuenow set when a part has a value. `data-off-by-one` makes the day part show
// the day after the one typed (a broken widget).
const PAGE = `<!doctype html><html lang="en"><head><title>Book a visit</title></head><body>
<form id="f" action="/submit/segments" method="post">
  <h1>Book a visit</h1>
  <span id="vl">Visit date</span>
  <div role="group" aria-labelledby="vl" id="visit">
    <div role="spinbutton" tabindex="0" aria-label="Day" aria-valuemin="1" aria-valuemax="31" data-w="2">dd</div> /
    <div role="spinbutton" tabindex="0" aria-label="Month" aria-valuemin="1" aria-valuemax="12" data-w="2">mm</div> /
    <div role="spinbutton" tabindex="0" aria-label="Year" aria-valuemin="1900" aria-valuemax="2100" data-w="4">yyyy</div>
  </div>
  <span id="tl">Arrival time</span>
  <div role="group" aria-labelledby="tl" id="arrival">
    <div role="spinbutton" tabindex="0" aria-label="Hours" aria-valuemin="0" aria-valuemax="23" data-w="2">--</div> :
    <div role="spinbutton" tabindex="0" aria-label="Minutes" aria-valuemin="0" aria-valuemax="59" data-w="2">--</div>
  </div>
  <input type="hidden" name="visit_date" id="vd"><input type="hidden" name="arrival" id="at">
  <button type="submit">Book visit</button>
</form>
<script>
  const broken = location.search.includes('broken');
  // '?advance': a part that holds all its digits moves the focus to the next part of its field (React Aria's way).
  const advance = location.search.includes('advance');
  for (const s of document.querySelectorAll('[role=spinbutton]')) {
    let typed = '';
    s.addEventListener('focus', () => { typed = ''; });
    s.addEventListener('keydown', (e) => {
      if (!/^[0-9]$/.test(e.key)) return;
      e.preventDefault();
      typed = (typed + e.key).slice(-Number(s.dataset.w));
      let n = Number(typed);
      if (broken && s.getAttribute('aria-label') === 'Day') n += 1;
      s.textContent = String(n).padStart(Number(s.dataset.w), '0');
      s.setAttribute('aria-valuenow', String(n));
      sync();
      const next = s.nextElementSibling;
      if (advance && typed.length === Number(s.dataset.w) && next) next.focus();
    });
  }
  function parts(id) { return [...document.querySelectorAll('#' + id + ' [role=spinbutton]')].map((s) => s.getAttribute('aria-valuenow')); }
  function sync() {
    const [d, m, y] = parts('visit');
    document.getElementById('vd').value = d && m && y ? y + '-' + m.padStart(2, '0') + '-' + d.padStart(2, '0') : '';
    const [h, mi] = parts('arrival');
    document.getElementById('at').value = h && mi ? h.padStart(2, '0') + ':' + mi.padStart(2, '0') : '';
  }
</script></body></html>`;

// A one-time code in six one-character boxes (no auto-advance: each box takes what is typed into it).
const BOXES = `<!doctype html><html lang="en"><head><title>Verify</title></head><body>
<form action="/submit/boxes" method="post">
  <h1>Verify your phone</h1>
  <span id="sc">Security code</span>
  <div role="group" aria-labelledby="sc" id="code">
    ${[1, 2, 3, 4, 5, 6].map(() => '<input type="text" inputmode="numeric" maxlength="1" autocomplete="one-time-code">').join('')}
  </div>
  <input type="hidden" name="code" id="joined">
  <button type="submit">Verify</button>
</form>
<script>
  const boxes = [...document.querySelectorAll('#code input')];
  for (const b of boxes) b.addEventListener('input', () => { document.getElementById('joined').value = boxes.map((x) => x.value).join(''); });
</script></body></html>`;

const test = autofillTest({ '/segments/form': html(PAGE), '/boxes/form': html(BOXES) });

/** The visit form (`query` after its path) filled with a date and a time: the outcome, with the posts to /submit/segments. */
const run = (autofill: Autofill, query: string) =>
  autofill({
    path: `/segments/form${query}`,
    submitTo: '/submit/segments',
    formData: { visit_date: '2026-03-09', arrival_time: '17:05' },
    formSchema: {
      type: 'object',
      properties: {
        visit_date: { type: 'string', format: 'date', title: 'Visit date' },
        arrival_time: { type: 'string', title: 'Arrival time' },
      },
    },
  });

describe('sectioned fields in a page (no library)', () => {
  test('fills each field part by part and sends the value the parts read back as', async ({ autofill }) => {
    const { result, posts, logs } = await run(autofill, '');
    expect(result, logs.join('\n')).toHaveProperty('ok');
    expect(posts.map((p) => p.fields)).toEqual([{ visit_date: '2026-03-09', arrival: '17:05' }]);
    expect(logs.join('\n')).toContain("visit_date → 'Visit date' (date-segments #visit) = 2026-03-09");
  });

  test('parts that move the focus on take the keys typed into the first at once, with no pause in a key; parts that keep it are typed part by part', async ({
    autofill,
    formPage,
  }) => {
    // What the filler asks the keyboard to type, and with what pause between a key's down and up.
    const typed: Array<{ keys: string; delay: number }> = [];
    const keyboard = formPage.keyboard;
    const type = keyboard.type.bind(keyboard);
    keyboard.type = (keys, options) => {
      typed.push({ keys, delay: options?.delay ?? 0 });
      return type(keys, options);
    };
    try {
      const ahead = await run(autofill, '?advance');
      expect(ahead.result, ahead.report).toHaveProperty('ok');
      expect(ahead.posts.map((p) => p.fields)).toEqual([{ visit_date: '2026-03-09', arrival: '17:05' }]);
      expect(typed).toEqual([
        { keys: '09032026', delay: 0 },
        { keys: '1705', delay: 0 },
      ]);
      typed.length = 0;
      // Parts that keep the focus show only the last digits after the first try: typed again part by part.
      const kept = await run(autofill, '');
      expect(kept.result, kept.report).toHaveProperty('ok');
      expect(kept.posts.map((p) => p.fields)).toEqual([{ visit_date: '2026-03-09', arrival: '17:05' }]);
      expect(typed.slice(0, 4)).toEqual([
        { keys: '09032026', delay: 0 },
        { keys: '09', delay: 15 },
        { keys: '03', delay: 15 },
        { keys: '2026', delay: 15 },
      ]);
    } finally {
      keyboard.type = type;
    }
  });

  test('never claims a day the field does not show: the job fails, nothing is sent', async ({ autofill }) => {
    const { result, posts } = await run(autofill, '?broken');
    expect(result).toEqual({
      error: expect.stringContaining("'Visit date' shows '10 03 2026' after typing 2026-03-09 into its parts"),
    });
    expect(posts).toEqual([]);
  });

  test('a row of one-character boxes is one field: the code goes in one character per box and is read back whole', async ({
    autofill,
  }) => {
    const schema = { type: 'object', properties: { security_code: { type: 'string', title: 'Security code' } } };
    const whole = await autofill({ path: '/boxes/form', formData: { security_code: '482 913' }, formSchema: schema });
    expect(whole.failure, whole.report).toBe('');
    expect(whole.posts.map((p) => p.fields)).toEqual([{ code: '482913' }]);
    expect(whole.logs.join('\n')).toContain("security_code → 'Security code' (6-boxes #code) = 482913 (normalised)");
    const short = await autofill({ path: '/boxes/form', formData: { security_code: '48291' }, formSchema: schema });
    expect(short.failure).toContain("'48291' has 5 characters; 'Security code' takes exactly 6, one per box");
    expect(short.posts).toEqual([]);
  });
});
