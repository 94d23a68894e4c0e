import { linearRegExp } from '../../base/linearRegExp.ts';
import { isFileObject } from './entries.ts';
import { MONTHS } from './dates.ts';
import { foldAccents, normaliseText, valueSynonyms } from './lexicon.ts';
import { conceptTokens, loose } from './textNorm.ts';

export {
  DATE_FORMATS,
  dateFormatFromHint,
  formatDate,
  looksLikeDateField,
  MONTHS,
  parseDateValue,
  type DateParts,
} from './dates.ts';

const TRUE_WORDS = new Set(['yes', 'true', 'y', '1', 'on', 'checked', 'agree', 'agreed', 'accept', 'accepted', 'x']);
const FALSE_WORDS = new Set(['no', 'false', 'n', '0', 'off', 'unchecked', '']);

/** A boolean from `true`, "yes", "on"…; null when the value is not boolean-like. */
export function asBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (TRUE_WORDS.has(v)) return true;
    if (FALSE_WORDS.has(v)) return false;
  }
  return null;
}

/** A scalar as text for a text box. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(asText).join(', ');
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

export interface ChoiceLike {
  label: string;
  value: string;
}

/** How a value was put into a control: as given, adapted without changing meaning, through the lexicon, or as a human said. */
export type PlacementHow = 'exact' | 'normalised' | 'synonym' | 'answer';

type MatchHow = Exclude<PlacementHow, 'answer'>;

export type ChoiceMatch = { index: number; how: MatchHow } | { index: -1 | -2 };

const PLACEHOLDER =
  /^[\s\p{P}]*(choose|select|please (choose|select)|pick|none selected|not selected)\b|^[\s\p{P}]*$|\.\.\.$|…$/iu;

/** A "Choose…"/"-- Select --" entry, which is no answer at all. */
export function isPlaceholderChoice(choice: ChoiceLike, index: number): boolean {
  return PLACEHOLDER.test(choice.label.trim()) && (choice.value.trim() === '' || index === 0);
}

/** The options a person would choose between (placeholders left out), for questions and messages. */
export function realChoices<T extends ChoiceLike>(choices: T[]): T[] {
  return choices.filter((c, i) => !isPlaceholderChoice(c, i) && c.label.trim() !== '');
}

/** The option's name without what describes it: "United Kingdom (UK)" → "United Kingdom", "Superfast — 80 Mb" → "Superfast". */
function withoutParenthetical(text: string): string {
  return text.replace(/\([^)]*\)/g, ' ').split(/\s[—–-]\s|:\s/)[0] ?? '';
}

// Words that carry no meaning of their own in an option ("By phone", "Via email"); negations are never among them.
const OPTION_FILLER = new Set([
  'by',
  'via',
  'through',
  'using',
  'with',
  'per',
  'on',
  'in',
  'at',
  'from',
  'as',
  'to',
  'the',
  'a',
  'an',
  'of',
  'for',
  'i',
  'am',
  'my',
  'me',
  'we',
  'our',
  'is',
  'are',
  'be',
]);

function optionConcept(text: string): string {
  return conceptTokens(text)
    .filter((t) => !OPTION_FILLER.has(t))
    .join(' ');
}

function parenthetical(text: string): string {
  return /\(([^)]*)\)/.exec(text)?.[1] ?? '';
}

function asNumber(text: string): number | null {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/**
 * Picks the choice that means `value`, by rules that never change the meaning (docs/autofill.md):
 * 1. exact: the value is an option's label or value;
 * 2. normalised: equal after case, spacing and punctuation are dropped, or as numbers ("05" = "5");
 *    then equal with accents folded, but only where folding leaves the options distinct; then equal
 *    with the spaces inside compounds dropped ("streetlight" = "street light"); then equal
 *    to a label without its parenthetical or description, or to the parenthetical ("United Kingdom
 *    (UK)", "Superfast — 80 Mb");
 * 3. synonym: both name the same lexicon entry (US states, countries, yes/no, months, genders) or
 *    the same concept once filler words are dropped ("email" = "Email address", "phone" = "By phone").
 * Sharing a word or a prefix is never enough. Several distinct options at the first tier that
 * matches → ambiguous (-2); none → -1.
 */
export function findChoice(value: unknown, choices: ChoiceLike[]): ChoiceMatch {
  const raw = typeof value === 'boolean' ? (value ? 'yes' : 'no') : asText(value);
  if (!raw.trim()) return { index: -1 };
  const norm = normaliseText(raw);
  const folded = foldAccents(raw);
  const foldedLabels = choices.map((c) => foldAccents(c.label));
  const foldingKeepsDistinct = new Set(foldedLabels).size === new Set(choices.map((c) => normaliseText(c.label))).size;
  // Accents fold only where that leaves the options distinct ("Résumé" and "Resume" stay two).
  const fold = foldingKeepsDistinct ? foldAccents : normaliseText;
  const wanted = fold(raw);
  const num = asNumber(raw);
  const synonyms = valueSynonyms(raw);
  const concept = optionConcept(raw);
  const sameSynonym = (text: string): boolean => [...valueSynonyms(text)].some((id) => synonyms.has(id));
  const tiers: Array<[MatchHow, (c: ChoiceLike) => boolean]> = [
    ['exact', (c) => c.label === raw || c.value === raw],
    [
      'normalised',
      (c) =>
        normaliseText(c.label) === norm ||
        normaliseText(c.value) === norm ||
        (num !== null && (asNumber(c.value) === num || asNumber(c.label) === num)),
    ],
    ['normalised', (c) => foldingKeepsDistinct && (foldAccents(c.label) === folded || foldAccents(c.value) === folded)],
    // Compounds written apart or together ("streetlight" / "street light", "e-mail" / "email").
    ['normalised', (c) => fold(c.label).replaceAll(' ', '') === wanted.replaceAll(' ', '')],
    [
      'normalised',
      (c) =>
        fold(withoutParenthetical(c.label)) === wanted ||
        (wanted.length >= 2 && fold(parenthetical(c.label)) === wanted),
    ],
    [
      'synonym',
      (c) =>
        synonyms.size > 0 &&
        (sameSynonym(c.label) || sameSynonym(c.value) || sameSynonym(withoutParenthetical(c.label))),
    ],
    ['synonym', (c) => concept !== '' && optionConcept(c.label) === concept],
  ];
  for (const [how, test] of tiers) {
    const hits = choices.map((c, i) => (test(c) ? i : -1)).filter((i) => i >= 0);
    if (!hits.length) continue;
    const first = hits[0] as number;
    // Several options with the same label (duplicates) are one answer; distinct ones are ambiguous.
    // A boolean meeting "Yes"/"No" is an adaptation even where the option's value is literally "yes".
    if (hits.every((i) => normaliseText(choices[i]?.label ?? '') === normaliseText(choices[first]?.label ?? ''))) {
      return { index: first, how: typeof value === 'boolean' && how === 'exact' ? 'normalised' : how };
    }
    return { index: -2 };
  }
  return { index: -1 };
}

/** `findChoice` as an index: the choice, -1 for none, -2 for ambiguous. */
export function matchChoice(value: unknown, choices: ChoiceLike[]): number {
  return findChoice(value, choices).index;
}

/** Choices for a month control: number, zero-padded number, name, short name. */
export function monthChoiceValues(month: number): string[] {
  const name = MONTHS[month - 1] ?? '';
  return [String(month), String(month).padStart(2, '0'), name, name.slice(0, 3)];
}

export interface FilePayload {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

const EXTENSIONS: Record<string, string> = {
  'text/plain': 'txt',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/octet-stream': 'bin',
};

function dataUrlPayload(url: string, index: number): FilePayload | null {
  const m = /^data:([^;,]*)(?:;name=([^;,]*))?;base64,(.*)$/s.exec(url);
  if (!m) return null;
  const mimeType = m[1] || 'application/octet-stream';
  const ext = EXTENSIONS[mimeType] ?? mimeType.split('/')[1]?.split('+')[0] ?? 'bin';
  return {
    name: m[2] ? decodeURIComponent(m[2]) : `upload-${index + 1}.${ext}`,
    mimeType,
    buffer: Buffer.from(m[3] ?? '', 'base64'),
  };
}

/** Files from a data URL, `{name, mime_type, content_base64}`, or an array of those. */
export function filePayloads(value: unknown): FilePayload[] {
  const list = Array.isArray(value) ? value : [value];
  const out: FilePayload[] = [];
  list.forEach((item, index) => {
    if (typeof item === 'string') {
      const p = dataUrlPayload(item, index);
      if (p) out.push(p);
    } else if (isFileObject(item)) {
      out.push({
        name: item.name,
        mimeType: item.mime_type ?? 'application/octet-stream',
        buffer: Buffer.from(item.content_base64, 'base64'),
      });
    }
  });
  return out;
}

/** Is what the control shows equivalent to what we meant to put there? */
export function sameValue(shown: string, intended: string, digitsOnly: boolean): boolean {
  if (shown === intended) return true;
  if (digitsOnly) return shown.replace(/\D/g, '') === intended.replace(/\D/g, '') && shown.replace(/\D/g, '') !== '';
  return loose(shown) === loose(intended);
}

/** Alternative spellings of a phone number, for forms that reject the first. */
export function phoneVariants(value: string): string[] {
  const digits = value.replace(/[^\d+]/g, '');
  const out = [digits];
  if (digits.startsWith('+44')) out.push(`0${digits.slice(3)}`);
  if (digits.startsWith('+1')) out.push(digits.slice(2));
  if (digits.startsWith('+')) out.push(digits.slice(1));
  return [...new Set(out)].filter((v) => v !== value);
}

/**
 * Does `pattern` (an input's pattern attribute) accept `text`? A pattern the browser ignores (invalid
 * under the `v` flag) accepts everything. Undefined when RE2 cannot run it (lookaround, backreference,
 * e.g. USWDS's SSN pattern): we cannot tell without a backtracking engine, so the page's own
 * constraint check decides after filling.
 */
export function patternAccepts(pattern: string, text: string): boolean | undefined {
  if (!pattern) return true;
  try {
    new RegExp(pattern, 'v');
  } catch {
    return true;
  }
  try {
    // Run on RE2, so a page's pattern cannot backtrack in this process.
    return linearRegExp(pattern, { anchored: true }).test(text);
  } catch {
    return undefined;
  }
}

/** A placeholder drawn as a mask ("___ __ ____", "(###) ###-####"), not as an example or a hint. */
function maskLike(placeholder: string): boolean {
  return (
    /^[\s_#9Xx\-/().+]+$/.test(placeholder) &&
    (placeholder.match(/[_#9Xx]/g)?.length ?? 0) >= 2 &&
    /[_#]/.test(placeholder)
  );
}

/**
 * The value written in the shape a masked input wants: its letters and digits, in order, into the
 * mask's slots ("123456789" → "123 45 6789" for "___ __ ____"; "A#A #A#" takes letter, digit, …).
 * Only separators change, so the meaning stays. Null when the value does not fill the mask exactly
 * or the result breaks the input's pattern (one RE2 cannot run is left to the page's own check).
 */
export function fitToMask(text: string, mask: string, pattern: string): string | null {
  const template = mask || '';
  if (!template || (!/[A#]/.test(template) && !maskLike(template))) return null;
  const chars = [...text.replace(/[^\p{L}\p{N}]/gu, '')];
  const charset = !maskLike(template);
  const isSlot = (m: string): boolean => (charset ? m === 'A' || m === '#' : /[_#9Xx]/.test(m));
  if ([...template].filter(isSlot).length !== chars.length) return null;
  let i = 0;
  let out = '';
  for (const m of template) {
    if (!isSlot(m)) {
      out += m;
      continue;
    }
    const ch = chars[i++] as string;
    if ((m === '#' || m === '9') && !/\p{N}/u.test(ch)) return null;
    if (charset && m === 'A' && !/\p{L}/u.test(ch)) return null;
    out += ch;
  }
  return patternAccepts(pattern, out) === false ? null : out;
}

/**
 * The value without a unit or currency the control already shows beside it ("£1250" into a box
 * with a £ prefix → "1250"; "72 kg" beside a "kg" suffix → "72").
 */
export function withoutAffixes(text: string, affixes: string): string {
  if (!affixes) return text;
  let out = text.trim();
  for (const affix of [affixes.trim(), ...affixes.split(/\s+/)].filter(Boolean)) {
    const escaped = affix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out
      .replace(new RegExp(`^${escaped}\\s*(?=[\\d.,-])`, 'iu'), '')
      .replace(new RegExp(`(?<=[\\d.])\\s*${escaped}$`, 'iu'), '');
  }
  return out;
}
