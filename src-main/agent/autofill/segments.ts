// Sectioned date and time fields (one `role=spinbutton` per part inside one labelled group: React
// Aria's DateField/TimeField/DateRangePicker, MUI X's sectioned pickers): what each segment must
// show for a value, the keys a person types into it, and what the whole field shows when read back.
// Pure: the filler (controlFiller.ts) types the keys segment by segment and compares the reading.
import type { SegmentedField, SegmentFacts, SegmentKind } from '../injected/index.ts';
import { MONTHS, parseDateValue, type DateParts } from './dates.ts';
import { dateRangeValue } from './rangeAndNumber.ts';
import { parseTimeOfDay } from './widgetValues.ts';

/** What a sectioned field holds: a date, a time of day, both, or a range of two dates. */
export interface SegmentValue {
  date?: DateParts;
  time?: { hour: number; minute: number; second: number };
  /** The end of a date range (`date` is its start). */
  end?: DateParts;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
const iso = (d: DateParts): string => `${d.year}-${pad(d.month)}-${pad(d.day)}`;

/** A time of day with its seconds ("09:15", "9:15 AM", "09:15:30"). */
function timeOf(text: string): SegmentValue['time'] | null {
  const t = parseTimeOfDay(text);
  if (!t) return null;
  const seconds = /^\s*\d{1,2}[:.]\d{2}:(\d{2})/.exec(text);
  return { ...t, second: seconds ? Number(seconds[1]) : 0 };
}

/** "2026-12-14T14:30", "2026-12-14 14:30:00": a date and a time of day. */
function dateTimeOf(value: string): SegmentValue | null {
  const m = /^\s*(\d{4}-\d{1,2}-\d{1,2})[T ](\d{1,2}:\d{2}(?::\d{2})?)(?:\.\d+)?\s*$/.exec(value);
  if (!m) return null;
  const date = parseDateValue(m[1]);
  const time = timeOf(m[2] as string);
  return date && time ? { date, time } : null;
}

/** What `value` means for a field of this kind, or why the field cannot take it. */
export function segmentGoal(field: SegmentedField, value: unknown): { goal: SegmentValue } | { problem: string } {
  const text = typeof value === 'string' ? value : '';
  switch (field.kind) {
    case 'dateRange': {
      const range = dateRangeValue(value);
      return range
        ? { goal: { date: range.start, end: range.end } }
        : { problem: `'${show(value)}' is not a date range ({start, end}, start first)` };
    }
    case 'date': {
      const date = parseDateValue(text);
      return date ? { goal: { date } } : { problem: `'${show(value)}' is not a date (e.g. YYYY-MM-DD)` };
    }
    case 'time': {
      const time = timeOf(text);
      return time ? { goal: { time } } : { problem: `'${show(value)}' is not a time of day (e.g. 14:30)` };
    }
    case 'dateTime': {
      const both = dateTimeOf(text);
      return both ? { goal: both } : { problem: `'${show(value)}' is not a date and time (e.g. 2026-12-14T14:30)` };
    }
  }
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Whether the field draws its hours 1-12 beside an AM/PM segment. */
function twelveHour(list: SegmentFacts[]): boolean {
  return (
    list.some((s) => s.kind === 'dayPeriod') || list.some((s) => s.kind === 'hour' && s.max !== null && s.max <= 12)
  );
}

/** The number a segment must hold for `goal` (a day period: 0 for AM, 1 for PM). */
function partValue(kind: SegmentKind, part: number, goal: SegmentValue, twelve: boolean): number | null {
  const date = part === 1 ? goal.end : goal.date;
  const time = goal.time;
  switch (kind) {
    case 'year':
      return date ? date.year : null;
    case 'month':
      return date ? date.month : null;
    case 'day':
      return date ? date.day : null;
    case 'hour':
      return time ? (twelve ? time.hour % 12 || 12 : time.hour) : null;
    case 'minute':
      return time ? time.minute : null;
    case 'second':
      return time ? time.second : null;
    case 'dayPeriod':
      return time ? (time.hour < 12 ? 0 : 1) : null;
  }
}

export interface SegmentKeys {
  pid: string;
  kind: SegmentKind;
  /** Typed into the focused segment: digits padded to the segment's width, or "A"/"P" for a day period. */
  keys: string;
}

/**
 * The keys a person types into each segment for `goal`, in the field's order: every part the field
 * has must have a value, or nothing is typed (a date into a time field is a problem, not half a fill).
 */
export function segmentKeys(field: SegmentedField, goal: SegmentValue): { keys: SegmentKeys[] } | { problem: string } {
  const twelve = twelveHour(field.list);
  const out: SegmentKeys[] = [];
  for (const s of field.list) {
    const n = partValue(s.kind, s.part, goal, twelve);
    if (n === null)
      return { problem: `the field has a ${s.kind === 'dayPeriod' ? 'AM/PM' : s.kind} part the value does not give` };
    if (s.kind === 'dayPeriod') {
      out.push({ pid: s.pid, kind: s.kind, keys: n === 0 ? 'A' : 'P' });
      continue;
    }
    // A year of four digits into a segment that holds two (max 99) would lose its century: refused.
    const width = s.max !== null && s.max >= 1 ? String(Math.trunc(s.max)).length : s.kind === 'year' ? 4 : 2;
    // (An hour's range moves with AM/PM in some fields — 12 to 23 once PM is set — so only its width is checked.)
    const ranged = s.kind !== 'hour' && s.kind !== 'year';
    if (
      String(n).length > width ||
      (ranged && s.min !== null && n < s.min) ||
      (ranged && s.max !== null && n > s.max)
    ) {
      return { problem: `${n} does not fit the ${s.kind} part of the field (${s.min ?? '?'} to ${s.max ?? '?'})` };
    }
    out.push({ pid: s.pid, kind: s.kind, keys: pad(n, s.kind === 'year' ? Math.max(width, 4) : width) });
  }
  return { keys: out };
}

/** What one segment shows now, read back after typing. */
export interface SegmentReading {
  kind: SegmentKind;
  part: number;
  text: string;
  now: number | null;
  valueText: string;
}

/** The number a segment shows: its digits, else a month's name, else its aria-valuenow; null when empty or unreadable. */
function shownNumber(r: SegmentReading): number | null {
  const text = r.text.replace(/[\u2066-\u2069\u200e\u200f]/g, '').trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (r.kind === 'month' && /^[a-z]{3,}\.?$/i.test(text)) {
    const w = text.toLowerCase().replace(/\.$/, '');
    const index = MONTHS.findIndex((m) => m.startsWith(w));
    if (index >= 0) return index + 1;
  }
  // A segment showing its placeholder ("mm", "––") has no aria-valuenow.
  return r.now;
}

/** AM (0) or PM (1) as the day-period segment shows it; null when it shows neither. */
function shownPeriod(r: SegmentReading): number | null {
  for (const t of [r.text, r.valueText]) {
    if (/^a\.?\s?m\.?$/i.test(t.trim())) return 0;
    if (/^p\.?\s?m\.?$/i.test(t.trim())) return 1;
  }
  return null;
}

/** What the field shows, read from its segments; null when a part is empty or unreadable. */
export function readSegments(field: SegmentedField, readings: SegmentReading[]): SegmentValue | null {
  const twelve = twelveHour(field.list);
  const parts: Array<Partial<Record<SegmentKind, number>>> = [{}, {}];
  for (const r of readings) {
    const n = r.kind === 'dayPeriod' ? shownPeriod(r) : shownNumber(r);
    if (n === null) return null;
    (parts[r.part] as Partial<Record<SegmentKind, number>>)[r.kind] = n;
  }
  const dateOf = (p: Partial<Record<SegmentKind, number>>): DateParts | undefined =>
    p.year !== undefined && p.month !== undefined && p.day !== undefined
      ? { year: p.year, month: p.month, day: p.day }
      : undefined;
  const first = parts[0] as Partial<Record<SegmentKind, number>>;
  const out: SegmentValue = {};
  const date = dateOf(first);
  if (date) out.date = date;
  if (field.kind === 'dateRange') {
    const end = dateOf(parts[1] as Partial<Record<SegmentKind, number>>);
    if (end) out.end = end;
  }
  if (first.hour !== undefined && first.minute !== undefined) {
    let hour = first.hour;
    if (twelve) {
      if (first.dayPeriod === undefined || hour < 1 || hour > 12) return null;
      hour = (hour % 12) + (first.dayPeriod === 1 ? 12 : 0);
    }
    out.time = { hour, minute: first.minute, second: first.second ?? 0 };
  }
  return out;
}

/** The value as one text: ISO date, "HH:MM" (":SS" when the field has seconds), both with a "T", or "start – end". */
export function segmentText(field: SegmentedField, v: SegmentValue): string {
  const seconds = field.list.some((s) => s.kind === 'second');
  const time = v.time ? `${pad(v.time.hour)}:${pad(v.time.minute)}${seconds ? `:${pad(v.time.second)}` : ''}` : '';
  switch (field.kind) {
    case 'date':
      return v.date ? iso(v.date) : '';
    case 'time':
      return time;
    case 'dateTime':
      return v.date && time ? `${iso(v.date)}T${time}` : '';
    case 'dateRange':
      return v.date && v.end ? `${iso(v.date)} – ${iso(v.end)}` : '';
  }
}

/** Whether what the field shows is the value meant (every part the field has). */
export function sameSegmentValue(field: SegmentedField, shown: SegmentValue | null, goal: SegmentValue): boolean {
  return !!shown && segmentText(field, shown) !== '' && segmentText(field, shown) === segmentText(field, goal);
}
