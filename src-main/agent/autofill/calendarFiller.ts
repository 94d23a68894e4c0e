// A date field that takes no typed date, only a calendar grid (docs/autofill.md, "Date picker dialogs
// and calendar-only fields"): its trigger opens the calendar, the previous/next buttons move it month
// by month until the month meant shows, the day whose accessible name means the date meant is clicked,
// and what the field then shows is read back and must be the same date. A day the calendar shows as
// unavailable, or a month it cannot reach, is a problem (asked or failed) — never a look-alike day.
import { AgentFailure } from '../agentTypes.ts';
import { calendarGrid } from '../injected/index.ts';
import type { CalendarFacts } from '../injected/scanTypes.ts';
import { type DateParts, dateReadings, isoDate, MONTHS, parseMonthYear } from './dates.ts';
import { click, type FillEnv, FillProblem, type FillResult, locate, waitFor } from './fillBase.ts';
import type { Target } from './targets.ts';
import { asText } from './valueAdapter.ts';

/** At most this many months are stepped through (ten years either way). */
const MAX_STEPS = 120;

/** The date a day cell's accessible name means ("Friday, March 14, 2025", "Today, Friday, …", "… selected"), or null. */
export function cellDate(name: string): DateParts | null {
  const text = name
    .replace(/\b(today|selected|unavailable|not available|available|booked|disabled)\b/gi, ' ')
    .replace(/\s*,\s*(?=,|$)/g, '')
    .replace(/^[\s,]+|[\s,]+$/g, '');
  const readings = dateReadings(text);
  return readings.length === 1 ? (readings[0] as DateParts) : null;
}

const monthIndex = (d: { year: number; month: number }): number => d.year * 12 + d.month - 1;

/** The month the calendar shows: its heading ("March 2025"), else the month most of its usable days are in. */
export function shownMonth(facts: CalendarFacts): { year: number; month: number } | null {
  const fromHeading = parseMonthYear(facts.heading) ?? parseMonthYear(lastMonthYear(facts.heading));
  if (fromHeading) return fromHeading;
  const counts = new Map<number, number>();
  for (const c of facts.cells) {
    const d = cellDate(c.name);
    if (d && !c.hidden && !c.disabled) counts.set(monthIndex(d), (counts.get(monthIndex(d)) ?? 0) + 1);
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best ? { year: Math.floor(best[0] / 12), month: (best[0] % 12) + 1 } : null;
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

const sameDay = (a: DateParts, b: DateParts): boolean => a.year === b.year && a.month === b.month && a.day === b.day;

function spelled(d: DateParts): string {
  const m = MONTHS[d.month - 1] ?? '';
  return `${m.charAt(0).toUpperCase()}${m.slice(1)} ${d.year}`;
}

async function readGrid(target: Target): Promise<CalendarFacts | null> {
  return target.frame.evaluate(calendarGrid, null).catch(() => null);
}

/** What the field shows now: its trigger's text and name, else the text of the group around it. */
async function shownTexts(target: Target): Promise<string[]> {
  const trigger = locate(target);
  const own = [
    (await trigger.innerText({ timeout: 2000 }).catch(() => '')).trim(),
    (await trigger.getAttribute('aria-label', { timeout: 2000 }).catch(() => null)) ?? '',
  ];
  const group = trigger.locator('xpath=ancestor::*[@role="group"][1]');
  const around = (await group.count()) ? await group.innerText({ timeout: 2000 }).catch(() => '') : '';
  return [...own, around].filter(Boolean);
}

export async function fillCalendar(env: FillEnv, target: Target, value: unknown): Promise<FillResult> {
  const readings = dateReadings(asText(value));
  if (readings.length !== 1)
    throw new FillProblem(
      `'${asText(value)}' is not one date for '${target.label}', which takes a day from a calendar`,
    );
  const goal = readings[0] as DateParts;
  const close = async (): Promise<void> => {
    if (await readGrid(target)) await env.page.keyboard.press('Escape').catch(() => undefined);
  };
  let facts = await readGrid(target);
  if (!facts) {
    await click(env, locate(target));
    await waitFor(async () => {
      facts = await readGrid(target);
      return facts !== null;
    }, 3000);
  }
  if (!facts) throw new FillProblem(`'${target.label}' opened no calendar to pick ${isoDate(goal)} from`);
  // Month by month to the month meant.
  for (let step = 0; ; step++) {
    const shown = shownMonth(facts as CalendarFacts);
    if (!shown) {
      await close();
      throw new FillProblem(`the calendar of '${target.label}' does not say which month it shows`);
    }
    const diff = monthIndex(goal) - monthIndex(shown);
    if (diff === 0) break;
    const way = diff > 0 ? 'next' : 'prev';
    if (step >= MAX_STEPS || !(facts as CalendarFacts)[way]) {
      await close();
      throw new FillProblem(`the calendar of '${target.label}' does not go to ${spelled(goal)}`);
    }
    const before = (facts as CalendarFacts).heading;
    await click(env, target.frame.locator(`[data-portico-cal="${way}"]`));
    const moved = await waitFor(async () => {
      const now = await readGrid(target);
      if (!now || now.heading === before) return false;
      facts = now;
      return true;
    }, 3000);
    if (!moved) {
      await close();
      throw new FillProblem(`the calendar of '${target.label}' did not move past ${before}`);
    }
  }
  const grid = facts as CalendarFacts;
  // The day whose name means the date meant (an outside-month day with the same number names another date).
  const cell = grid.cells.find(
    (c) => !c.hidden && cellDate(c.name) !== null && sameDay(cellDate(c.name) as DateParts, goal),
  );
  if (!cell) {
    await close();
    throw new FillProblem(`the calendar of '${target.label}' shows no day named ${isoDate(goal)} in ${spelled(goal)}`);
  }
  if (cell.disabled) {
    await close();
    throw new FillProblem(`'${cell.name}' is not available in the calendar of '${target.label}'`);
  }
  await click(env, target.frame.locator(`[data-portico-cal="${cell.mark}"]`));
  // A picker closes on its own once a day is chosen; one that stays open is closed as a person does.
  if (!(await waitFor(async () => (await readGrid(target)) === null, 1000))) await close();
  const texts = await shownTexts(target);
  let found: DateParts[] | undefined;
  for (const text of texts) {
    found = datesIn(text)[0];
    if (found) break;
  }
  const showing = texts[0] ?? '';
  if (!found)
    throw new AgentFailure(
      `'${target.label}' shows '${showing}' after choosing '${cell.name}' in its calendar; no date was read back`,
    );
  if (found.length !== 1 || !sameDay(found[0] as DateParts, goal))
    throw new AgentFailure(
      `'${target.label}' shows '${showing}' after choosing '${cell.name}' in its calendar, not ${isoDate(goal)}; the value was not placed`,
    );
  const iso = isoDate(goal);
  return { shown: iso, how: asText(value) === iso ? 'exact' : 'normalised' };
}
