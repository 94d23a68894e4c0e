// Pure value rules for the widgets of docs/autofill.md that change what a person types into what a
// control shows: masked inputs (digits into slots), time pickers (12/24 h), hierarchical choices
// (cascaders and tree selects: a path or a unique leaf), and the read-back comparison after a fill.
// No page access here: the fillers call these, and unit tests run them without a browser.
import { findChoice, type ChoiceLike } from './valueAdapter.ts';

/** The digit slots of a mask drawn as a template: "(___) ___-____", "(999) 999-9999", "###-##-####". Null when it is no digit mask. */
export function digitSlots(template: string): number | null {
  const t = template.trim();
  if (!t || !/^[\s_#9\-/().+]+$/.test(t)) return null;
  const slots = (t.match(/[_#9]/g) ?? []).length;
  // A 9-only template (PrimeReact's "(999) 999-9999") needs separators too, so a plain "999" example is not a mask.
  if (slots < 4 || (!/[_#]/.test(t) && !/[\s\-/().]/.test(t))) return null;
  return slots;
}

/**
 * The digits of `value` that fill `slots` digit slots with the meaning intact: all of its digits when
 * they fit exactly; for an international number ("+1 503 555 0182") into a national mask, the digits
 * after the country code, when the code stands apart ("+1 ", "+44-") or is the North American "+1".
 * Null otherwise: the value does not fit, and typing it would shift or drop digits.
 */
export function digitsForMask(value: string, slots: number): string | null {
  const digits = value.replace(/\D/g, '');
  if (digits.length === slots) return digits;
  const extra = digits.length - slots;
  const plus = /^\s*\+(\d{1,3})(?=[\s\-.()])/.exec(value);
  if (extra >= 1 && extra <= 3 && plus && plus[1] === digits.slice(0, extra)) return digits.slice(extra);
  if (extra === 1 && /^\s*\+1\d{10}\s*$/.test(value)) return digits.slice(1);
  return null;
}

export interface TimeOfDay {
  hour: number;
  minute: number;
}

/** A time of day from "15:00", "3:00 PM", "03:00 pm", "3 PM", "15:00:00", "9.30am"; null when it is none. */
export function parseTimeOfDay(text: string): TimeOfDay | null {
  const m = /^\s*(\d{1,2})(?:[:.h](\d{2}))?(?::(\d{2}))?\s*([ap])?\.?\s*(m\.?)?\s*$/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = m[2] ? Number(m[2]) : 0;
  const half = m[4]?.toLowerCase();
  if (!m[2] && !half) return null;
  if (minute > 59) return null;
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute };
}

/** Does a control's placeholder or hint ask for a 12-hour time ("hh:mm AM", "h:mm aa", "e.g. 3:30 pm")? */
export function wantsTwelveHour(hints: string): boolean {
  return /\bh{1,2}\s*:\s*mm\s*(a{1,2}|am\/pm|am|pm|tt|a)\b/i.test(hints) || /\b\d{1,2}:\d{2}\s*[ap]\.?m\b/i.test(hints);
}

/** A time written as a 12-hour control wants it ("15:00" → "03:00 PM"; `pad` false → "3:00 PM"). */
export function formatTwelveHour(t: TimeOfDay, pad = true): string {
  const h = t.hour % 12 === 0 ? 12 : t.hour % 12;
  return `${pad ? String(h).padStart(2, '0') : h}:${String(t.minute).padStart(2, '0')} ${t.hour < 12 ? 'AM' : 'PM'}`;
}

/** The path of a hierarchical value: "Europe > France > Paris", "Europe / France / Paris" or a list. */
export function valuePath(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
  if (typeof value !== 'string') return value === null || value === undefined ? [] : [String(value)];
  return value
    .split(/\s+[>/›»→]\s+|\s*›\s*|\s*»\s*|\s*→\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One selectable node of a hierarchy: its own label and the labels of its ancestors, outermost first. */
export interface PathNode {
  label: string;
  value: string;
  ancestors: string[];
}

/**
 * The node `value` names: a full path ("Europe > France > Paris", each step matched like an option),
 * or a single leaf label found exactly once in the whole tree. Several leaves with that name (Paris,
 * France and Paris, Texas) → -2, so the filler asks; none → -1. A partial path must still end at a
 * node and match every step it gives, in order, from the end ("France > Paris").
 */
export function findPathNode(value: unknown, nodes: PathNode[]): { index: number } | { index: -1 | -2 } {
  const path = valuePath(value);
  if (!path.length) return { index: -1 };
  const stepMatches = (want: string, label: string): boolean => 'how' in findChoice(want, [{ label, value: label }]);
  const hits = nodes
    .map((n, i) => ({ n, i }))
    .filter(({ n }) => {
      const full = [...n.ancestors, n.label];
      if (path.length > full.length) return false;
      const tail = full.slice(full.length - path.length);
      return tail.every((label, k) => stepMatches(path[k] as string, label));
    })
    .map(({ i }) => i);
  if (hits.length === 1) return { index: hits[0] as number };
  return { index: hits.length ? -2 : -1 };
}

/** How a read-back is compared: as digits (masked numbers), as a time of day, or as text. */
export type ReadBackKind = 'digits' | 'time' | 'text';

/**
 * Does what the control shows after a fill mean what was intended? Digits: the same digits in the same
 * order ("(503) 555-0182" = "5035550182"); time: the same time of day ("03:00 PM" = "15:00"); text: equal
 * ignoring case, spacing and punctuation. Kept in one pure function so it can give way to the shared
 * sameMeaning module.
 */
export function readBackMatches(kind: ReadBackKind, intended: string, shown: string): boolean {
  if (kind === 'digits') {
    const a = intended.replace(/\D/g, '');
    return a !== '' && a === shown.replace(/\D/g, '');
  }
  if (kind === 'time') {
    const a = parseTimeOfDay(intended);
    const b = parseTimeOfDay(shown);
    return !!a && !!b && a.hour === b.hour && a.minute === b.minute;
  }
  const norm = (s: string): string =>
    s
      .toLowerCase()
      .replace(/[\s\p{P}]+/gu, ' ')
      .trim();
  return norm(intended) === norm(shown);
}

/** Every one of `values` matched to a choice (multi-select): the indices, or the first value that matched none (-1) or several (-2). */
export function matchAll(
  values: unknown[],
  choices: ChoiceLike[],
): { indices: number[] } | { value: unknown; index: -1 | -2 } {
  const indices: number[] = [];
  for (const v of values) {
    const m = findChoice(v, choices);
    if (!('how' in m)) return { value: v, index: m.index };
    indices.push(m.index);
  }
  return { indices };
}

/** `digits` written into the digit slots of `template` ("(999) 999-9999" + "5035550182" → "(503) 555-0182"); null when the count differs. */
export function fillDigitSlots(template: string, digits: string): string | null {
  const slots = digitSlots(template);
  if (slots === null || slots !== digits.length || /\D/.test(digits)) return null;
  let i = 0;
  return [...template.trim()].map((ch) => (/[_#9]/.test(ch) ? (digits[i++] as string) : ch)).join('');
}
