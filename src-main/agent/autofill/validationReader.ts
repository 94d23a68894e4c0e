import type { Frame } from 'playwright-core';

import type { Entry } from './entries.ts';
import type { FrameScan } from './frameScan.ts';
import type { Target } from './targets.ts';
import { DATE_FORMATS, dateFormatFromHint, formatDate, parseDateValue } from './dates.ts';
import { phoneVariants } from './valueAdapter.ts';

/** A validation message the page shows, tied to the target it is about when that can be told. */
export interface PageError {
  text: string;
  target: Target | null;
}

/**
 * Reads validation messages: error-summary links (GOV.UK style), inline messages next to fields
 * (aria-errormessage, aria-describedby errors, `.error` elements in the field's group), and
 * HTML5 constraint messages of `onlyInvalid` controls (the ones the agent filled).
 */
export function readErrors(
  frames: Array<{ frame: Frame; scan: FrameScan }>,
  targets: Target[],
  constraintPids: Set<string> = new Set(),
): PageError[] {
  const byPid = new Map<string, Target>();
  for (const t of targets) for (const c of t.controls) byPid.set(c.pid, t);
  const found = new Map<string, PageError>();
  const general: PageError[] = [];
  const add = (target: Target | null, text: string): void => {
    const clean = text.replace(/^error:\s*/i, '').trim();
    if (!clean) return;
    if (!target) {
      if (!general.some((g) => g.text === clean)) general.push({ text: clean, target: null });
      return;
    }
    const known = found.get(target.id);
    if (!known) found.set(target.id, { text: clean, target });
    else if (!known.text.includes(clean)) known.text = `${known.text} ${clean}`;
  };
  for (const { scan } of frames) {
    for (const e of scan.errors) add(e.targetPid ? (byPid.get(e.targetPid) ?? null) : null, e.text);
    for (const c of scan.controls) {
      const target = byPid.get(c.pid) ?? null;
      if (c.errorText && target) add(target, c.errorText);
      if (!c.valid && c.validationMessage && constraintPids.has(c.pid)) add(target, c.validationMessage);
    }
  }
  return [...found.values(), ...general];
}

/** What to change before refilling a rejected value. */
export interface Correction {
  value?: unknown;
  dateFormat?: string;
  note: string;
}

/**
 * The next thing to try for an entry the page rejected, or null when out of ideas: another date
 * format (one named in the message first), another phone spelling, spaces stripped.
 */
export function nextCorrection(
  entry: Entry,
  target: Target,
  message: string,
  tried: Set<string>,
  settled?: unknown,
): Correction | null {
  const value = entry.value;
  // `settled`: the value in use after a human or the schema settled an ambiguous date.
  const date = parseDateValue(value) ?? parseDateValue(settled);
  if (date && (target.kind === 'text' || target.kind === 'combobox')) {
    const hinted = dateFormatFromHint(message);
    const formats = hinted ? [hinted, ...DATE_FORMATS] : DATE_FORMATS;
    // `rendered:` entries are what was already typed, so a format giving the same text is skipped.
    const next = formats.find((f) => !tried.has(`date:${f}`) && !tried.has(`rendered:${formatDate(date, f)}`));
    if (next) {
      tried.add(`date:${next}`);
      return { dateFormat: next, note: `date as ${next}` };
    }
    return null;
  }
  if (typeof value !== 'string') return null;
  const candidates: Array<[string, string]> = [];
  const c = target.controls[0];
  if (c?.type === 'tel' || /phone|mobile|tel/i.test(`${target.label} ${entry.key}`)) {
    for (const v of phoneVariants(value)) candidates.push([v, 'phone number respelled']);
  }
  // What the message asks for first: "use capital letters" is tried before dropping spaces.
  if (/upper|capital/i.test(message)) candidates.push([value.toUpperCase(), 'upper case']);
  if (/\s/.test(value)) candidates.push([value.replace(/\s+/g, ''), 'spaces removed']);
  if (value !== value.trim()) candidates.push([value.trim(), 'trimmed']);
  for (const [candidate, note] of candidates) {
    if (!tried.has(`value:${candidate}`) && !tried.has(`rendered:${candidate}`)) {
      tried.add(`value:${candidate}`);
      return { value: candidate, note };
    }
  }
  return null;
}
