// The pure half of the submission check: what a request carries (urlencoded, multipart, JSON in any
// nesting, GraphQL variables, a GET form's query), and whether each placed value is in it with its
// meaning intact (sameMeaning.ts). submissionWatch.ts holds the request while this decides.

import { isSecretParamName } from '../../base/urlRedaction.ts';
import { sameMeaning } from './sameMeaning.ts';
import type { ChoiceLike } from './valueAdapter.ts';

/** One name → value pair a request carries; a file part's value is its file name. */
export interface SentField {
  name: string;
  value: string;
  file?: boolean;
}

/** What the check knows about one placed key. */
export interface PlacedCheck {
  key: string;
  /** The control's label (for messages). */
  label: string;
  /** The value meant: form_data's, a correction's or a human's answer, as text (file names for a file). */
  given: string;
  /** The names (name, id) of the controls it went into; a request field of one of these names is this key's. */
  names: string[];
  /** What the control holds as its submitted value, read back after filling (an option's own `value` attribute). */
  sent: string[];
  /** The control's options, for a choice. */
  options: ChoiceLike[];
  /** `code`: one code in a row of one-character boxes (a PIN, a one-time code). */
  kind: 'text' | 'choice' | 'checkbox' | 'file' | 'date' | 'code';
  secret: boolean;
  /**
   * A `code`'s boxes' own field names, in the boxes' order: a form may send the code one character per
   * field (`otp1` … `otp6`, or one name repeated, `code[]`).
   */
  parts?: string[];
  /** For a list of choices (a multi-select, a checkbox group): each value meant, one by one. */
  items?: string[];
}

export interface Mismatch {
  key: string;
  label: string;
  sent: string;
  given: string;
  secret: boolean;
}

export interface RequestCheck {
  /** Keys found in the request with their meaning intact. */
  verified: string[];
  /** Keys found under their field name with another meaning: the request must not leave. */
  mismatches: Mismatch[];
}

const ON = /^(true|1|yes|on|checked)$/i;
const OFF = /^(false|0|no|off|)$/i;

function flattenJson(value: unknown, prefix: string, out: SentField[]): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) flattenJson(item, `${prefix}[${index}]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) flattenJson(item, prefix ? `${prefix}.${name}` : name, out);
  } else if (value !== undefined) {
    out.push({ name: prefix, value: value === null ? '' : String(value) });
  }
}

function parseMultipart(type: string, body: Buffer): SentField[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
  if (!boundary) return [];
  const out: SentField[] = [];
  const sep = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let start = body.indexOf(sep);
  while (start >= 0) {
    start += sep.length;
    const next = body.indexOf(sep, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      if (filename !== undefined) out.push({ name, value: filename, file: true });
      else out.push({ name, value: part.subarray(headerEnd + 4).toString('utf8') });
    }
    start = next;
  }
  return out;
}

function jsonFields(text: string): SentField[] | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  const out: SentField[] = [];
  // GraphQL: the values are the variables; the query text is not a field.
  const operations = Array.isArray(data) ? data : [data];
  const graphql = operations.every(
    (op) => op !== null && typeof op === 'object' && typeof (op as { query?: unknown }).query === 'string',
  );
  if (!graphql) flattenJson(data, '', out);
  else {
    for (const [i, op] of operations.entries())
      flattenJson((op as { variables?: unknown }).variables ?? {}, operations.length > 1 ? `[${i}]` : '', out);
  }
  return out;
}

/** The fields a request carries: its body by content type (or by its look), plus a GET form's query. */
export function requestFields(method: string, url: string, contentType: string, body: Buffer | null): SentField[] {
  const type = contentType.toLowerCase();
  if (!body || body.length === 0) {
    if (method.toUpperCase() !== 'GET') return [];
    try {
      return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
    } catch {
      return [];
    }
  }
  if (type.startsWith('multipart/form-data')) return parseMultipart(contentType, body);
  const text = body.toString('utf8');
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    const fields = jsonFields(text);
    if (fields) return fields;
  }
  if (type.startsWith('application/x-www-form-urlencoded') || /^[^=&\s]+=[^&]*(&[^=&\s]+=[^&]*)*$/.test(text.trim())) {
    return [...new URLSearchParams(text)].map(([name, value]) => ({ name, value }));
  }
  return [];
}

/** A field name reduced for comparison: its last path segment, `[]` and case, `_`, `-` dropped. */
function nameKey(name: string): string {
  const last =
    name
      .replace(/\[\d*\]$/g, '')
      .split(/[.[\]]+/)
      .filter(Boolean)
      .at(-1) ?? name;
  return last.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** A code as its boxes take it: the characters, without the spaces and hyphens between groups ("482 913"). */
const codeOf = (text: string): string => text.replace(/[\s-]+/g, '');

function belongsTo(field: SentField, placed: PlacedCheck): boolean {
  const full = field.name.replace(/\[\]$/, '');
  const keyNames = [placed.key, placed.key.split('.').at(-1) ?? placed.key];
  return (
    placed.names.some((n) => n && (n === field.name || n === full || nameKey(n) === nameKey(field.name))) ||
    keyNames.some((k) => nameKey(k) === nameKey(field.name))
  );
}

function carries(field: SentField, placed: PlacedCheck): boolean {
  if (placed.kind === 'file') return placed.given.split(', ').includes(field.value);
  // A split date's or time's `sent` are its parts ("06", "2014"), none of which is the whole value.
  if (placed.kind !== 'date' && placed.sent.length && placed.sent.includes(field.value)) return true;
  return (
    sameMeaning(placed.given, field.value, { options: placed.options, choice: placed.kind === 'choice' }) === 'same'
  );
}

/**
 * Checks the placed values against what a request carries. A key is verified when a field carries
 * its meaning (under its own name, or — for a field named otherwise, as JSON APIs do — anywhere); it
 * is a mismatch when a field of its name carries another meaning and none carries its own. A key
 * the request does not mention is neither (it may have gone with another page's request).
 */
export function checkRequest(fields: SentField[], placed: PlacedCheck[]): RequestCheck {
  const verified: string[] = [];
  const mismatches: Mismatch[] = [];
  const unticked: PlacedCheck[] = [];
  for (const p of placed) {
    const own = fields.filter((f) => belongsTo(f, p));
    if (p.kind === 'checkbox') {
      // A ticked box sends its name (with its value); an unticked one sends nothing.
      if (!p.sent.length) {
        if (own.some((f) => !OFF.test(f.value)))
          mismatches.push({
            key: p.key,
            label: p.label,
            sent: own.map((f) => f.value).join(', '),
            given: p.given,
            secret: p.secret,
          });
        else if (own.length) verified.push(p.key);
        else unticked.push(p);
      } else if (own.length) {
        if (own.some((f) => p.sent.includes(f.value) || ON.test(f.value))) verified.push(p.key);
        else
          mismatches.push({
            key: p.key,
            label: p.label,
            sent: own.map((f) => f.value).join(', '),
            given: p.given,
            secret: p.secret,
          });
      }
      continue;
    }
    if (p.kind === 'date') {
      // A date split over day / month / year boxes: its parts, in the boxes' order, must read as the same date.
      const parts = p.names
        .map((n) => fields.find((f) => f.name === n)?.value)
        .filter((v): v is string => v !== undefined);
      if (parts.length >= 2 && sameMeaning(p.given, parts.join(' '), {}) === 'same') verified.push(p.key);
      else if (parts.length >= 2 && p.sent.length === parts.length && parts.some((v, i) => v !== p.sent[i])) {
        mismatches.push({ key: p.key, label: p.label, sent: parts.join(' '), given: p.given, secret: p.secret });
      }
      // No part under its own name (a JSON API sending the date or time as one field): checked as one value below.
      if (parts.length) continue;
    }
    if (p.kind === 'code' && p.parts?.length) {
      // A code sent one character per field: the boxes' fields, in the boxes' order (one name repeated: in the
      // request's order), must spell exactly the code typed; spelling another holds the request.
      const names = p.parts;
      const sent =
        new Set(names).size === names.length
          ? names
              .map((n) => fields.find((f) => f.name === n && !f.file)?.value)
              .filter((v): v is string => v !== undefined)
          : fields.filter((f) => !f.file && names.includes(f.name)).map((f) => f.value);
      if (sent.length >= 2) {
        if (sent.join('') === codeOf(p.given)) verified.push(p.key);
        else mismatches.push({ key: p.key, label: p.label, sent: sent.join(''), given: p.given, secret: p.secret });
        continue;
      }
      // No box sent on its own (a hidden field or a JSON API carries the whole code): checked as one value below.
    }
    if (p.kind === 'choice' && p.sent.length > 1 && own.length) {
      const values = new Set(own.map((f) => f.value));
      if (p.sent.every((v) => values.has(v))) verified.push(p.key);
      else
        mismatches.push({
          key: p.key,
          label: p.label,
          sent: own.map((f) => f.value).join(', '),
          given: p.given,
          secret: p.secret,
        });
      continue;
    }
    if (p.kind === 'choice' && p.items?.length && own.length) {
      // A list of choices whose sent values were not all known: each field of its name must mean one of
      // the items (or be a code nobody can read); one meaning another option holds the request.
      const meaning = (item: string, f: SentField): string => {
        const m = sameMeaning(item, f.value, { options: p.options, choice: true });
        // A value the control itself held is no stray, though which item it carries is not known.
        return m === 'different' && p.sent.includes(f.value) ? 'unknown' : m;
      };
      const stray = own.filter(
        (f) => f.value !== '' && !f.file && p.items?.every((item) => meaning(item, f) === 'different'),
      );
      if (stray.length)
        mismatches.push({
          key: p.key,
          label: p.label,
          sent: own.map((f) => f.value).join(', '),
          given: p.given,
          secret: p.secret,
        });
      else if (p.items.every((item) => own.some((f) => meaning(item, f) === 'same'))) verified.push(p.key);
      continue;
    }
    if (own.some((f) => carries(f, p))) {
      verified.push(p.key);
      continue;
    }
    // A choice sent as a code the page never showed, that no lexicon names, is unverified (listed), not another option.
    const opaque = (f: SentField): boolean =>
      p.kind === 'choice' && sameMeaning(p.given, f.value, { options: p.options, choice: true }) === 'unknown';
    // A file is another file only by a file part of another name; other fields may echo anything.
    const named = own.filter((f) => f.value !== '' && (p.kind === 'file' ? f.file : !f.file) && !opaque(f));
    if (named.length) {
      mismatches.push({
        key: p.key,
        label: p.label,
        sent: named.map((f) => f.value).join(', '),
        given: p.given,
        secret: p.secret,
      });
      continue;
    }
    // Named otherwise: a field anywhere carrying the value (JSON APIs rename fields). Never a mere word of it.
    if (p.given.trim().length >= 2 && fields.some((f) => !f.file && carries(f, p))) verified.push(p.key);
  }
  // An unticked box sends nothing: it is verified by its absence from a request that carries the rest of its form.
  if (verified.length) for (const p of unticked) if (p.names.length) verified.push(p.key);
  return { verified, mismatches };
}

/** The receipt's copy of the fields: name → value (repeated names as lists), secrets masked. */
export function receiptFields(
  fields: SentField[],
  secretValues: string[],
  secretNames: string[],
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const secrets = secretValues.filter((s) => s.length > 0);
  for (const field of fields) {
    const masked = isSecretParamName(field.name) || secretNames.includes(field.name) || secrets.includes(field.value);
    const value = masked ? '[secret]' : field.value;
    const known = out[field.name];
    out[field.name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
  }
  return out;
}
