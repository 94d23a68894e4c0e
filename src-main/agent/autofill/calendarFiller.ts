// A date field that takes no typed date, only a calendar grid (docs/autofill.md, "Date picker dialogs
// and calendar-only fields"): its trigger opens the calendar (an inline calendar is always open), its
// month and year pickers (selects or dropdowns inside the calendar) or its previous/next buttons move
// it to the month meant, the day whose accessible name means the date meant is clicked — for a range,
// the start day and then the end day — and what the field then shows (or the days the calendar marks
// selected) is read back and must be the same date. A day the calendar shows as unavailable, or a
// month or year it cannot reach, is a problem (asked or failed) — never a look-alike day.
import { AgentFailure } from '../agentTypes.ts';
import { calendarGrid } from '../injected/index.ts';
import type { CalendarFacts, CalendarPicker } from '../injected/scanTypes.ts';
import { type DateParts, dateReadings, isoDate, MONTHS, parseMonthYear } from './dates.ts';
import { click, type FillEnv, FillProblem, type FillResult, locate, waitFor } from './fillBase.ts';
import { dateRangeValue } from './rangeAndNumber.ts';
import type { Target } from './targets.ts';
import { asText } from './valueAdapter.ts';

/** At most this many months are stepped through (ten years either way). */
const MAX_STEPS = 120;

/** The date a day cell's accessible name means ("Friday, March 14, 2025", "Today, Friday, …", "… selected"), or null. */
export function cellDate(name: string): DateParts | null {
  const text = name
    .replace(
      /\b(today|selected( date)?|unavailable|not available|available|booked|disabled|choose|first available date|last available date|starting range from|range ending at|in range)\b\.?/gi,
      ' ',
    )
    .replace(/\s*,\s*(?=,|$)/g, '')
    .replace(/^[\s,]+|[\s,]+$/g, '');
  const readings = dateReadings(text);
  if (readings.length === 1) return readings[0] as DateParts;
  // A name that also describes the selection ("Selected Range: Thursday, February 25 to Thursday, March
  // 4, 2027, Thursday, March 4, 2027 selected") ends with the cell's own date.
  const last = datesIn(text).at(-1);
  return last?.length === 1 ? (last[0] as DateParts) : null;
}

const monthIndex = (d: { year: number; month: number }): number => d.year * 12 + d.month - 1;

/** The month the calendar shows: its heading ("March 2025"), else the month most of its usable days are in. */
export function shownMonth(facts: CalendarFacts): { year: number; month: number } | null {
  // Two months or more side by side: the first one (a heading names them all: "April – May 2027").
  if (facts.months.length > 1) return shownMonths(facts)[0] ?? null;
  const fromHeading = parseMonthYear(facts.heading) ?? parseMonthYear(lastMonthYear(facts.heading));
  if (fromHeading) return fromHeading;
  // No heading naming it: what the month and year pickers show ("July", "1986").
  const month = facts.month ? pickerIndex('month', facts.month.shown) : -1;
  const year = facts.year ? Number(facts.year.shown) : Number.NaN;
  if (month >= 1 && Number.isInteger(year) && year > 0) return { year, month };
  const counts = new Map<number, number>();
  for (const c of facts.cells) {
    const d = cellDate(c.name);
    if (d && !c.hidden && !c.disabled) counts.set(monthIndex(d), (counts.get(monthIndex(d)) ?? 0) + 1);
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best ? { year: Math.floor(best[0] / 12), month: (best[0] % 12) + 1 } : null;
}

type Month = { year: number; month: number };

/**
 * The month each grid shows, in order, when the calendar draws two months or more side by side: each
 * grid's name ("Stay dates, April 2027"), else the month most of its shown days are in (a grid also
 * draws the neighbouring months' first and last days). One grid: `shownMonth`.
 */
export function shownMonths(facts: CalendarFacts): Array<Month | null> {
  if (facts.months.length <= 1) return [shownMonth(facts)];
  return facts.months.map((name, grid) => {
    const named = parseMonthYear(name) ?? parseMonthYear(lastMonthYear(name));
    if (named) return named;
    const counts = new Map<number, number>();
    for (const c of facts.cells) {
      const d = c.grid === grid && !c.hidden ? cellDate(c.name) : null;
      if (d) counts.set(monthIndex(d), (counts.get(monthIndex(d)) ?? 0) + 1);
    }
    const best = [...counts].sort((a, b) => b[1] - a[1])[0];
    return best ? { year: Math.floor(best[0] / 12), month: (best[0] % 12) + 1 } : null;
  });
}

/** The cells named as `goal` that may be clicked for it: not hidden, and — with two months shown — in the grid of goal's month, never its look-alike drawn in the neighbouring month's grid. */
export function cellsFor(facts: CalendarFacts, goal: DateParts): CalendarFacts['cells'] {
  const named = facts.cells.filter((c) => {
    const d = !c.hidden ? cellDate(c.name) : null;
    return d !== null && sameDay(d, goal);
  });
  if (facts.months.length <= 1) return named;
  const months = shownMonths(facts);
  return named.filter((c) => {
    const m = months[c.grid];
    return m !== null && m !== undefined && monthIndex(m) === monthIndex(goal);
  });
}

/** The last "<month name> <year>" in a text ("Move-in date, March 2025" → "March 2025"). */
function lastMonthYear(text: string): string {
  const names = MONTHS.map((m) => m.slice(0, 3)).join('|');
  const all = [...text.matchAll(new RegExp(`\\b(${names})[a-z]*\\.?\\s+\\d{4}\\b`, 'gi'))];
  return all.at(-1)?.[0] ?? '';
}

/** The dates a text shows ("March 14, 2025", "14/03/2025", "2025-03-14", inside other words), each with its readings. */
export function datesIn(text: string): DateParts[][] {
  const names = MONTHS.map((m) => m.slice(0, 3)).join('|');
  const month = `(?:${names})[a-z]*\\.?`;
  const re = new RegExp(
    [
      '\\b\\d{4}-\\d{1,2}-\\d{1,2}\\b',
      '\\b\\d{1,2}[/.\\-]\\d{1,2}[/.\\-]\\d{2,4}\\b',
      `\\b${month}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`,
      `\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month},?\\s+\\d{4}\\b`,
    ].join('|'),
    'gi',
  );
  return [...text.matchAll(re)].map((m) => dateReadings(m[0])).filter((r) => r.length > 0);
}

/** What the calendar shows, cell by cell, to see a view change (days to months, a page of years). */
const viewKey = (f: CalendarFacts): string => `${f.heading}|${f.cells.map((c) => c.name).join(',')}`;

/** What the grids show, to see the calendar move (two months shown move together). */
const monthsKey = (f: CalendarFacts): string =>
  shownMonths(f)
    .map((m) => (m ? monthIndex(m) : '?'))
    .join(',');

const sameDay = (a: DateParts, b: DateParts): boolean => a.year === b.year && a.month === b.month && a.day === b.day;

/**
 * The month (1-12) an option text of a month picker names ("July", "Jul", "7"), or the year a year
 * picker's option names; -1 when it names none.
 */
export function pickerIndex(part: 'month' | 'year', text: string): number {
  const t = text.trim().toLowerCase();
  if (part === 'year') return /^\d{4}$/.test(t) ? Number(t) : -1;
  if (/^\d{1,2}$/.test(t)) return Number(t) >= 1 && Number(t) <= 12 ? Number(t) : -1;
  const word = t.replace(/[.\s].*$/, '');
  if (word.length < 3) return -1;
  const i = MONTHS.findIndex((m) => m.startsWith(word));
  return i >= 0 ? i + 1 : -1;
}

/** What a month view's cell names: its month (1-12) and, when named, its year ("March 1958", "Mar", "3"); null for another cell. */
export function monthCell(name: string): { month: number; year: number | null } | null {
  const m = /^([a-z]+\.?|\d{1,2})(?:,?\s+(\d{4}))?$/i.exec(name.trim());
  if (!m) return null;
  const month = pickerIndex('month', m[1] as string);
  return month > 0 ? { month, year: m[2] ? Number(m[2]) : null } : null;
}

/** The year a year view's cell names ("1958"), or null. */
export function yearCell(name: string): number | null {
  const t = name.trim();
  return /^\d{4}$/.test(t) ? Number(t) : null;
}

/**
 * Which view the calendar shows, by what its usable cells name: days ("Friday, March 7, 1958"),
 * months ("March 1958", "Mar") or years ("1958"); null when it is none of them.
 */
export function viewOf(facts: CalendarFacts): 'day' | 'month' | 'year' | null {
  const shown = facts.cells.filter((c) => !c.hidden);
  if (shown.some((c) => cellDate(c.name) !== null)) return 'day';
  const months = new Set(shown.map((c) => monthCell(c.name)?.month ?? 0).filter((m) => m > 0));
  if (months.size >= 3 && shown.every((c) => monthCell(c.name) !== null)) return 'month';
  const years = shown.filter((c) => yearCell(c.name) !== null);
  if (years.length >= 3 && years.length === shown.length) return 'year';
  return null;
}

/** The year a month view shows: the one its cells name, else the one four-digit year its heading or grid name holds; null when unsure. */
export function monthViewYear(facts: CalendarFacts): number | null {
  const named = new Set(
    facts.cells
      .filter((c) => !c.hidden)
      .map((c) => monthCell(c.name)?.year)
      .filter((y): y is number => typeof y === 'number'),
  );
  if (named.size === 1) return [...named][0] as number;
  if (named.size > 1) return null;
  const years = new Set([facts.heading, ...facts.months].flatMap((t) => t.match(/\b\d{4}\b/g) ?? []));
  return years.size === 1 ? Number([...years][0]) : null;
}

function spelled(d: DateParts): string {
  const m = MONTHS[d.month - 1] ?? '';
  return `${m.charAt(0).toUpperCase()}${m.slice(1)} ${d.year}`;
}

/** The calendar's grid now: an inline calendar's own grid, else the one its trigger opened. */
async function readGrid(target: Target): Promise<CalendarFacts | null> {
  if (target.controls[0]?.calendar?.inline)
    return locate(target)
      .evaluate(calendarGrid)
      .catch(() => null);
  return target.frame.evaluate(calendarGrid, null).catch(() => null);
}

/** What the field shows now: its trigger's text and name, else the text of the group around it. */
async function shownTexts(target: Target): Promise<string[]> {
  const trigger = locate(target);
  const group = trigger.locator('xpath=ancestor::*[@role="group"][1]');
  // Read together (none changes the page): were one round trip after another.
  const [text, name, around] = await Promise.all([
    trigger.innerText({ timeout: 2000 }).catch(() => ''),
    trigger.getAttribute('aria-label', { timeout: 2000 }).catch(() => null),
    group.count().then((n) => (n ? group.innerText({ timeout: 2000 }).catch(() => '') : '')),
  ]);
  return [text.trim(), name ?? '', around].filter(Boolean);
}

/** One open calendar being driven: its facts as last read, and how to close it. */
class CalendarDriver {
  facts: CalendarFacts;
  private readonly env: FillEnv;
  private readonly target: Target;
  constructor(env: FillEnv, target: Target, facts: CalendarFacts) {
    this.env = env;
    this.target = target;
    this.facts = facts;
  }

  /** Closes a popup calendar still open (an inline one stays). */
  async close(): Promise<void> {
    if (this.target.controls[0]?.calendar?.inline) return;
    if (await readGrid(this.target)) await this.env.page.keyboard.press('Escape').catch(() => undefined);
  }

  /** Fails after closing the calendar: a FillProblem (asked or failed), nothing chosen. */
  async problem(message: string): Promise<never> {
    await this.close();
    throw new FillProblem(message);
  }

  /** Reads the grid until `moved` holds for it (the month shown changed), at most 3 s; false when it did not. */
  private async until(moved: (f: CalendarFacts) => boolean): Promise<boolean> {
    return waitFor(async () => {
      const now = await readGrid(this.target);
      if (!now || !moved(now)) return false;
      this.facts = now;
      return true;
    }, 3000);
  }

  /**
   * Chooses `wanted` (a month 1-12 or a year) in the calendar's month or year picker: a native select by
   * its option, a dropdown by opening it and clicking the option naming it. A picker offering no such
   * option (a year outside the calendar's range) is a problem — never the nearest one.
   */
  private async choose(part: 'month' | 'year', picker: CalendarPicker, wanted: number, goal: DateParts): Promise<void> {
    const label = this.target.label;
    const loc = this.target.frame.locator(`[data-portico-cal="${part}"]`);
    const what = part === 'month' ? spelled({ ...goal, day: 1 }).split(' ')[0] : String(wanted);
    if (picker.kind === 'select') {
      const index = picker.options.findIndex((o) => pickerIndex(part, o) === wanted);
      if (index < 0)
        await this.problem(
          `the calendar of '${label}' offers no ${part} ${what} in its ${part} list (${picker.options.filter((o) => pickerIndex(part, o) > 0).join(', ')}); ${isoDate(goal)} cannot be chosen`,
        );
      await loc.selectOption({ index }, { timeout: this.env.budget.ms() });
      return;
    }
    await click(this.env, loc);
    const options = this.target.frame.locator('[role=option]:visible');
    if (!(await waitFor(async () => (await options.count()) > 0, 3000)))
      await this.problem(`the ${part} dropdown in the calendar of '${label}' showed no options`);
    const names = (await options.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const index = names.findIndex((n) => pickerIndex(part, n) === wanted);
    if (index < 0) {
      await this.env.page.keyboard.press('Escape');
      const first = names.find((n) => pickerIndex(part, n) > 0);
      const last = names.findLast((n) => pickerIndex(part, n) > 0);
      await this.problem(
        `the calendar of '${label}' offers no ${part} ${what} in its ${part} dropdown (${first} … ${last}); ${isoDate(goal)} cannot be chosen`,
      );
    }
    await click(this.env, options.nth(index));
  }

  /** Clicks a part of the calendar (a `data-portico-cal` stamp) and waits for what it shows to change; a problem when nothing changes. */
  private async press(mark: string, what: string, stuck?: string): Promise<void> {
    const before = viewKey(this.facts);
    await click(this.env, this.target.frame.locator(`[data-portico-cal="${mark}"]`));
    if (!(await this.until((f) => viewKey(f) !== before)))
      await this.problem(stuck ?? `the calendar of '${this.target.label}' did not change after '${what}' was clicked`);
  }

  /**
   * Moves a calendar that has month and year views (a grid of months or of years, reached by a header
   * button such as "Switch to month view") to goal's month: the view switch, then in the year view the
   * cell naming goal's year (paging by previous/next when the year is not shown), in the month view the
   * cell naming goal's month — each chosen by its name, never by place — until the day view shows it.
   * A year or month the view shows unavailable or cannot reach is a problem, never the nearest one.
   */
  private async byViews(goal: DateParts): Promise<void> {
    const label = this.target.label;
    const what = spelled(goal);
    for (let action = 0; action < 60; action++) {
      const f = this.facts;
      const view = viewOf(f);
      if (view === 'day') {
        if (shownMonths(f).some((m) => m !== null && monthIndex(m) === monthIndex(goal))) return;
        if (action > 0)
          await this.problem(`the calendar of '${label}' did not show ${what} after its year and month were chosen`);
        const shownYear = shownMonth(f)?.year;
        const index = f.views.findIndex((v) => shownYear !== goal.year && /\b(years?|decades?)\b|^\d{4}$/i.test(v));
        await this.press(`v${Math.max(index, 0)}`, f.views[Math.max(index, 0)] ?? '');
        continue;
      }
      if (view === 'year') {
        const years = f.cells.filter((c) => !c.hidden && yearCell(c.name) !== null);
        const cell = years.find((c) => yearCell(c.name) === goal.year);
        if (cell?.disabled)
          await this.problem(
            `the calendar of '${label}' does not offer the year ${goal.year} ('${cell.name}' is unavailable)`,
          );
        if (cell) {
          await this.press(cell.mark, cell.name);
          continue;
        }
        // Usable years only: a view drawing the years past the calendar's first or last greys them.
        const usable = years.filter((c) => !c.disabled);
        const all = (usable.length ? usable : years).map((c) => yearCell(c.name) as number);
        const way = goal.year < Math.min(...all) ? 'prev' : 'next';
        const stuck = `the calendar of '${label}' does not go to the year ${goal.year} (its years end at ${way === 'prev' ? Math.min(...all) : Math.max(...all)})`;
        if (!f[way]) await this.problem(stuck);
        await this.press(way, way === 'prev' ? 'previous' : 'next', stuck);
        continue;
      }
      if (view === 'month') {
        const year = monthViewYear(f);
        if (year === null) await this.problem(`the calendar of '${label}' does not say which year its months are in`);
        if (year === goal.year) {
          const cell = f.cells.find((c) => !c.hidden && monthCell(c.name)?.month === goal.month);
          if (!cell) await this.problem(`the calendar of '${label}' shows no month named ${what}`);
          const c = cell as CalendarFacts['cells'][number];
          if (c.disabled)
            await this.problem(`the calendar of '${label}' does not offer ${what} ('${c.name}' is unavailable)`);
          await this.press(c.mark, c.name);
          continue;
        }
        const way = goal.year < (year as number) ? 'prev' : 'next';
        // Far years through the year view; a neighbouring year (or no year view) a page at a time.
        if (Math.abs(goal.year - (year as number)) > 1 && f.views.length) {
          await this.press('v0', f.views[0] as string);
          continue;
        }
        const stuck = `the calendar of '${label}' does not go to ${what}`;
        if (!f[way]) await this.problem(stuck);
        await this.press(way, way === 'prev' ? 'previous' : 'next', stuck);
        continue;
      }
      await this.problem(`the calendar of '${label}' shows neither days, months nor years after its view changed`);
    }
    await this.problem(`the calendar of '${label}' does not go to ${what}`);
  }

  /** Moves the calendar to the month of `goal`: by its month and year pickers when it has them and the month is not next door, else month by month. */
  async goTo(goal: DateParts): Promise<void> {
    const label = this.target.label;
    let picked = false;
    let viewed = false;
    for (let step = 0; ; step++) {
      // A calendar showing a month or year view (it opened on one, or a view was left open).
      if (viewOf(this.facts) === 'month' || viewOf(this.facts) === 'year') {
        if (viewed) await this.problem(`the calendar of '${label}' does not go back to its days`);
        viewed = true;
        await this.byViews(goal);
        continue;
      }
      const shown = shownMonths(this.facts);
      if (shown.some((m) => m === null) || !shown.length)
        await this.problem(`the calendar of '${label}' does not say which month it shows`);
      const all = shown as Month[];
      if (all.some((m) => monthIndex(m) === monthIndex(goal))) return;
      // Two months side by side: the way is from the first one shown back, or from the last one on.
      const at = (monthIndex(goal) < monthIndex(all[0] as Month) ? all[0] : all.at(-1)) as Month;
      const diff = monthIndex(goal) - monthIndex(at);
      const way = diff > 0 ? 'next' : 'prev';
      const { month, year } = this.facts;
      if (!picked && (month || year) && (Math.abs(diff) > 1 || !this.facts[way])) {
        picked = true;
        const before = monthIndex(at);
        if (goal.year !== at.year) {
          if (!year) await this.problem(`the calendar of '${label}' has no year to choose ${goal.year} in`);
          await this.choose('year', year as CalendarPicker, goal.year, goal);
          await this.until((f) => {
            const m = shownMonth(f);
            return m !== null && m.year === goal.year;
          });
        }
        const now = shownMonth(this.facts);
        if (now && now.month !== goal.month && this.facts.month)
          await this.choose('month', this.facts.month, goal.month, goal);
        if (
          !(await this.until(
            (f) =>
              shownMonth(f) !== null && monthIndex(shownMonth(f) as DateParts & { day?: number }) === monthIndex(goal),
          ))
        )
          if (monthIndex(shownMonth(this.facts) ?? at) === before)
            await this.problem(
              `the calendar of '${label}' did not move to ${spelled(goal)} when its month and year were chosen`,
            );
        continue;
      }
      // No month and year pickers but month and year views: a month more than two away through them.
      if (
        !picked &&
        !viewed &&
        !month &&
        !year &&
        this.facts.views.length &&
        (Math.abs(diff) > 2 || !this.facts[way])
      ) {
        viewed = true;
        await this.byViews(goal);
        continue;
      }
      if (step >= MAX_STEPS || !this.facts[way])
        await this.problem(`the calendar of '${label}' does not go to ${spelled(goal)}`);
      const before = this.facts.heading;
      const beforeMonths = monthsKey(this.facts);
      await click(this.env, this.target.frame.locator(`[data-portico-cal="${way}"]`));
      const moved = await this.until((f) => f.heading !== before || monthsKey(f) !== beforeMonths);
      if (!moved) await this.problem(`the calendar of '${label}' did not move past ${before}`);
    }
  }

  /** The day cell named as `goal` (not hidden), or a problem: none, or unavailable. */
  async cellOf(goal: DateParts): Promise<CalendarFacts['cells'][number]> {
    const label = this.target.label;
    const cell = cellsFor(this.facts, goal)[0];
    if (!cell)
      return this.problem(`the calendar of '${label}' shows no day named ${isoDate(goal)} in ${spelled(goal)}`);
    if (cell.disabled) return this.problem(`'${cell.name}' is not available in the calendar of '${label}'`);
    return cell;
  }

  /** Goes to `goal`'s month and clicks its day. */
  async pick(goal: DateParts): Promise<string> {
    // Read afresh: a click before (a range's first day) may have drawn the calendar again.
    this.facts = (await readGrid(this.target)) ?? this.facts;
    await this.goTo(goal);
    const cell = await this.cellOf(goal);
    await click(this.env, this.target.frame.locator(`[data-portico-cal="${cell.mark}"]`));
    return cell.name;
  }

  /** The grid read again (an inline calendar's, after a click): whether the day named as `goal` is marked selected. */
  async selected(goal: DateParts): Promise<boolean | null> {
    const now = await readGrid(this.target);
    if (!now) return null;
    this.facts = now;
    const cell = cellsFor(now, goal)[0];
    return cell ? cell.selected : null;
  }
}

const nextDay = (d: DateParts): DateParts => {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
};

async function openCalendar(env: FillEnv, target: Target, what: string): Promise<CalendarDriver> {
  let facts = await readGrid(target);
  if (!facts && !target.controls[0]?.calendar?.inline) {
    await click(env, locate(target));
    await waitFor(async () => {
      facts = await readGrid(target);
      return facts !== null;
    }, 3000);
  }
  if (!facts) throw new FillProblem(`'${target.label}' opened no calendar to pick ${what} from`);
  return new CalendarDriver(env, target, facts);
}

/** Waits (up to 3 s) for the day named as `goal` to show selected in an inline calendar; fails naming it otherwise. */
async function seenSelected(driver: CalendarDriver, target: Target, goal: DateParts, name: string): Promise<void> {
  if (await waitFor(async () => (await driver.selected(goal)) === true, 3000)) return;
  throw new AgentFailure(
    `the calendar '${target.label}' does not show '${name}' selected after it was clicked; the value was not placed`,
  );
}

/** A range into a calendar taking one (two clicks, start then end); the days it marks selected are read back. */
async function fillCalendarRange(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const range = dateRangeValue(value);
  if (!range)
    throw new FillProblem(
      `'${asText(value)}' is not a date range ({start, end}, start first) for '${target.label}', which takes two days from a calendar`,
    );
  const { start, end } = range;
  const driver = await openCalendar(env, target, `${isoDate(start)} – ${isoDate(end)}`);
  // A popup calendar is seen only once open: a range goes only into one that takes several days.
  if (!driver.facts.range)
    await driver.problem(
      `'${target.label}' opened a calendar that takes one day, not a range; ${isoDate(start)} – ${isoDate(end)} cannot be chosen in it`,
    );
  // Both days must be reachable and available before the first click, so nothing is left half chosen.
  await driver.goTo(end);
  await driver.cellOf(end);
  await driver.goTo(start);
  await driver.cellOf(start);
  const first = await driver.pick(start);
  if (target.controls[0]?.calendar?.inline) await seenSelected(driver, target, start, first);
  const last = await driver.pick(end);
  const shown = `${isoDate(start)} – ${isoDate(end)}`;
  if (target.controls[0]?.calendar?.inline) {
    await seenSelected(driver, target, end, last);
    // The days between are part of it, the day after is not (a range that ended elsewhere).
    const after = nextDay(end);
    if (after.month === end.month && (await driver.selected(after)) === true)
      throw new AgentFailure(
        `the calendar '${target.label}' shows days after '${last}' selected; the range ${shown} was not placed`,
      );
    if (start.month === end.month && start.year === end.year && (await driver.selected(start)) !== true)
      throw new AgentFailure(
        `the calendar '${target.label}' does not show '${first}' selected with '${last}'; the range ${shown} was not placed`,
      );
    return { shown, how: 'normalised' };
  }
  if (!(await waitFor(async () => (await readGrid(target)) === null, 1000))) await driver.close();
  const texts = await shownTexts(target);
  const dates = texts.map((t) => datesIn(t)).find((d) => d.length >= 2) ?? [];
  const [from, to] = [dates[0] ?? [], dates[1] ?? []];
  if (
    from.length !== 1 ||
    to.length !== 1 ||
    !sameDay(from[0] as DateParts, start) ||
    !sameDay(to[0] as DateParts, end)
  )
    throw new AgentFailure(
      `'${target.label}' shows '${texts[0] ?? ''}' after choosing '${first}' and '${last}' in its calendar, not ${shown}; the value was not placed`,
    );
  return { shown, how: 'normalised' };
}

export async function fillCalendar(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  if (target.controls[0]?.calendar?.range) return fillCalendarRange(env, target, value);
  const readings = dateReadings(asText(value));
  if (readings.length !== 1)
    throw new FillProblem(
      `'${asText(value)}' is not one date for '${target.label}', which takes a day from a calendar`,
    );
  const goal = readings[0] as DateParts;
  const driver = await openCalendar(env, target, isoDate(goal));
  if (driver.facts.range)
    await driver.problem(
      `'${target.label}' opened a calendar that takes a range (a first and a last day), not one date; ${isoDate(goal)} alone is not a range`,
    );
  const name = await driver.pick(goal);
  const iso = isoDate(goal);
  const how = asText(value) === iso ? 'exact' : 'normalised';
  if (target.controls[0]?.calendar?.inline) {
    await seenSelected(driver, target, goal, name);
    return { shown: iso, how };
  }
  // A picker closes on its own once a day is chosen; one that stays open is closed as a person does.
  if (!(await waitFor(async () => (await readGrid(target)) === null, 1000))) await driver.close();
  const texts = await shownTexts(target);
  let found: DateParts[] | undefined;
  for (const text of texts) {
    found = datesIn(text)[0];
    if (found) break;
  }
  const showing = texts[0] ?? '';
  if (!found)
    throw new AgentFailure(
      `'${target.label}' shows '${showing}' after choosing '${name}' in its calendar; no date was read back`,
    );
  // A numeric date reading two ways (03/07/1958) is the day meant only if the calendar, opened again,
  // marks that day selected.
  const twoWays = found.length > 1 && found.some((d) => sameDay(d, goal));
  if (twoWays && (await selectedWhenReopened(env, target, goal))) return { shown: iso, how };
  if (found.length !== 1 || !sameDay(found[0] as DateParts, goal))
    throw new AgentFailure(
      `'${target.label}' shows '${showing}' after choosing '${name}' in its calendar, not ${iso}${twoWays ? ' for certain (it reads two ways, and the calendar opened again did not show that day selected)' : ''}; the value was not placed`,
    );
  return { shown: iso, how };
}

/** Opens a popup calendar again: does it mark `goal` selected, and no other day? It is closed again either way. */
async function selectedWhenReopened(env: FillEnv, target: Target, goal: DateParts): Promise<boolean> {
  await click(env, locate(target));
  let facts: CalendarFacts | null = null;
  await waitFor(async () => {
    facts = await readGrid(target);
    return facts !== null;
  }, 3000);
  if (!facts) return false;
  const selected = (facts as CalendarFacts).cells.filter((c) => c.selected && !c.hidden);
  const ok =
    selected.length > 0 &&
    selected.every((c) => {
      const d = cellDate(c.name);
      return d !== null && sameDay(d, goal);
    });
  await new CalendarDriver(env, target, facts).close();
  await waitFor(async () => (await readGrid(target)) === null, 1000);
  return ok;
}
