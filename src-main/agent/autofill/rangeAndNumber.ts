// Two value shapes a single text input can hold, read by their meaning (docs/autofill.md):
// - a formatted number ("$12,500", "3,250.00", "12 500 kg"): the number it means;
// - a date range in one input ("03/01/2027 – 08/31/2027"): its first and last day.
// Pure: used to type the value, and to read back what the input shows.
import { dateFormatFromHint, formatDate, parseDateValue, type DateParts } from './dates.ts';

/**
 * The number a formatted text means, or null when it is not one number: currency signs, units and
 * spaces around it are dropped; "," followed by groups of three digits (or "." when "," is the
 * decimal mark later on) are thousand separators. "1,5" (a decimal comma) is read as 1.5 only when
 * the text has no other separator and the digits after it are not a group of three.
 */
export function numericMeaning(text: string): number | null {
  const core = text
    .trim()
    .replace(/^[^\d\-.,]+/, '')
    .replace(/[^\d.,]+$/, '')
    .replace(/[\s\u00a0\u202f']/g, '');
  if (!/^-?[\d.,]*\d[\d.,]*$/.test(core)) return null;
  const lastComma = core.lastIndexOf(',');
  const lastDot = core.lastIndexOf('.');
  let normal: string;
  if (lastComma >= 0 && lastDot >= 0) {
    // The later one is the decimal mark; the other groups thousands.
    const [group, decimal] = lastComma > lastDot ? [/\./g, ','] : [/,/g, '.'];
    normal = core.replace(group, '').replace(decimal, '.');
  } else if (lastComma >= 0) {
    normal = /^-?\d{1,3}(,\d{3})+$/.test(core)
      ? core.replace(/,/g, '')
      : /^-?\d+,\d+$/.test(core)
        ? core.replace(',', '.')
        : '';
  } else {
    normal = /^-?\d{1,3}(\.\d{3}){2,}$/.test(core) ? core.replace(/\./g, '') : core;
  }
  if (!/^-?\d+(\.\d+)?$/.test(normal)) return null;
  return Number(normal);
}

/** The number a form_data value gives, when it is a plain number (12500, "12500", "12500.5"). */
export function plainNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return null;
}

/** How one input wants a date range written: the date format and what stands between the two dates. */
export interface RangeFormat {
  format: string;
  separator: string;
}

const TOKEN = '(?:dd|d|mm|m|yyyy|yy)';
const RANGE_HINT = new RegExp(
  `\\b(${TOKEN}([/.\\-])${TOKEN}\\2${TOKEN})(\\s*(?:–|—|-|to|until)\\s*)(${TOKEN}([/.\\-])${TOKEN}\\5${TOKEN})\\b`,
  'i',
);

/** The range format a hint shows ("MM/DD/YYYY – MM/DD/YYYY"), or null when the hint is not of a date range. */
export function rangeFormatFromHint(text: string): RangeFormat | null {
  const m = RANGE_HINT.exec(text);
  if (!m) return null;
  const format = dateFormatFromHint(m[1] as string);
  const second = dateFormatFromHint(m[4] as string);
  if (!format || format !== second) return null;
  return { format, separator: m[3] as string };
}

export interface DateRangeValue {
  start: DateParts;
  end: DateParts;
}

const START =
  /^(start|from|begin|beginning|first|first_day|start_date|from_date|check_in|checkin|arrival|departure_date)$/i;
const END = /^(end|to|until|finish|last|last_day|end_date|to_date|check_out|checkout|return_date)$/i;

/** Which end of a range a key names ("start", "from", "check_in" → start), or null. */
export function rangeEnd(name: string): 'start' | 'end' | null {
  if (START.test(name)) return 'start';
  if (END.test(name)) return 'end';
  return null;
}

/** A date range from form_data: `{start, end}` (or from/to…), or "2027-03-01/2027-08-31"; null otherwise or when it ends before it starts. */
export function dateRangeValue(value: unknown): DateRangeValue | null {
  let start: DateParts | null = null;
  let end: DateParts | null = null;
  if (typeof value === 'string') {
    const parts = value.split(/\s*(?:\/(?=\d{4}-)|–|—|\bto\b)\s*/);
    if (parts.length === 2) [start, end] = [parseDateValue(parts[0]), parseDateValue(parts[1])];
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length !== 2) return null;
    for (const [k, v] of entries) {
      const which = rangeEnd(k);
      if (which === 'start') start = parseDateValue(v);
      else if (which === 'end') end = parseDateValue(v);
    }
  }
  if (!start || !end) return null;
  const key = (d: DateParts): number => d.year * 10000 + d.month * 100 + d.day;
  return key(start) <= key(end) ? { start, end } : null;
}

/** The text one range input takes for `range`. */
export function formatDateRange(range: DateRangeValue, f: RangeFormat): string {
  return `${formatDate(range.start, f.format)}${f.separator}${formatDate(range.end, f.format)}`;
}

/** Does what a range input shows mean `range`? (Separators and spacing may differ; the days may not.) */
export function showsDateRange(shown: string, range: DateRangeValue, f: RangeFormat): boolean {
  const parts = shown.split(/\s*(?:–|—|\bto\b|\buntil\b|\s-\s)\s*/).filter(Boolean);
  if (parts.length !== 2) return false;
  const same = (text: string, d: DateParts): boolean =>
    formatDate(d, f.format) === text.trim() ||
    formatDate(d, f.format.replace(/DD/, 'D').replace(/MM/, 'M')) === text.trim();
  return same(parts[0] as string, range.start) && same(parts[1] as string, range.end);
}
