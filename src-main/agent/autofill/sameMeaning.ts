// One pure comparison, used twice: when a value is read back from the control it was typed into, and
// when the submission request is checked before it leaves (submissionCheck.ts). It says whether two
// texts carry the same value, whatever the format: a phone's digits (a country code or trunk 0 may be
// added or dropped, never a digit changed), the same date or time in any format (12/24 h included),
// the same number, the same option (by its value or its label), and free text equal up to case,
// spacing and punctuation. Masks and formats pass; changed digits, another date or another option never.

import { dateReadings, type DateParts } from './dates.ts';
import { valueSynonyms } from './lexicon.ts';
import { findChoice, type ChoiceLike } from './valueAdapter.ts';

/**
 * `same`: the meaning is intact; `different`: it changed (a digit, a date, an option); `unknown`: a
 * choice went out as a code the page never showed (a custom list's option value: "vscode" for "Visual
 * Studio Code") and no lexicon names it either — it cannot be verified, and it is not another option.
 */
export type Meaning = 'same' | 'different' | 'unknown';

export interface MeaningHints {
  /** The control's options (a choice must come out as the option the value names, by value or label). */
  options?: ChoiceLike[];
  /** The control is a choice (a combobox or listbox) even when its options were not seen. */
  choice?: boolean;
}

/**
 * A choice sent as a code: one the lexicon names ("OR" = Oregon, "DE" = Germany) is the chosen label's or
 * another's; any other single token ("vscode") is `unknown`. Null when `actual` is no code (text, a date, digits).
 */
function codeMeaning(label: string, actual: string, others: string[]): Meaning | null {
  const codes = valueSynonyms(actual);
  if (codes.size) {
    if ([...valueSynonyms(label)].some((id) => codes.has(id))) return 'same';
    if (others.some((other) => [...valueSynonyms(other)].some((id) => codes.has(id)))) return 'different';
  }
  return /^[\p{L}\p{N}_.:/+-]{1,64}$/u.test(actual.trim()) && !dateAndTime(actual) && !isDigitString(actual)
    ? 'unknown'
    : null;
}

const collapse = (text: string): string => text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
/** Case, spacing and punctuation dropped (letters and digits of any script kept). */
const bare = (text: string): string => collapse(text).replace(/[^\p{L}\p{N}]+/gu, '');
const digitsOf = (text: string): string => text.replace(/\D/g, '');

/** Only digits and the separators phone numbers, IDs and masks use ("+1 (503) 555-0182", "123 45 6789"). */
function isDigitString(text: string): boolean {
  return /^\+?[\d\s().\-/]+$/.test(text.trim()) && digitsOf(text).length >= 4;
}

/** Same phone number: equal digits, or equal once a "+CC"/"00CC" country code and a trunk 0 are set aside. */
export function samePhone(given: string, actual: string): boolean {
  const a = digitsOf(given);
  const b = digitsOf(actual);
  if (!a || !b) return false;
  if (a === b) return true;
  const national = (text: string, digits: string): string[] => {
    const out = [digits];
    const plus = text.trim().startsWith('+') ? digits : text.trim().startsWith('00') ? digits.slice(2) : '';
    if (plus) for (const cc of [1, 2, 3]) out.push(plus.slice(cc));
    return out.flatMap((d) => (d.startsWith('0') ? [d, d.slice(1)] : [d]));
  };
  const as = new Set(national(given, a).filter((d) => d.length >= 6));
  return national(actual, b).some((d) => d.length >= 6 && as.has(d));
}

/** Minutes since midnight of a time ("15:00", "3:00 PM", "3 pm", "15.00", "T15:00:00"), or null. */
export function timeOfDay(text: string): number | null {
  const m =
    /^(\d{1,2})(?:[:.h](\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m?\.?$/i.exec(text.trim()) ??
    /^(\d{1,2})[:.h](\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(text.trim());
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  const half = m[4]?.toLowerCase();
  if (minute > 59 || hour > 24) return null;
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  }
  return (hour % 24) * 60 + minute;
}

/** A date (and time, when one is written) in any format: ISO, "2026-03-27T15:00", "27/03/2026 3:00 PM", "March 27, 2026". */
function dateAndTime(text: string): { dates: DateParts[]; time: number | null } | null {
  const t = text.trim();
  const iso = /^(\d{4}-\d{2}-\d{2})[T ](\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:Z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (iso) return { dates: dateReadings(iso[1]), time: timeOfDay(iso[2] as string) };
  const whole = dateReadings(t);
  if (whole.length) return { dates: whole, time: null };
  // A date followed (or preceded) by a time: "27/03/2026 3:00 PM", "3:00 PM, 27 March 2026".
  const timed =
    /^(.*?)[,\s]+(?:at\s+)?(\d{1,2}(?:[:.]\d{2}){1,2}\s*(?:[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?)$/i.exec(t) ?? null;
  if (timed) {
    const dates = dateReadings((timed[1] as string).trim());
    const time = timeOfDay(timed[2] as string);
    if (dates.length && time !== null) return { dates, time };
  }
  const lead = /^(\d{1,2}(?:[:.]\d{2}){1,2}\s*(?:[ap]\.?m\.?)?)[,\s]+(.*)$/i.exec(t);
  if (lead) {
    const dates = dateReadings((lead[2] as string).trim());
    const time = timeOfDay(lead[1] as string);
    if (dates.length && time !== null) return { dates, time };
  }
  return null;
}

const sameDay = (a: DateParts, b: DateParts): boolean => a.year === b.year && a.month === b.month && a.day === b.day;

/** A number written with a currency sign, thousands separators or a unit ("£1,250.00", "50 kg"), or null. */
function numberIn(text: string): number | null {
  const t = text.trim();
  if (!/^[^\d]{0,4}-?[\d,.\s']+[^\d]{0,12}$/.test(t) || !/\d/.test(t)) return null;
  const core = /-?[\d][\d,.\s']*/.exec(t)?.[0].replace(/[\s']/g, '') ?? '';
  // "1,250.50" (comma groups) or "1.250,50" (dot groups); a lone comma with 1–2 digits after is a decimal comma.
  let normal = core;
  if (
    /,\d{1,2}$/.test(core) &&
    !/\.\d+,/.test(core) &&
    (core.match(/,/g) ?? []).length === 1 &&
    !/^\d{1,3}(,\d{3})+$/.test(core)
  )
    normal = core.replace(/\./g, '').replace(',', '.');
  else normal = core.replace(/,/g, '');
  const n = Number(normal);
  return Number.isFinite(n) ? n : null;
}

/**
 * Whether `actual` (what a control shows, or what a request carries) means what `given` (the
 * form_data value, or a human's answer) means. Decisive rules first: a choice by its option, a
 * date/time, a phone or other digit string, a number; free text last.
 */
export function sameMeaning(given: string, actual: string, hints: MeaningHints = {}): Meaning {
  if (given === actual || collapse(given) === collapse(actual)) return 'same';
  const options = hints.options?.filter((o) => o.label || o.value) ?? [];
  if (options.length) {
    const wanted = findChoice(given, options);
    if ('how' in wanted) {
      const option = options[wanted.index] as ChoiceLike;
      if (actual === option.value || collapse(actual) === collapse(option.label) || bare(actual) === bare(option.value))
        return 'same';
      // Another option, by value or label, is another answer; a text the options do not know falls to the rules below.
      if (options.some((o) => o !== option && (o.value === actual || collapse(o.label) === collapse(actual))))
        return 'different';
      // Options that show no value of their own (custom listboxes) are sent as codes the page keeps to itself.
      // (Values that tell no option apart — all empty, all 'on' — are no values either.)
      const ownValues =
        new Set(options.map((o) => o.value)).size === options.length &&
        options.some((o) => o.value && collapse(o.value) !== collapse(o.label));
      if (!ownValues) {
        const coded = codeMeaning(
          option.label,
          actual,
          options.filter((o) => o !== option).map((o) => o.label),
        );
        if (coded) return coded;
      }
    }
  }
  if (hints.choice && !options.length) {
    // A choice whose options were not seen (a list drawn only while open): the code alone decides.
    const coded = codeMeaning(given, actual, []);
    if (coded) return coded;
  }
  const givenDate = dateAndTime(given);
  const actualDate = dateAndTime(actual);
  if (givenDate || actualDate) {
    if (!givenDate || !actualDate) return 'different';
    const dayOk = givenDate.dates.some((g) => actualDate.dates.some((a) => sameDay(g, a)));
    // A date given as an ISO midnight ("2031-03-05T00:00:00Z") is that date; any other time must be kept.
    const timeOk = givenDate.time === actualDate.time || ((givenDate.time ?? 0) === 0 && (actualDate.time ?? 0) === 0);
    return dayOk && timeOk ? 'same' : 'different';
  }
  const givenTime = timeOfDay(given);
  const actualTime = timeOfDay(actual);
  if (givenTime !== null || actualTime !== null)
    return givenTime !== null && givenTime === actualTime ? 'same' : 'different';
  if (isDigitString(given) && isDigitString(actual)) return samePhone(given, actual) ? 'same' : 'different';
  const gn = numberIn(given);
  const an = numberIn(actual);
  if (gn !== null && an !== null) return gn === an ? 'same' : 'different';
  if (isDigitString(given) || isDigitString(actual))
    return digitsOf(given) === digitsOf(actual) && bare(given) === bare(actual) ? 'same' : 'different';
  return bare(given) === bare(actual) && bare(given) !== '' ? 'same' : 'different';
}
