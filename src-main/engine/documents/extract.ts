// The built-in extractor (no model): a bundle's named values — AcroForm fields, `Label: value` lines,
// key/value tables, CSV header rows, JSON keys — mapped onto a portal's form_schema by property name,
// title and description with the autofill lexicon and matching rules (agent/autofill/textNorm.ts,
// valueAdapter.ts, dates.ts). Meaning-preserving and never invented: a value is adapted to the
// property's type only where its meaning stays whole; two different values for one property, an
// ambiguous date or a value no enum option means leave the property out, listed in `missing` with why.

import type { JsonObject } from '../../contract/common.ts';
import { dateReadings, isoDate } from '../../agent/autofill/dates.ts';
import { MATCH_THRESHOLD } from '../../agent/autofill/fieldMatcher.ts';
import { conceptTokens, pageTokenWeights, textSimilarity, type TokenWeight } from '../../agent/autofill/textNorm.ts';
import { normaliseText } from '../../agent/autofill/lexicon.ts';
import { asBoolean, findChoice } from '../../agent/autofill/valueAdapter.ts';
import { jsonSchemas, type JsonSchemaCompiler } from '../../base/jsonSchema.ts';
import type { DocumentField, DocumentSource, ReadDocument } from './types.ts';

/** Where an extracted value came from; `ocr` is set when the text was read by OCR (its characters may be wrong). */
export interface ExtractionSource extends DocumentSource {
  ocr?: boolean;
}

/** Two (or more) values the documents give for one property: the job asks which, never picks. */
export interface ExtractionConflict {
  key: string;
  title: string;
  values: Array<{ value: unknown; source: ExtractionSource }>;
}

export interface ExtractionResult {
  form_data: JsonObject;
  /** Per dotted key of form_data. */
  sources: Record<string, ExtractionSource>;
  /** Dotted keys the documents did not settle: required ones nothing supplies, conflicts, values that would change meaning. */
  missing: string[];
  /** Why each missing key is missing. */
  reasons: Record<string, string>;
  conflicts: ExtractionConflict[];
}

/** One leaf property of the form_schema. */
export interface SchemaLeaf {
  key: string;
  path: string[];
  name: string;
  title: string;
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
}

/** A named value found in a document, with its source. */
interface Candidate {
  name: string;
  value: string;
  source: ExtractionSource;
}

/** Two properties closer than this for one field are indistinguishable: the field is left alone. */
const AMBIGUITY_MARGIN = 0.06;
const MAX_LABEL_LENGTH = 60;
const MAX_VALUE_LENGTH = 2000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(schema: Record<string, unknown>): string {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null') ?? '';
  if (Array.isArray(schema.enum)) return 'string';
  return '';
}

/** The schema's leaf properties (nested objects flattened to dotted keys), each knowing whether it is required all the way up. */
export function schemaLeaves(formSchema: JsonObject): SchemaLeaf[] {
  const out: SchemaLeaf[] = [];
  const walk = (schema: Record<string, unknown>, prefix: string[], parentRequired: boolean): void => {
    const props = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [];
    for (const [name, raw] of Object.entries(props)) {
      if (!isObject(raw)) continue;
      const path = [...prefix, name];
      const isRequired = parentRequired && required.includes(name);
      if (typeOf(raw) === 'object' || (isObject(raw.properties) && raw.type === undefined)) {
        walk(raw, path, isRequired);
        continue;
      }
      out.push({
        key: path.join('.'),
        path,
        name,
        title: typeof raw.title === 'string' ? raw.title : '',
        description: typeof raw.description === 'string' ? raw.description : '',
        required: isRequired,
        schema: raw,
      });
    }
  };
  walk(formSchema, [], true);
  return out;
}

/** The texts a property is known by, with how much each counts (as autofill weighs a key's name, path, title and description). */
function leafTexts(leaf: SchemaLeaf): Array<{ text: string; weight: number }> {
  const texts = [
    { text: leaf.name, weight: 1 },
    { text: leaf.path.join(' '), weight: 0.98 },
  ];
  if (leaf.title) texts.push({ text: leaf.title, weight: 1 });
  if (leaf.description) texts.push({ text: leaf.description, weight: 0.7 });
  return texts;
}

/** How well a document's field name names a property, in [0, ~1.05]; an exact name (as written or normalised) is 1.05. */
export function nameScore(fieldName: string, leaf: SchemaLeaf, weigh: TokenWeight = () => 1): number {
  const norm = normaliseText(fieldName);
  const last = normaliseText(
    fieldName
      .split(/[.[\]/]/)
      .filter(Boolean)
      .pop() ?? fieldName,
  );
  if (
    norm === normaliseText(leaf.key) ||
    norm === normaliseText(leaf.path.join('_')) ||
    (leaf.path.length === 1 && last === normaliseText(leaf.name))
  )
    return 1.05;
  let best = 0;
  for (const t of leafTexts(leaf)) {
    const s = Math.max(textSimilarity(fieldName, t.text, weigh), textSimilarity(t.text, fieldName, weigh)) * t.weight;
    if (s > best) best = s;
  }
  return best;
}

/** `Label: value` lines of a page's text (for readers that did not list them as fields). */
function labelLines(text: string): Array<{ name: string; value: string; line: string }> {
  const out: Array<{ name: string; value: string; line: string }> = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([^:\n]{1,60}?)\s*:\s+(\S.*?)\s*$/.exec(line);
    if (!m) continue;
    const name = m[1] as string;
    // A sentence with a colon in it is no label: a label is short and has a word in it.
    if (
      name.length > MAX_LABEL_LENGTH ||
      !/\p{L}/u.test(name) ||
      name.split(/\s+/).length > 8 ||
      /^https?$/i.test(name)
    )
      continue;
    out.push({ name, value: m[2] as string, line: line.trim() });
  }
  return out;
}

/** Every named value of the bundle: the readers' fields plus `Label: value` lines of the page texts. */
function candidatesOf(documents: ReadDocument[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (name: string, value: string, source: ExtractionSource): void => {
    const v = value.trim();
    if (!v || v.length > MAX_VALUE_LENGTH || !name.trim()) return;
    const id = JSON.stringify([source.document, source.page, normaliseText(name), v]);
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ name: name.trim(), value: v, source });
  };
  for (const doc of documents) {
    const ocrPages = new Set(doc.pageTexts.filter((p) => p.ocr).map((p) => p.page));
    const withOcr = (s: DocumentSource): ExtractionSource => (ocrPages.has(s.page) ? { ...s, ocr: true } : { ...s });
    for (const field of doc.fields as DocumentField[]) add(field.name, field.value, withOcr(field.source));
    for (const page of doc.pageTexts) {
      for (const line of labelLines(page.text)) {
        add(line.name, line.value, {
          document: doc.name,
          page: page.page,
          text: line.line,
          ...(page.ocr ? { ocr: true } : {}),
        });
      }
    }
  }
  return out;
}

type Adapted = { ok: true; value: unknown } | { ok: false; reason: string };

function parseNumber(text: string, integer: boolean): number | null {
  let t = text.trim().replace(/^[£$€]\s*/, '');
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) t = t.replaceAll(',', '');
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) return null;
  return n;
}

/** `text` as the property's type, only where that keeps its meaning. */
export function adaptValue(text: string, schema: Record<string, unknown>): Adapted {
  const type = typeOf(schema);
  const enumValues = Array.isArray(schema.enum) ? schema.enum : null;
  if (enumValues) {
    const choices = enumValues.map((v) => ({ label: String(v), value: String(v) }));
    const match = findChoice(text, choices);
    if (match.index >= 0) return { ok: true, value: enumValues[match.index] };
    return {
      ok: false,
      reason:
        match.index === -2
          ? `'${text}' could mean several of its options`
          : `'${text}' is none of its options (${choices.map((c) => c.label).join(', ')})`,
    };
  }
  if (type === 'boolean') {
    const b = text.trim() === '' ? null : asBoolean(text);
    return b === null ? { ok: false, reason: `'${text}' is not a yes or no` } : { ok: true, value: b };
  }
  if (type === 'number' || type === 'integer') {
    const n = parseNumber(text, type === 'integer');
    return n === null
      ? { ok: false, reason: `'${text}' is not ${type === 'integer' ? 'a whole number' : 'a number'}` }
      : { ok: true, value: n };
  }
  if (type === 'array') {
    const items = isObject(schema.items) ? schema.items : {};
    const parts = text.split(/\s*[;,\n]\s*/).filter(Boolean);
    const values: unknown[] = [];
    for (const part of parts) {
      const one = adaptValue(part, items);
      if (!one.ok) return one;
      values.push(one.value);
    }
    return values.length ? { ok: true, value: values } : { ok: false, reason: 'no values' };
  }
  if (schema.format === 'date') {
    const readings = dateReadings(text);
    if (readings.length === 1)
      return { ok: true, value: isoDate(readings[0] as { year: number; month: number; day: number }) };
    return {
      ok: false,
      reason: readings.length > 1 ? `'${text}' reads as two dates (day or month first)` : `'${text}' is not a date`,
    };
  }
  return { ok: true, value: text };
}

function setPath(target: JsonObject, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const part of path.slice(0, -1)) {
    if (!isObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

function deletePath(target: JsonObject, path: string[]): void {
  let node: Record<string, unknown> = target;
  for (const part of path.slice(0, -1)) {
    if (!isObject(node[part])) return;
    node = node[part] as Record<string, unknown>;
  }
  delete node[path[path.length - 1] as string];
}

const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export interface ExtractOptions {
  /** Validates the result against the schema (default: the process's shared compiler). */
  schemas?: JsonSchemaCompiler;
}

/**
 * Maps a bundle's documents onto `formSchema`. Each document field goes to the one property its name
 * names best (at autofill's match threshold, and clearly better than the next property); each
 * property takes its value only when every field that names it agrees once adapted to its type.
 */
export function extractFormData(
  documents: ReadDocument[],
  formSchema: JsonObject,
  options: ExtractOptions = {},
): ExtractionResult {
  const leaves = schemaLeaves(formSchema);
  const weigh = pageTokenWeights(leaves.map((leaf) => leafTexts(leaf).map((t) => t.text)));
  const byLeaf = new Map<string, Candidate[]>();
  for (const candidate of candidatesOf(documents)) {
    if (!conceptTokens(candidate.name).length) continue;
    const scored = leaves
      .map((leaf) => ({ leaf, score: nameScore(candidate.name, leaf, weigh) }))
      .filter((s) => s.score >= MATCH_THRESHOLD)
      .sort((a, b) => b.score - a.score);
    const [top, second] = scored;
    if (!top || (second && top.score - second.score < AMBIGUITY_MARGIN && top.score < 1.05)) continue;
    const list = byLeaf.get(top.leaf.key) ?? [];
    list.push(candidate);
    byLeaf.set(top.leaf.key, list);
  }
  const result: ExtractionResult = { form_data: {}, sources: {}, missing: [], reasons: {}, conflicts: [] };
  const miss = (key: string, reason: string): void => {
    if (!result.missing.includes(key)) result.missing.push(key);
    result.reasons[key] = reason;
  };
  for (const leaf of leaves) {
    const candidates = byLeaf.get(leaf.key) ?? [];
    const adapted: Array<{ value: unknown; source: ExtractionSource }> = [];
    const refused: string[] = [];
    for (const c of candidates) {
      const a = adaptValue(c.value, leaf.schema);
      if (a.ok) {
        if (!adapted.some((x) => sameValue(x.value, a.value))) adapted.push({ value: a.value, source: c.source });
      } else
        refused.push(`${a.reason} (${c.source.document}${c.source.page === null ? '' : `, page ${c.source.page}`})`);
    }
    const label = leaf.title || leaf.key;
    if (adapted.length === 1) {
      const [only] = adapted as [{ value: unknown; source: ExtractionSource }];
      setPath(result.form_data, leaf.path, only.value);
      result.sources[leaf.key] = only.source;
    } else if (adapted.length > 1) {
      result.conflicts.push({ key: leaf.key, title: label, values: adapted });
      miss(
        leaf.key,
        `the documents give different values for ${label}: ${adapted.map((a) => `'${String(a.source.text)}' (${a.source.document})`).join(' and ')}`,
      );
    } else if (refused.length) {
      miss(leaf.key, `${label}: ${refused[0]}`);
    } else if (leaf.required) {
      miss(leaf.key, `nothing in the documents gives ${label}`);
    }
  }
  // Whatever the schema still refuses (a pattern, a length, a range) is left out rather than sent.
  const validate = (options.schemas ?? jsonSchemas).compileObjectSchema(formSchema, 'portal.form_schema');
  for (let round = 0; round < leaves.length && !validate(result.form_data); round += 1) {
    const bad = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'required')
      .map((e) =>
        e.instancePath
          .split('/')
          .filter(Boolean)
          .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
          .join('.'),
      )
      .map((path) => leaves.find((leaf) => path === leaf.key || path.startsWith(`${leaf.key}.`)))
      .filter((leaf): leaf is SchemaLeaf => leaf !== undefined && result.sources[leaf.key] !== undefined);
    if (!bad.length) break;
    for (const leaf of bad) {
      deletePath(result.form_data, leaf.path);
      delete result.sources[leaf.key];
      miss(leaf.key, `${leaf.title || leaf.key}: the value in the documents does not fit the form's rules for it`);
    }
  }
  return result;
}
