import type { DocumentField } from './types.ts';

// "Full name: Ada Lovelace", "Date of birth : 1815-12-10"; a label is a short phrase that starts with a letter.
const LABEL_LINE = /^\s*([\p{L}][\p{L}\p{N} ._'()/#&-]{0,60}?)\s*[:：]\s*(\S.*?)\s*$/u;
const MAX_LABEL_WORDS = 8;
const MAX_VALUE_CHARS = 500;

/** `Label: value` lines of a text as `label_line` fields (URLs and times are not labels). */
export function labelLineFields(text: string, document: string, page: number | null): DocumentField[] {
  const fields: DocumentField[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = LABEL_LINE.exec(line);
    if (!match) continue;
    const name = (match[1] ?? '').trim();
    const value = (match[2] ?? '').trim();
    if (!name || !value || value.length > MAX_VALUE_CHARS) continue;
    if (name.split(/\s+/).length > MAX_LABEL_WORDS) continue;
    if (/^(https?|ftp|mailto|file)$/i.test(name) || value.startsWith('//')) continue;
    fields.push({ name, value, kind: 'label_line', source: { document, page, text: line.trim() } });
  }
  return fields;
}
