import { isFileObject, type Entry } from './entries.ts';
import { mayTakeTags, type Target } from './targets.ts';
import { conceptTokens, pageTokenWeights, textSimilarity, type TokenWeight } from './textNorm.ts';
import { dateReadings, parseMonthYear } from './dates.ts';
import { dateRangeValue } from './rangeAndNumber.ts';
import { segmentGoal } from './segments.ts';
import { sliderNumber } from './slider.ts';
import { parseTimeOfDay } from './widgetValues.ts';
import { asBoolean, findChoice, matchChoice, realChoices } from './valueAdapter.ts';

/** Below this a key and a control are unrelated. */
export const MATCH_THRESHOLD = 0.5;
/** Two candidates closer than this are indistinguishable. */
const AMBIGUITY_MARGIN = 0.06;

export interface Placement {
  entry: Entry;
  target: Target;
  score: number;
  /** Found by its values naming the control's options rather than by its name (see `placeByOptions`). */
  byOptions?: boolean;
}

export interface Ambiguity {
  entry: Entry;
  candidates: Target[];
}

function isDataUrl(value: unknown): boolean {
  return typeof value === 'string' && /^data:[^;,]*;base64,/.test(value);
}

function isFileValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every((v) => isFileObject(v) || isDataUrl(v));
  return isFileObject(value) || isDataUrl(value);
}

/** How well a value's kind suits a control: 0 never, 1 fully (a value naming none of its options a little less). */
export function compatibility(value: unknown, target: Target): number {
  const file = isFileValue(value);
  if (target.kind === 'file') return file ? 1 : 0;
  if (file) return 0;
  if (target.kind === 'slider') return sliderNumber(value) !== null ? 1 : 0;
  if (target.kind === 'dateRange') return dateRangeValue(value) ? 1 : 0;
  // A tag input takes a list of words or phrases (one value is one tag).
  if (target.kind === 'tags')
    return (Array.isArray(value) ? value : [value]).every((v) => typeof v === 'string' || typeof v === 'number')
      ? Array.isArray(value)
        ? 1
        : 0.9
      : 0;
  // A 12-hour time box with its AM/PM select takes a time of day, nothing else.
  if (target.meridiem) return typeof value === 'string' && parseTimeOfDay(value) ? 1 : 0;
  // A code of one character per box: any text or number (its length is checked when filled).
  if (target.kind === 'boxes') return typeof value === 'string' || typeof value === 'number' ? 1 : 0;
  // A calendar taking a range (two clicks) takes a range only; one taking a day, one date.
  if (target.kind === 'calendar')
    return target.controls[0]?.calendar?.range ? (dateRangeValue(value) ? 1 : 0) : dateReadings(value).length ? 1 : 0;
  if (target.kind === 'segments') {
    const field = target.controls[0]?.segments;
    return field && 'goal' in segmentGoal(field, value) ? 1 : 0;
  }
  // A {start, end} pair belongs in a range input only (its two dates also reach two inputs as two keys).
  if (dateRangeValue(value) && typeof value === 'object') return 0;
  if (target.kind === 'dateSplit')
    return dateReadings(value).length || (!target.dateParts?.day && parseMonthYear(value)) ? 1 : 0;
  if (Array.isArray(value)) {
    if (
      target.kind === 'checkboxGroup' ||
      ((target.kind === 'select' || target.kind === 'listbox') && target.controls[0]?.multiple)
    )
      return 1;
    // A list drawn only while open may take several choices (it says so once open: aria-multiselectable,
    // menuitemcheckbox items); the filler checks, and a list taking one choice asks or fails.
    if ((target.kind === 'listbox' || target.kind === 'combobox') && !target.choices.length) return 0.9;
    // A bare one-line text box may be a tag input showing no chip and no hint yet: the filler tries the
    // first value as a tag (Enter, then a comma) and asks or fails when no tag appears (controlFiller.ts).
    if (mayTakeTags(target) && value.length && value.every((v) => typeof v === 'string' || typeof v === 'number'))
      return 0.9;
    return 0.4;
  }
  if (typeof value === 'boolean')
    return target.kind === 'checkbox' || target.kind === 'radio'
      ? 1
      : target.kind === 'select' || target.kind === 'listbox'
        ? 0.9
        : 0.3;
  if (target.kind === 'checkbox')
    return typeof value === 'string' && /^(yes|no|true|false|on|off|y|n|1|0)$/i.test(value) ? 1 : 0.3;
  // A value that is none of a choice control's options leans towards another control that has it,
  // but only as a tie-breaker: a key named for this control still lands here, and the filler then
  // asks which option is meant (or fails) instead of dropping the value.
  // (A listbox whose options only render when opened cannot tell, so it is not penalised.)
  if (
    target.kind === 'radio' ||
    target.kind === 'select' ||
    target.kind === 'checkboxGroup' ||
    (target.kind === 'listbox' && target.choices.length)
  ) {
    const values = Array.isArray(value) ? value : [value];
    const hits = values.filter((v) => matchChoice(v, target.choices) >= 0).length;
    if (hits === values.length) return 1;
    if (hits > 0) return 0.93;
    // A passport number, an email or a date is no answer to "Do you have a passport?" however the key reads.
    return values.some((v) => couldBeAnOption(v, target)) ? 0.85 : 0.5;
  }
  return 1;
}

function entryTexts(entry: Entry): Array<{ text: string; weight: number }> {
  const last = entry.path[entry.path.length - 1] ?? entry.key;
  const texts = [
    { text: last, weight: 1 },
    { text: entry.path.join(' '), weight: 0.98 },
  ];
  if (entry.title) texts.push({ text: entry.title, weight: 1 });
  if (entry.description) texts.push({ text: entry.description, weight: 0.7 });
  return texts;
}

/** Could `value` be meant as one of the target's options (a short word or phrase of the same sort)? */
function couldBeAnOption(value: unknown, target: Target): boolean {
  if (typeof value === 'boolean') return true;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!text || text.length > 40 || text.includes('@') || dateReadings(text).length) return false;
  const numeric = (t: string): boolean => /^[\d\s.,+-]+$/.test(t);
  return !numeric(text) || target.choices.some((c) => numeric(c.label) || numeric(c.value));
}

/** Raw name/id forms a nested key may take: `address.city`, `address[city]`, `address_city`, `city`. */
function exactNames(entry: Entry): Set<string> {
  const p = entry.path;
  const names = new Set([
    entry.key,
    p.join('_'),
    p.join('-'),
    p[0] +
      p
        .slice(1)
        .map((s) => `[${s}]`)
        .join(''),
  ]);
  if (p.length === 1) names.add(`${entry.key}[]`);
  return new Set([...names].map((n) => n.toLowerCase()));
}

/** Share (by weight) of the key's concept tokens found in the text: "confirm" is wholly inside "I confirm the details are correct". */
function coverage(key: string, text: string, weigh: TokenWeight = () => 1): number {
  const k = [...new Set(conceptTokens(key))];
  if (!k.length) return 0;
  const t = new Set(conceptTokens(text));
  const total = k.reduce((n, w) => n + weigh(w), 0);
  return k.filter((w) => t.has(w)).reduce((n, w) => n + weigh(w), 0) / total;
}

/** Score in [0, ~1.15] for putting `entry` into `target`; `weigh` is the page's token rarity. */
export function scoreMatch(entry: Entry, target: Target, weigh: TokenWeight = () => 1): number {
  const compat = compatibility(entry.value, target);
  if (compat === 0) return 0;
  let best = 0;
  // A yes/no going to a lone checkbox: the checkbox's label is a sentence ("I confirm the details are
  // correct"), so a key all of whose words it contains is a good match however long the sentence.
  const consent = target.kind === 'checkbox' && asBoolean(entry.value) !== null;
  for (const k of entryTexts(entry)) {
    for (const t of target.texts) {
      const similarity = textSimilarity(k.text, t.text, weigh);
      const s =
        (consent ? Math.max(similarity, 0.8 * coverage(k.text, t.text, weigh)) : similarity) * k.weight * t.weight;
      if (s > best) best = s;
    }
  }
  const first = target.controls[0];
  const names = exactNames(entry);
  const rawName = (first?.name ?? '').toLowerCase().replace(/\[\]$/, '');
  const rawId = (first?.id ?? '').toLowerCase();
  const dateBase = target.kind === 'dateSplit' ? rawName.replace(/[-_.[]?(day|dd|month|mm)\]?$/, '') : '';
  if (names.has(rawName) || names.has(rawId) || (dateBase && names.has(dateBase))) best = Math.max(best, 1.05);
  // Nested keys: the parent ("address") should show up around the control.
  if (entry.path.length > 1) {
    const parents = new Set(entry.path.slice(0, -1).flatMap((p) => conceptTokens(p)));
    const around = [...target.context, first?.name ?? '', first?.id ?? ''].flatMap((t) => conceptTokens(t));
    const hits = [...parents].filter((p) => around.includes(p)).length;
    if (parents.size) best += (0.2 * hits) / parents.size;
  }
  return best * compat;
}

/**
 * Assigns entries to free targets: strongest matches first, one target per entry; an entry whose
 * two best free candidates score within the margin is reported as ambiguous instead.
 */
export function matchEntries(entries: Entry[], targets: Target[]): { placements: Placement[]; ambiguous: Ambiguity[] } {
  const weigh = pageTokenWeights(targets.map((t) => t.texts.map((x) => x.text)));
  const scored = entries.map((entry) => ({
    entry,
    candidates: targets
      .map((target) => ({ target, score: scoreMatch(entry, target, weigh) }))
      .filter((c) => c.score >= MATCH_THRESHOLD)
      .sort((a, b) => b.score - a.score),
  }));
  scored.sort((a, b) => (b.candidates[0]?.score ?? 0) - (a.candidates[0]?.score ?? 0));
  const taken = new Set<string>();
  const placements: Placement[] = [];
  const ambiguous: Ambiguity[] = [];
  for (const { entry, candidates } of scored) {
    const free = candidates.filter((c) => !taken.has(c.target.id));
    const [top, second] = free;
    if (!top) continue;
    if (second && top.score - second.score < AMBIGUITY_MARGIN) {
      ambiguous.push({
        entry,
        candidates: free.filter((c) => top.score - c.score < AMBIGUITY_MARGIN).map((c) => c.target),
      });
      continue;
    }
    taken.add(top.target.id);
    placements.push({ entry, target: top.target, score: top.score });
  }
  const unmatched = scored.filter((s) => !s.candidates.length).map((s) => s.entry);
  placements.push(
    ...placeByOptions(
      unmatched,
      targets.filter((t) => !taken.has(t.id)),
      weigh,
    ),
  );
  return { placements, ambiguous };
}

const CHOICE_KINDS = new Set(['radio', 'select', 'checkboxGroup', 'listbox', 'combobox']);

/**
 * Keys whose name matched nothing, placed by their values: when every value is one of the options
 * (as given or normalised, not by synonym) of exactly one free choice control on the page, and
 * either several values say so together or the name shares something with the control. Yes/no
 * values are left out: many controls offer Yes and No.
 */
function placeByOptions(entries: Entry[], free: Target[], weigh: TokenWeight): Placement[] {
  const out: Placement[] = [];
  const used = new Set<string>();
  for (const entry of entries) {
    const values = Array.isArray(entry.value) ? entry.value : [entry.value];
    if (!values.length || values.some((v) => asBoolean(v) !== null || typeof v === 'object')) continue;
    const fits = free.filter(
      (t) =>
        CHOICE_KINDS.has(t.kind) &&
        !used.has(t.id) &&
        values.every((v) => {
          const match = findChoice(v, realChoices(t.choices));
          return 'how' in match && match.how !== 'synonym';
        }),
    );
    const [target] = fits;
    if (fits.length !== 1 || !target) continue;
    if (values.length < 2 && scoreMatch(entry, target, weigh) < 0.25) continue;
    used.add(target.id);
    out.push({ entry, target, score: MATCH_THRESHOLD, byOptions: true });
  }
  return out;
}

/**
 * Whether `entry` fits `target` beyond doubt when they are the last required key and control left:
 * the value names one of its options, is a date for a date, yes/no for a checkbox, a file for an
 * upload; a text box needs a word in common with the key, its title or description.
 */
export function eliminationFits(entry: Entry, target: Target): boolean {
  if (compatibility(entry.value, target) < 1) return false;
  switch (target.kind) {
    case 'radio':
    case 'select':
    case 'checkboxGroup':
    case 'listbox':
      return (Array.isArray(entry.value) ? entry.value : [entry.value]).every(
        (v) => 'how' in findChoice(v, target.choices),
      );
    case 'checkbox':
      return asBoolean(entry.value) !== null;
    case 'segments':
      return target.controls[0]?.segments?.kind !== 'date' || dateReadings(entry.value).length === 1;
    case 'calendar':
      if (target.controls[0]?.calendar?.range) return dateRangeValue(entry.value) !== null;
      return dateReadings(entry.value).length === 1;
    case 'date':
    case 'dateSplit':
      return (
        dateReadings(entry.value).length === 1 ||
        (target.kind === 'dateSplit' && !target.dateParts?.day && parseMonthYear(entry.value) !== null)
      );
    case 'file':
      return true;
    default:
      return entryTexts(entry).some((k) =>
        target.texts.some((t) => coverage(k.text, t.text) > 0 || coverage(t.text, k.text) > 0),
      );
  }
}
