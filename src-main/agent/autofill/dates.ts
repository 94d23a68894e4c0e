// Dates as form_data gives them (ISO, "10 December 1990", "Dec 10, 1990", "10/12/1990"…) and the
// format a text date field wants (named in a hint, shown in an example, implied by a pattern or
// by the page's language).

import { type LinearRegExp, linearRegExp } from '../../base/linearRegExp.ts';

export interface DateParts {
  year: number;
  month: number;
  day: number;
}

/** Which number comes first in a numeric date: the day (10/12 = 10 December) or the month. */
export type DateOrder = 'DMY' | 'MDY';

export const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const WEEKDAYS = /^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|nesday|sday|urday)?$/i;

function valid(d: DateParts): boolean {
  if (!Number.isInteger(d.year) || d.month < 1 || d.month > 12 || d.day < 1) return false;
  return d.day <= new Date(Date.UTC(d.year, d.month, 0)).getUTCDate();
}

function fullYear(text: string): number {
  if (text.length !== 2) return Number(text);
  // Two-digit years: the next ten years are this century, anything later the last one.
  const yy = Number(text);
  const now = new Date().getUTCFullYear() % 100;
  return yy <= now + 10 ? 2000 + yy : 1900 + yy;
}

/** The month a word names ("December", "dec", "Sept."), or 0. */
function monthOf(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return 0;
  const index = MONTHS.findIndex((m) => m === w || m.startsWith(w));
  return index + 1;
}

/**
 * Every reading of a date value: none for a non-date, one when unambiguous, two for a numeric
 * date like 10/12/1990 that is valid both day-first and month-first.
 */
export function dateReadings(value: unknown): DateParts[] {
  if (typeof value !== 'string') return [];
  const text = value.trim();
  // ISO date or date-time (the date part is what the person means, whatever the offset).
  const iso = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (iso) {
    const d = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    return valid(d) ? [d] : [];
  }
  const numeric = /^(\d{1,2})([/.\- ])(\d{1,2})\2(\d{4}|\d{2})$/.exec(text);
  if (numeric) {
    const a = Number(numeric[1]);
    const b = Number(numeric[3]);
    const year = fullYear(numeric[4] as string);
    const dmy = { year, month: b, day: a };
    // Dotted dates are day-first wherever they are written (de, ru, pl…).
    if (numeric[2] === '.') return valid(dmy) ? [dmy] : [];
    const mdy = { year, month: a, day: b };
    const out = [dmy, mdy].filter(valid);
    return a === b ? out.slice(0, 1) : out;
  }
  // Month names: "10 December 1990", "Dec 10, 1990", "10-Dec-1990", "Monday 10th December 1990".
  const tokens = text
    .split(/[\s,/-]+/)
    .filter((t) => t && !WEEKDAYS.test(t.replace(/[.,]$/, '')) && !/^(the|of)$/i.test(t));
  if (tokens.length !== 3) return [];
  let month = 0;
  let day = 0;
  let year = 0;
  for (const token of tokens) {
    const num = /^(\d{1,4})(st|nd|rd|th)?\.?$/i.exec(token);
    if (num) {
      const digits = num[1] as string;
      if (digits.length === 4 || (digits.length === 2 && day)) year = fullYear(digits);
      else if (!day) day = Number(digits);
      else return [];
    } else {
      const m = monthOf(token);
      if (!m || month) return [];
      month = m;
    }
  }
  const d = { year, month, day };
  return year && month && day && valid(d) ? [d] : [];
}

/** A month and year without a day ("2019-05", "05/2019", "May 2019"), or null. */
export function parseMonthYear(value: unknown): { year: number; month: number } | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const iso = /^(\d{4})[-/.](\d{1,2})$/.exec(text);
  const numeric = /^(\d{1,2})[-/. ](\d{4})$/.exec(text);
  const named = /^([A-Za-z]{3,9})\.?,? (\d{4})$/.exec(text);
  const [year, month] = iso
    ? [Number(iso[1]), Number(iso[2])]
    : numeric
      ? [Number(numeric[2]), Number(numeric[1])]
      : named
        ? [Number(named[2]), monthOf(named[1] as string)]
        : [0, 0];
  return year && month >= 1 && month <= 12 ? { year, month } : null;
}

/** The one reading of a date value (`order` settles day/month ambiguity), or null. */
export function parseDateValue(value: unknown, order?: DateOrder): DateParts | null {
  const readings = dateReadings(value);
  if (readings.length === 1) return readings[0] as DateParts;
  if (readings.length === 2 && order) return readings[order === 'DMY' ? 0 : 1] as DateParts;
  return null;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function isoDate(d: DateParts): string {
  return `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
}

/** Formats a date after a pattern made of DD, D, MM, M, MMMM, MMM, YYYY, YY and separators. */
export function formatDate(d: DateParts, pattern: string): string {
  return pattern.replace(/YYYY|YY|MMMM|MMM|MM|M|DD|D/g, (token) => {
    switch (token) {
      case 'YYYY':
        return String(d.year);
      case 'YY':
        return pad(d.year % 100);
      case 'MMMM': {
        const m = MONTHS[d.month - 1] ?? '';
        return m.charAt(0).toUpperCase() + m.slice(1);
      }
      case 'MMM': {
        const m = MONTHS[d.month - 1] ?? '';
        return m.charAt(0).toUpperCase() + m.slice(1, 3);
      }
      case 'MM':
        return pad(d.month);
      case 'M':
        return String(d.month);
      case 'DD':
        return pad(d.day);
      default:
        return String(d.day);
    }
  });
}

/** The order tried when a text date field gives no format hint, or rejects what was typed. */
export const DATE_FORMATS = ['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'D MMMM YYYY', 'DD.MM.YYYY', 'DD-MM-YYYY'];

/** Finds a date format named in hint text ("DD/MM/YYYY", "mm-dd-yyyy", "jj/mm/aaaa" is not handled). */
export function dateFormatFromHint(text: string): string | null {
  const m = /\b(dd|d|mm|m|yyyy|yy)([/.\- ])(dd|d|mm|m|mmmm|mmm)\2(yyyy|yy|dd|d)\b/i.exec(text);
  if (m) return `${m[1]}${m[2]}${m[3]}${m[2]}${m[4]}`.toUpperCase();
  const iso = /\byyyy-mm-dd\b/i.exec(text);
  return iso ? 'YYYY-MM-DD' : null;
}

/** The order a schema title/description/format names ("DD/MM/YYYY", "day first"), or null. */
export function dateOrderFromHint(text: string): DateOrder | null {
  const format = dateFormatFromHint(text);
  if (format && !format.startsWith('Y')) return format.startsWith('D') ? 'DMY' : 'MDY';
  if (/\bday[- ]first\b|\beuropean\b|\bbritish\b/i.test(text)) return 'DMY';
  if (/\bmonth[- ]first\b|\b(us|american) (date|format)\b/i.test(text)) return 'MDY';
  return null;
}

/**
 * The format an example date shows ("For example, 27 3 2007" → D M YYYY, "e.g. 03/27/2007" →
 * MM/DD/YYYY, "31 December 1980" → D MMMM YYYY). An example readable both ways uses `order`.
 */
export function dateFormatFromExample(text: string, order: DateOrder | null): string | null {
  const named =
    /\b(\d{1,2})(?:st|nd|rd|th)? ([A-Z][a-z]{2,8})\.? (\d{4})\b|\b([A-Z][a-z]{2,8})\.? (\d{1,2}), (\d{4})\b/.exec(text);
  if (named) {
    const word = (named[2] ?? named[4]) as string;
    if (monthOf(word)) {
      const mon = word.length <= 4 ? 'MMM' : 'MMMM';
      return named[2] ? `D ${mon} YYYY` : `${mon} D, YYYY`;
    }
  }
  const iso = /\b(\d{4})([/.-])(\d{1,2})\2(\d{1,2})\b/.exec(text);
  if (iso)
    return `YYYY${iso[2]}${(iso[3] as string).length === 2 ? 'MM' : 'M'}${iso[2]}${(iso[4] as string).length === 2 ? 'DD' : 'D'}`;
  const m = /\b(\d{1,2})([/.\- ])(\d{1,2})\2(\d{4})\b/.exec(text);
  if (!m) return null;
  const [a, sep, b] = [m[1] as string, m[2] as string, m[3] as string];
  const dayFirst = Number(a) > 12 ? true : Number(b) > 12 ? false : sep === '.' ? true : order ? order === 'DMY' : null;
  if (dayFirst === null) return null;
  // Padding: a leading zero says padded, a single digit says not; two-digit numbers above 9 follow the other part.
  const padded = /^0/.test(a) || /^0/.test(b) ? true : a.length === 1 || b.length === 1 ? false : true;
  const [dd, mm] = padded ? ['DD', 'MM'] : ['D', 'M'];
  return dayFirst ? `${dd}${sep}${mm}${sep}YYYY` : `${mm}${sep}${dd}${sep}YYYY`;
}

const LANG_FORMATS: Array<[RegExp, string]> = [
  [/^en-(us|ph)$|^fil/, 'MM/DD/YYYY'],
  [/^en-(ca|za)$|^(sv|lt|hu|ja|zh|ko|fr-ca)\b/, 'YYYY-MM-DD'],
  [/^(de|ru|pl|cs|sk|fi|nb|no|nn|da|tr|uk|ro|hr|sl|et|lv|bg|sr|is)\b/, 'DD.MM.YYYY'],
  [/^nl\b/, 'DD-MM-YYYY'],
  [/^en-(gb|ie|au|nz|in)$|^(fr|es|it|pt|el|ca|ga|cy|vi|id|ms|he|ar)\b/, 'DD/MM/YYYY'],
];

/** The usual numeric date format of a language tag (`en-GB`, `de`), or null when it does not say (`en`). */
export function dateFormatForLang(lang: string): string | null {
  const tag = lang.trim().toLowerCase().replace(/_/g, '-');
  for (const [test, format] of LANG_FORMATS) if (test.test(tag)) return format;
  return null;
}

/** The first of `formats` whose rendering of a sample date satisfies an input's `pattern`. */
export function dateFormatFromPattern(pattern: string, formats: string[]): string | null {
  if (!pattern) return null;
  let re: LinearRegExp;
  try {
    // Valid as a browser reads it (the `v` flag), and run on RE2 so a page's pattern cannot backtrack.
    new RegExp(pattern, 'v');
    re = linearRegExp(pattern, { anchored: true });
  } catch {
    return null;
  }
  const sample = { year: 2031, month: 11, day: 23 };
  return formats.find((f) => re.test(formatDate(sample, f))) ?? null;
}

/** Does this text look like a date field's label? */
export function looksLikeDateField(text: string): boolean {
  return /\bdate\b|\bdob\b|birth|\bdd\s*[/.-]\s*mm|\bmm\s*[/.-]\s*dd|yyyy/i.test(text);
}
