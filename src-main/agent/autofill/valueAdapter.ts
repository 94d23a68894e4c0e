import { isFileObject } from './entries.ts';
import { MONTHS } from './dates.ts';
import { loose } from './textNorm.ts';

export { DATE_FORMATS, dateFormatFromHint, formatDate, looksLikeDateField, MONTHS, parseDateValue, type DateParts } from './dates.ts';

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

const ALIASES: Record<string, string[]> = {
  'united kingdom': ['uk', 'gb', 'great britain', 'britain', 'united kingdom of great britain and northern ireland'],
  'united states': ['us', 'usa', 'united states of america', 'america'],
  yes: ['true', 'y', '1', 'on'],
  no: ['false', 'n', '0', 'off'],
  male: ['m', 'man'],
  female: ['f', 'woman'],
};

function variants(value: string): string[] {
  const l = loose(value);
  const out = new Set([l]);
  for (const [canonical, aliases] of Object.entries(ALIASES)) {
    if (l === canonical || aliases.includes(l)) {
      out.add(canonical);
      for (const a of aliases) out.add(a);
    }
  }
  return [...out];
}

export interface ChoiceLike {
  label: string;
  value: string;
}

/**
 * Picks the choice meaning `value`: exact label/value (forgiving case, spacing, punctuation), then a
 * label without its parenthetical ("United Kingdom (UK)"), aliases, numbers, then a unique prefix or
 * word-containment match. Returns the index, -1 for no match, -2 when ambiguous.
 */
export function matchChoice(value: unknown, choices: ChoiceLike[]): number {
  const raw = typeof value === 'boolean' ? (value ? 'yes' : 'no') : asText(value);
  const wanted = variants(raw);
  const tiers: Array<(c: ChoiceLike) => boolean> = [
    (c) => c.label === raw || c.value === raw,
    (c) => wanted.includes(loose(c.label)) || wanted.includes(loose(c.value)),
    (c) => wanted.includes(loose(c.label.replace(/\([^)]*\)/g, ''))) || wanted.some((w) => w.length >= 2 && loose((/\(([^)]*)\)/.exec(c.label) ?? ['', ''])[1] ?? '') === w),
    (c) => /^-?\d+(\.\d+)?$/.test(raw) && (Number(c.value) === Number(raw) || Number(loose(c.label)) === Number(raw)),
    (c) => wanted.some((w) => w.length >= 3 && loose(c.label).startsWith(w)),
    (c) => wanted.some((w) => w.length >= 3 && ` ${loose(c.label)} `.includes(` ${w} `)),
  ];
  for (const tier of tiers) {
    const hits = choices.map((c, i) => (tier(c) ? i : -1)).filter((i) => i >= 0);
    if (hits.length === 1) return hits[0] as number;
    if (hits.length > 1) {
      // Several options share a label and value (duplicates): any will do, else ambiguous.
      const first = choices[hits[0] as number] as ChoiceLike;
      return hits.every((i) => loose(choices[i]?.label ?? '') === loose(first.label)) ? (hits[0] as number) : -2;
    }
  }
  return -1;
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
  'text/plain': 'txt', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg', 'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx', 'application/octet-stream': 'bin',
};

function dataUrlPayload(url: string, index: number): FilePayload | null {
  const m = /^data:([^;,]*)(?:;name=([^;,]*))?;base64,(.*)$/s.exec(url);
  if (!m) return null;
  const mimeType = m[1] || 'application/octet-stream';
  const ext = EXTENSIONS[mimeType] ?? mimeType.split('/')[1]?.split('+')[0] ?? 'bin';
  return { name: m[2] ? decodeURIComponent(m[2]) : `upload-${index + 1}.${ext}`, mimeType, buffer: Buffer.from(m[3] ?? '', 'base64') };
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
      out.push({ name: item.name, mimeType: item.mime_type ?? 'application/octet-stream', buffer: Buffer.from(item.content_base64, 'base64') });
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
